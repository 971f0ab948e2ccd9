package commands

import (
	"strings"
	"testing"
)

// A tool whose inputSchema is a chain of 40 anyOf or allOf levels, each of
// two references to the level below (2^40 paths), is typed and checked at
// once: key=value is typed by it, a wrong value is refused, a right one
// sent; --no-validate sends without a check. A chain that loops back on
// itself is not checked, with a warning, and the call goes on.
func TestExplodingSchemas(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, shape string
		words       []string
		code        int
		stderr      string // a line stderr has, "" for none
		sent        string // the arguments sent, "" for nothing sent
	}{
		{"anyOf, typed", "anyof:40", []string{"p1=s"}, 0, "", `{"p1":"s"}`},
		{"anyOf, no-validate", "anyof:40", []string{"p1=s", "--no-validate"}, 0, "", `{"p1":"s"}`},
		{"anyOf, wrong value", "anyof:40", []string{"p1:=1"}, 2, "mcpv: arguments /p1: got number, want string (type); nothing sent", ""},
		{"anyOf, wrong value, no-validate", "anyof:40", []string{"p1:=1", "--no-validate"}, 0, "", `{"p1":1}`},
		{"allOf, typed", "allof:40", []string{"p1=s"}, 0, "", `{"p1":"s"}`},
		{"allOf, JSON", "allof:40", []string{`p1:="s"`}, 0, "", `{"p1":"s"}`},
		{"allOf, wrong value", "allof:40", []string{"p1:=true"}, 2, "mcpv: arguments /p1: got boolean, want string (type); nothing sent", ""},
		{"loop", "loop:40", []string{`p1:="s"`}, 0, `warning: tool "shaped"'s inputSchema is not checked: checking a value against it would take more than`, `{"p1":"s"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tail, log := fakeLogged(t, "schema="+tt.shape)
			r := mcpv(t, "", args([]string{"call", "shaped"}, tt.words, tail)...)
			if r.code != tt.code || tt.stderr == "" && r.stderr != "" || !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("exit %d, stderr %q; want exit %d, %q", r.code, r.stderr, tt.code, tt.stderr)
			}
			got := readLog(t, log)
			switch {
			case tt.sent == "" && strings.Contains(got, `"tools/call"`):
				t.Errorf("the call was sent:\n%s", got)
			case tt.sent != "" && !strings.Contains(got, `"arguments":`+tt.sent):
				t.Errorf("want %s sent; the server got:\n%s", tt.sent, got)
			}
		})
	}
}
