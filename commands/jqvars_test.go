package commands

import (
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/exitcode"
)

// --jq-arg and --jq-argjson set $NAME in --jq as jq's --arg and --argjson
// do, in every command that applies --jq, so that a script never splices
// a shell string into a filter.
func TestJqVariables(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		argv []string
		want string
	}{
		{"call", []string{"call", "echo", "message=it's \"quoted\"", "--jq-arg", "want", `it's "quoted"`, "-q", ".structuredContent.message == $want"}, "true\n"},
		{"before the command", []string{"--jq-arg", "n", "echo", "list-tools", "-r", "-q", ".tools[] | select(.name == $n) | .name"}, "echo\n"},
		{"--jq-arg=NAME VALUE", []string{"list-tools", "--jq-arg=n", "add", "-r", "-q", ".tools[] | select(.name == $n) | .name"}, "add\n"},
		{"a value that starts with a dash", []string{"ping", "--jq-arg", "v", "-5", "-q", "$v"}, "\"-5\"\n"},
		{"a value that names a flag", []string{"ping", "--jq-arg", "v", "--color", "-q", "$v"}, "\"--color\"\n"},
		{"JSON keeps a big integer exact", []string{"call", "add", "a:=1", "b:=2", "--jq-argjson", "big", "12345678901234567890", "-q", ".structuredContent.sum + $big"}, "12345678901234567893\n"},
		{"JSON object", []string{"ping", "--jq-argjson", "o", `{"a": [1, 2]}`, "-c", "-q", "$o.a"}, "[1,2]\n"},
		{"repeated", []string{"ping", "--jq-arg", "a", "1", "--jq-arg", "b", "2", "-c", "-q", "[$a, $b]"}, `["1","2"]` + "\n"},
		{"the last of a name wins, across both flags", []string{"ping", "--jq-argjson", "x", "1", "--jq-arg", "x", "one", "-q", "$x"}, "\"one\"\n"},
		{"the last of a name wins, JSON last", []string{"ping", "--jq-arg", "x", "one", "--jq-argjson", "x", "1", "-q", "$x"}, "1\n"},
		{"$ARGS.named", []string{"ping", "--jq-arg", "a", "1", "--jq-argjson", "b", "true", "-c", "-q", "$ARGS.named"}, `{"a":"1","b":true}` + "\n"},
		{"read", []string{"read", "demo://notes/7", "--jq-arg", "want", "note 7", "-q", ".contents[0].text == $want"}, "true\n"},
		{"get-prompt", []string{"get-prompt", "greet", "name=Ada", "--jq-arg", "who", "Ada", "-q", ".messages[0].content.text | contains($who)"}, "true\n"},
		{"info", []string{"info", "--jq-arg", "k", "tools", "-q", ".capabilities | has($k)"}, "true\n"},
		{"watch", []string{"watch", "demo://clock", "--count", "1", "--jq-arg", "p", "changed: ", "-r", "-q", "$p + .uri"}, "changed: demo://clock\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, "", args(tt.argv, demo())...)
			if r.code != 0 || r.stdout != tt.want {
				t.Errorf("%q: exit %d, stdout %q, want %q; stderr %q", tt.argv, r.code, r.stdout, tt.want, r.stderr)
			}
		})
	}
}

