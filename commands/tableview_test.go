package commands

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/output"
)

// go generate ./... refreshes the tables of the demo server (testdata/table).
//
//go:generate go test -run ^TestTableView -update .

// -o table shows info and each list of the demo server as a table, a row
// per item, pinned here; into a pipe, nothing is cut.
func TestTableView(t *testing.T) {
	t.Parallel()
	for _, line := range []string{"info", "list-tools", "list-tools echo", "list-resources", "list-resource-templates", "list-prompts"} {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, "", args(strings.Fields(line), []string{"-o", "table"}, demo())...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			checkGolden(t, filepath.Join("testdata", "table", strings.ReplaceAll(line, " ", "-")+".txt"), r.stdout)
			if strings.Contains(r.stdout, "…") {
				t.Errorf("a cell was cut in a pipe:\n%s", r.stdout)
			}
		})
	}
}

// terminal runs mcpv with stdout a terminal of width columns (0: one that
// does not say).
func terminal(t *testing.T, env []string, width int, words ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	ios := output.NewStreams(strings.NewReader(""), &out, &errb)
	ios.OutTTY = true
	ios.OutWidth = func() int { return width }
	code := run(context.Background(), words, ios, with(testEnv(t), append([]string{"NO_COLOR=1"}, env...)...))
	return result{code, out.String(), errb.String()}
}

// On a terminal the table is cut to its width (80 when it does not say),
// counting the columns each character takes, and a server's escapes are
// shown escaped.
func TestTableOnATerminal(t *testing.T) {
	t.Parallel()
	spec := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(spec, []byte(`{"tools":[
  {"name":"echo","description":"Echo the message back, as long as this description may go on and on.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}},
  {"name":"翻訳","description":"日本語のテキストを英語に翻訳します。とても長い説明です。","inputSchema":{"type":"object","properties":{"text":{"type":"string"},"from":{"type":"string"}},"required":["text"]}},
  {"name":"evil\u001b]0;pwned\u0007","description":"\u001b[2Jclears the screen\nand \u202ereverses","inputSchema":{"type":"object"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	server := fake("spec=" + spec)
	for _, width := range []int{48, 60, 0} {
		r := terminal(t, nil, width, args([]string{"list-tools", "-o", "table"}, server)...)
		if r.code != 0 {
			t.Fatalf("width %d: exit %d, stderr %q", width, r.code, r.stderr)
		}
		limit := width
		if limit == 0 {
			limit = 80
		}
		for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
			if safetext.Width(l) > limit {
				t.Errorf("width %d: a line of %d columns: %q", width, safetext.Width(l), l)
			}
		}
		if !strings.Contains(r.stdout, "…") {
			t.Errorf("width %d: nothing was cut:\n%s", width, r.stdout)
		}
		if strings.ContainsAny(r.stdout, "\x1b\a\u202e") || !strings.Contains(r.stdout, `evil\x1b]0;pwned\x07`) {
			t.Errorf("width %d: a server's escape reached the terminal, or its name is not shown escaped:\n%q", width, r.stdout)
		}
	}
}

// MCPV_OUTPUT=table makes the table the default on a terminal only: a pipe
// gets the JSON as without it, and so does a command line that shapes the
// JSON (--jq, --compact) or asks for it (-o json); a command without a
// table is left as it is. A value that is neither is refused on a terminal
// before any server starts.
func TestOutputDefaultOnATerminalOnly(t *testing.T) {
	t.Parallel()
	table := []string{"MCPV_OUTPUT=table"}
	list := args([]string{"list-prompts"}, demo())
	if r := terminal(t, table, 80, list...); r.code != 0 || !strings.HasPrefix(r.stdout, "NAME    ARGUMENTS (* REQUIRED)  DESCRIPTION\n") {
		t.Errorf("a terminal: exit %d, stdout %q", r.code, r.stdout)
	}
	plain := mcpv(t, "", list...)
	if r := mcpvIn(t, with(testEnv(t), table...), "", list...); r.code != 0 || r.stdout != plain.stdout || !strings.HasPrefix(r.stdout, "{") {
		t.Errorf("a pipe: exit %d, stdout %q, want the JSON %q", r.code, r.stdout, plain.stdout)
	}
	for _, flags := range [][]string{{"-q", ".prompts[0].name"}, {"-c"}, {"-o", "json"}} {
		if r := terminal(t, table, 80, args(flags, list)...); r.code != 0 || strings.Contains(r.stdout, "NAME ") {
			t.Errorf("%q on a terminal: exit %d, stdout %q, want JSON", flags, r.code, r.stdout)
		}
	}
	if r := terminal(t, table, 80, args([]string{"call", "echo", "message=hi"}, demo())...); r.code != 0 || !strings.Contains(r.stdout, `"hi"`) {
		t.Errorf("call on a terminal: exit %d, stdout %q", r.code, r.stdout)
	}
	gone := args([]string{"list-tools"}, fake("crash"))
	if r := terminal(t, []string{"MCPV_OUTPUT=tabel"}, 80, gone...); r.code != exitcode.Usage || !strings.Contains(r.stderr, `MCPV_OUTPUT="tabel": want json or table`) {
		t.Errorf("MCPV_OUTPUT=tabel on a terminal: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := mcpvIn(t, with(testEnv(t), "MCPV_OUTPUT=tabel"), "", list...); r.code != 0 {
		t.Errorf("MCPV_OUTPUT=tabel in a pipe: exit %d, stderr %q", r.code, r.stderr)
	}
}

// -o table goes with info and the list commands only, and not with the
// flags that shape JSON: each is a usage mistake, before any server starts.
func TestTableUsage(t *testing.T) {
	t.Parallel()
	gone := fake("crash")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"call", "echo", "-o", "table"}, "--output-format table is for info and the list commands; call has none"},
		{[]string{"tasks", "list", "-o", "table"}, "--output-format table is for info and the list commands; tasks list has none"},
		{[]string{"list-tools", "-o", "table", "-q", ".tools"}, "--output-format table shows a table for people, and --jq, --pretty and --compact shape JSON"},
		{[]string{"info", "-o", "table", "--pretty"}, "--output-format table shows a table for people"},
		{[]string{"-o", "table", "batch"}, "--output-format table is for info and the list commands; batch has none"},
		{[]string{"list-tools", "-o", "yaml"}, `--output-format must be one of "","json","table" but got "yaml"`},
		{[]string{"test", "-o", "report.xml", "t.yaml"}, `but got "report.xml"; mcpv test writes its report to the file --output FILE names`},
	} {
		r := mcpv(t, "", append(tc.args, gone...)...)
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
	r := mcpv(t, "list-tools -o table\nlist-tools\n", args([]string{"batch", "--keep-going"}, demo())...)
	if lines := strings.Split(r.stdout, "\n"); len(lines) < 2 || !strings.Contains(lines[0], "a batch line's output is JSON") || !strings.Contains(lines[1], `"tools"`) {
		t.Errorf("a batch line with -o table: exit %d, stdout %q", r.code, r.stdout)
	}
}
