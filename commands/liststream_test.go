package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// TestListsStream: a list printed as it comes (compact, no --jq, no table)
// is byte for byte what merging its pages prints, --max-pages included;
// one whose walk fails is still one JSON value on stdout, of the items
// read, with the failure's exit code.
func TestListsStream(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	spec := func(name, body string) []string {
		p := filepath.Join(dir, name+".json")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return fake("spec=" + p)
	}
	three := spec("three", `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b"},{"name":"c","n":1.50}],"pageSize":1}`)
	const all = `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b"},{"name":"c","n":1.50}]}` + "\n"
	cases := []struct {
		name   string
		args   []string
		server []string
		code   int
		stdout string
	}{
		{"every page", []string{"list-tools"}, three, 0, all},
		{"--max-pages", []string{"list-tools", "--max-pages", "2"}, three, 0, `{"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b"}],"nextCursor":"2"}` + "\n"},
		{"--cursor", []string{"list-tools", "--cursor", "2"}, three, 0, `{"tools":[{"name":"c","n":1.50}]}` + "\n"},
		{"a filter sees the whole", []string{"list-tools", "-c", "-q", ".tools | length"}, three, 0, "3\n"},
		{"--pretty is merged first", []string{"list-tools", "--pretty"}, three, 0,
			"{\n  \"tools\": [\n    {\n      \"name\": \"a\",\n      \"inputSchema\": {\n        \"type\": \"object\"\n      }\n    },\n" +
				"    {\n      \"name\": \"b\"\n    },\n    {\n      \"name\": \"c\",\n      \"n\": 1.50\n    }\n  ]\n}\n"},
		{"a cursor sent again", []string{"list-prompts"},
			spec("again", `{"prompts":[{"name":"p"},{"name":"q"}],"pageSize":1,"repeatCursor":["prompts/list"]}`), 4,
			`{"prompts":[{"name":"p"},{"name":"q"}]}` + "\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, "", args(c.args, c.server)...)
			if r.code != c.code {
				t.Fatalf("exit %d, stderr %s", r.code, r.stderr)
			}
			if c.stdout != "" && r.stdout != c.stdout {
				t.Errorf("stdout %q, want %q", r.stdout, c.stdout)
			}
			if !json.Valid([]byte(r.stdout)) {
				t.Errorf("stdout is not one JSON value: %q", r.stdout)
			}
		})
	}
}

// TestEndlessListBounded: a list that never ends, each page bringing new
// items, ends within its bounds (mcp.MaxWalkPages, mcp.MaxWalkBytes), exit
// 4, with stdout one JSON value.
func TestEndlessListBounded(t *testing.T) {
	testkit.SkipLong(t, "walks an endless list to its bound: seconds")
	t.Parallel()
	p := filepath.Join(t.TempDir(), "endless.json")
	os.WriteFile(p, []byte(`{"tools":[{"name":"x","inputSchema":{"type":"object"}}],"pageSize":50,"endlessItems":["tools/list"]}`), 0o600)
	r := mcpv(t, "", args([]string{"list-tools"}, fake("spec="+p))...)
	if r.code != 4 || !strings.Contains(r.stderr, "so the list never ends") || !json.Valid([]byte(r.stdout)) {
		t.Errorf("exit %d, stderr %q, stdout valid JSON %v", r.code, r.stderr, json.Valid([]byte(r.stdout)))
	}
}

// TestLookupsStopAtWhatTheyFind: call and get-prompt walk a list only as
// far as the page that holds their tool or prompt: on a list that never
// ends, one listing.
func TestLookupsStopAtWhatTheyFind(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "endless.json")
	os.WriteFile(p, []byte(`{"tools":[{"name":"x","inputSchema":{"type":"object"}}],"prompts":[{"name":"greet"}],"pageSize":5,"endlessItems":["tools/list","prompts/list"]}`), 0o600)
	for _, c := range []struct {
		args []string
		list string
	}{
		{[]string{"call", "x"}, "tools/list"},
		{[]string{"get-prompt", "greet"}, "prompts/list"},
	} {
		r := mcpv(t, "", args([]string{"-v"}, c.args, fake("spec="+p))...)
		if n := strings.Count(r.stderr, `"method":"`+c.list+`"`); r.code != 0 || n != 1 {
			t.Errorf("%q: exit %d, %d listings; want 0 and 1", c.args, r.code, n)
		}
	}
}

// A list refused before its first page prints nothing on stdout, not a
// lone newline: `out=$(mcpv list-prompts ...)` holds nothing but what the
// server listed.
func TestListRefusedPrintsNothing(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"list-prompts"}, fake("not-found=prompts/list"))...)
	if r.code != 3 || r.stdout != "" {
		t.Errorf("exit %d, stdout %q, want 3 and nothing\n%s", r.code, r.stdout, r.stderr)
	}
}
