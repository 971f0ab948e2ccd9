package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/testkit"
)

// TestReadmeExamples runs every "$ mcpv ..." example in the console blocks
// of the README and of the guides in docs/guide against the demo server,
// and compares the output with the one printed there.
func TestReadmeExamples(t *testing.T) {
	testkit.SkipLong(t, "every example of the README and the guides")
	t.Parallel()
	docs, err := filepath.Glob("../docs/guide/*.md")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, file := range append([]string{"../README.md"}, docs...) {
		md, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		name := strings.TrimPrefix(filepath.ToSlash(file), "../")
		examples := consoleExamples(string(md))
		if name == "README.md" && len(examples) < 5 {
			t.Fatalf("found %d README examples", len(examples))
		}
		total += len(examples)
		for _, ex := range examples {
			t.Run(name+"/"+ex.command, func(t *testing.T) {
				runExample(t, ex)
			})
		}
	}
	if total < 6 {
		t.Errorf("found %d examples in the README and the guides", total)
	}
}

func runExample(t *testing.T, ex example) {
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
		t.Errorf("output (-documented +got):\n%s\nstderr: %s", d, r.stderr)
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

// The exit codes are a contract: the README and the exit-codes guide show
// the same table, with a row for every code mcpv exits with, and
// 'mcpv help exit-codes' lists the same codes, and 'mcpv --help' names
// them.
func TestExitCodeTables(t *testing.T) {
	t.Parallel()
	readme := exitCodeTable(t, "../README.md")
	guide := exitCodeTable(t, "../docs/guide/exit-codes.md")
	if d := cmp.Diff(readme, guide); d != "" {
		t.Errorf("the exit-code tables differ (-README.md +docs/guide/exit-codes.md):\n%s", d)
	}
	want := []int{exitcode.OK, exitcode.ToolError, exitcode.Usage, exitcode.Server, exitcode.Transport, exitcode.Auth, exitcode.Filter, exitcode.Pinned, exitcode.Timeout, exitcode.Interrupt}
	var inTable []int
	for _, row := range readme[2:] {
		var code int
		if _, err := fmt.Sscanf(row, "| %d |", &code); err != nil {
			t.Fatalf("row %q: %v", row, err)
		}
		inTable = append(inTable, code)
	}
	if d := cmp.Diff(want, inTable); d != "" {
		t.Errorf("the README's exit codes (-exit.go +README.md):\n%s", d)
	}
	table := mcpv(t, "", "help", "exit-codes").stdout
	_, brief, _ := strings.Cut(mcpv(t, "", "--help").stdout, "\nExit codes: ")
	brief, _, _ = strings.Cut(brief, "\n\n")
	brief = " " + strings.ReplaceAll(brief, "\n", " ")
	for _, code := range want {
		if !strings.Contains(table, fmt.Sprintf("\n    %-4d ", code)) {
			t.Errorf("mcpv help exit-codes does not list exit code %d", code)
		}
		if !strings.Contains(brief, fmt.Sprintf(" %d ", code)) {
			t.Errorf("mcpv --help does not name exit code %d: %q", code, brief)
		}
	}
}

// exitCodeTable is the first table after the "Exit codes" heading of a
// Markdown file, a row a line.
func exitCodeTable(t *testing.T, file string) []string {
	t.Helper()
	md, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(md), "# Exit codes\n")
	if !ok {
		t.Fatalf("%s has no Exit codes heading", file)
	}
	var rows []string
	for line := range strings.SplitSeq(rest, "\n") {
		if strings.HasPrefix(line, "|") {
			rows = append(rows, line)
		} else if len(rows) > 0 {
			break
		}
	}
	if len(rows) < 3 {
		t.Fatalf("%s has no exit-code table", file)
	}
	return rows
}
