package commands

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/output"
)

// docLine is an mcpv command line of a doc's ```sh block: its file and
// line, and its words.
type docLine struct {
	where string
	text  string
}

// shellLines are the mcpv command lines of md's ```sh blocks (continued
// lines joined; each mcpv of a pipe or a list its own line), with the
// line each starts on. A block after a line "In a script:" is run whole by
// e2e's TestReadmeScript, and left out here.
func shellLines(name, md string) []docLine {
	var out []docLine
	lines := strings.Split(md, "\n")
	in, prev := false, ""
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case !in && strings.HasPrefix(line, "```sh"):
			in = !strings.HasSuffix(strings.TrimSpace(prev), "In a script:")
			if !in { // skip the script block
				for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
				}
			}
			continue
		case in && strings.HasPrefix(line, "```"):
			in = false
		case in:
			start := i + 1
			for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
				i++
				line = strings.TrimSuffix(line, "\\") + " " + strings.TrimSpace(lines[i])
			}
			for _, part := range commandParts(line) {
				out = append(out, docLine{where: name + ":" + strconv.Itoa(start), text: part})
			}
		}
		if strings.TrimSpace(line) != "" {
			prev = line
		}
	}
	return out
}

// commandParts are the mcpv commands of a shell line: its comment cut, and
// split at pipes, && and ;, outside quotes.
func commandParts(line string) []string {
	var parts []string
	var cur strings.Builder
	quote := byte(0)
	flush := func() {
		p := strings.TrimSpace(cur.String())
		p = strings.TrimPrefix(p, "$ ")
		if p == "mcpv" || strings.HasPrefix(p, "mcpv ") {
			parts = append(parts, p)
		}
		cur.Reset()
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' '):
			flush()
			return parts
		case c == '|' || c == ';' || c == '&' || c == '(' || c == ')' || c == '`':
			flush()
			continue
		}
		cur.WriteByte(c)
	}
	flush()
	return parts
}

// shellVar is a word that a shell expands: it stands for what the doc
// means it to hold, a value that parses.
var shellVar = regexp.MustCompile(`^"?\$\{?[A-Za-z_][A-Za-z0-9_]*\}?"?$`)

// redirect is a word of the shell's redirections (>FILE, 2>FILE, > FILE).
var redirect = regexp.MustCompile(`^[0-9]?[<>]`)

// Every mcpv command line of the README's, the guides' and the agent
// skill's ```sh blocks
// parses as the command line it shows: its command, its flags and their
// values, as mcpv reads them before it starts or reaches anything. A
// renamed flag or command, a value a flag no longer takes, a usage
// mistake, fails here (the console blocks' examples, and the scripts,
// are run whole by TestReadmeExamples and e2e's TestReadmeScript).
func TestDocCommandLinesParse(t *testing.T) {
	t.Parallel()
	docs, _ := filepath.Glob("../docs/guide/*.md")
	checked := 0
	for _, file := range append([]string{"../README.md", skillFile}, docs...) {
		md, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range shellLines(strings.TrimPrefix(file, "../"), string(md)) {
			var words []string
			all := shellWords(t, l.text)[1:]
			for i := 0; i < len(all); i++ {
				w := all[i]
				switch {
				case redirect.MatchString(w): // the shell's, not mcpv's
					if strings.HasSuffix(w, ">") || strings.HasSuffix(w, "<") {
						i++
					}
					continue
				case shellVar.MatchString(w):
					w = "http://127.0.0.1:9/mcp"
				}
				words = append(words, w)
			}
			args, server := splitServer(words)
			for _, w := range server {
				if flag, _, _ := strings.Cut(w, "="); slices.Contains(ownFlags, flag) {
					t.Errorf("%s: %s\n\t%s after -- goes to the server, not to mcpv", l.where, l.text, flag)
				}
			}
			args = loadShorts(args)
			if len(args) > 0 && args[0] == "help" {
				continue
			}
			if msg := parseOnly(t, args); msg != "" {
				t.Errorf("%s: %s\n\t%s", l.where, l.text, msg)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("%d command lines checked in the docs' sh blocks; want the hundred and more there are", checked)
	}
	t.Logf("%d command lines of the docs' sh blocks parse", checked)
}

// ownFlags are flags of mcpv's that no server of the docs takes: after
// -- they would go to the server.
var ownFlags = []string{"--format", "--fail-on", "--errors", "--query", "--trace", "--timeout"}

// parseOnly parses args as mcpv does before it starts or reaches
// anything, and returns the mistake it reports ("" for none; what
// --version and --help print is no mistake).
func parseOnly(t *testing.T, args []string) (msg string) {
	var errb bytes.Buffer
	r := &invocation{c: new(cli), ios: output.NewStreams(strings.NewReader(""), new(bytes.Buffer), &errb), env: testEnv(t)}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(exitRequest); !ok {
				panic(p)
			}
			msg = ""
		}
	}()
	if _, ok := r.parse(args, nil); !ok {
		return strings.TrimSpace(errb.String())
	}
	return ""
}