// A variable the filter uses and no flag sets, or a variable flag given
// wrongly, is a usage error: exit 2 and one line before any server starts
// (the server command here does not exist: starting it would be exit 4).
func TestJqVariableErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		argv []string
		want string // the line on stderr
	}{
		{[]string{"ping", "-q", "$nope"}, "mcpv: jq: variable not defined: $nope (see mcpv help flags)"},
		{[]string{"ping", "--jq-arg", "name", "x", "-q", "$nmae"}, "mcpv: jq: variable not defined: $nmae (see mcpv help flags)"},
		{[]string{"ping", "--jq-argjson", "n", "{bad", "-q", "$n"}, "mcpv: --jq-argjson: $n: invalid JSON: invalid character 'b' looking for beginning of object key string (see mcpv help flags)"},
		{[]string{"ping", "--jq-argjson", "n", "1 2", "-q", "$n"}, "mcpv: --jq-argjson: $n: invalid JSON: invalid character '2' after top-level value (see mcpv help flags)"},
		{[]string{"ping", "--jq-argjson", "n", "", "-q", "$n"}, "mcpv: --jq-argjson: $n: invalid JSON: unexpected end of JSON input (see mcpv help flags)"},
		{[]string{"ping", "--jq-arg", "user=ada", "-q", "$user"}, `mcpv: --jq-arg: "user=ada": give NAME and VALUE as two words (as jq's --arg takes them), not NAME=VALUE (see mcpv help flags)`},
		{[]string{"ping", "--jq-arg", "1x", "y", "-q", "."}, `mcpv: --jq-arg: "1x" is not a jq variable name (letters, digits and _, not first a digit) (see mcpv help flags)`},
		{[]string{"ping", "-q", ".", "--jq-arg", "x"}, "mcpv: --jq-arg: $x: give its VALUE after the name (see mcpv help flags)"},
		{[]string{"ping", "-q", ".", "--jq-argjson"}, "mcpv: --jq-argjson: give NAME and JSON (see mcpv help flags)"},
	}
	for _, tt := range tests {
		r := mcpv(t, "", append(tt.argv, "--", "/nonexistent/mcp-server")...)
		if r.code != exitcode.Usage || r.stdout != "" || r.stderr != tt.want+"\n" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.argv, r.code, r.stdout, r.stderr, tt.want)
		}
	}
}

// $ENV and env are the environment mcpv was given.
func TestJqEnvironmentHome(t *testing.T) {
	t.Parallel()
	env := with(testEnv(t), "HOME=/home/ada")
	r := mcpvIn(t, env, "", args([]string{"ping", "--jq-arg", "sub", "notes", "-r", "-q", `"\($ENV.HOME)/\($sub)", env.HOME`}, demo())...)
	if r.code != 0 || r.stdout != "/home/ada/notes\n/home/ada\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// Variables given before 'batch' are every line's; a line's own come after
// them (the last of a name wins).
func TestJqVariablesInBatch(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`ping -q $who`,
		`ping --jq-arg who bob -q $who`,
		`ping --jq-arg other x -c -q '[$who, $other]'`,
		`call add a:=2 b:=3 --jq-argjson k 10 -q '.structuredContent.sum * $k'`,
		`ping -q $who`,
	}, "\n") + "\n"
	r := mcpv(t, in, args([]string{"--jq-arg", "who", "ada", "batch"}, demo())...)
	want := `{"line":1,"result":"ada"}
{"line":2,"result":"bob"}
{"line":3,"result":["ada","x"]}
{"line":4,"result":50}
{"line":5,"result":"ada"}
`
	if r.code != 0 || r.stdout != want {
		t.Errorf("exit %d, stderr %q, stdout:\n%s\nwant:\n%s", r.code, r.stderr, r.stdout, want)
	}
	r = mcpv(t, "ping -q $nobody\n", args([]string{"batch"}, demo())...)
	if r.code != exitcode.Usage || !strings.Contains(r.stdout, `variable not defined: $nobody`) {
		t.Errorf("undefined in a line: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A jq user's --arg and --argjson are pointed to their names here.
func TestJqFlagHint(t *testing.T) {
	t.Parallel()
	for _, f := range []string{"--arg", "--argjson"} {
		r := mcpv(t, "", "call", "x", f, "n", "v", "--", "true")
		if r.code != 2 || r.stderr != "mcpv: unknown flag "+f+": jq's "+f+" is --jq-"+f[2:]+" here (see mcpv help flags)\n" {
			t.Errorf("%s: exit %d, stderr %q", f, r.code, r.stderr)
		}
	}
}
