package commands

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadmeExamples runs every "$ mcpv ..." example in the README's console
// blocks against the demo server and compares the output with the README's.
func TestReadmeExamples(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := consoleExamples(string(readme))
	if len(examples) < 5 {
		t.Fatalf("found %d README examples", len(examples))
	}
	for _, ex := range examples {
		t.Run(ex.command, func(t *testing.T) {
			stdin, line := "", ex.command
			if before, after, ok := strings.Cut(line, " | mcpv "); ok {
				words := shellWords(t, before)
				if len(words) != 2 || words[0] != "echo" {
					t.Fatalf("unsupported pipe in %q", line)
				}
				stdin, line = words[1]+"\n", "mcpv "+after
			}
			words := shellWords(t, line)
			if words[0] != "mcpv" || len(words) < 3 || words[len(words)-2] != "--" || words[len(words)-1] != "./demo-server" {
				t.Fatalf("example does not run mcpv against ./demo-server: %q", line)
			}
			r := mcpv(t, stdin, args(words[1:len(words)-2], demo())...)
			if d := cmp.Diff(ex.output, r.stdout); d != "" {
				t.Errorf("output (-README +got):\n%s\nstderr: %s", d, r.stderr)
			}
		})
	}
}

type example struct{ command, output string }

func consoleExamples(md string) []example {
	var out []example
	in := false
	for line := range strings.SplitSeq(md, "\n") {
		switch {
		case strings.HasPrefix(line, "```console"):
			in = true
		case strings.HasPrefix(line, "```"):
			in = false
		case in && strings.HasPrefix(line, "$ "):
			out = append(out, example{command: strings.TrimPrefix(line, "$ ")})
		case in && line != "" && len(out) > 0:
			out[len(out)-1].output += line + "\n"
		}
	}
	return out
}

// shellWords splits a command line the way sh does for the quoting the README uses.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var cur strings.Builder
	inWord, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		t.Fatalf("unbalanced quote in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}
