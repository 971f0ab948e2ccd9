package jq

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func mustJSON(t *testing.T, text string) any {
	t.Helper()
	v, err := DecodeJSON([]byte(text))
	if err != nil {
		t.Fatalf("DecodeJSON(%q): %v", text, err)
	}
	return v
}

// Variables given from outside are $NAME in the expression, as jq's --arg
// and --argjson make them, and are gathered in $ARGS.named.
func TestFilterVariables(t *testing.T) {
	environ := []string{"HOME=/home/ada", "EMPTY="}
	tests := []struct {
		name, expr string
		vars       []Variable
		in, want   string
	}{
		{"string", `.[] | select(.name == $name) | .id`, []Variable{{"name", "b"}}, `[{"name":"a","id":1},{"name":"b","id":2}]`, "2\n"},
		{"a string stays a string", `$n | type`, []Variable{{"n", "42"}}, `null`, "\"string\"\n"},
		{"JSON keeps a big integer exact", `$n + 1`, []Variable{{"n", mustJSON(t, "12345678901234567890")}}, `null`, "12345678901234567891\n"},
		{"JSON object", `$o.a[1]`, []Variable{{"o", mustJSON(t, `{"a":[1,{"b":true}]}`)}}, `null`, "{\"b\":true}\n"},
		{"the last of a name wins", `$x`, []Variable{{"x", "first"}, {"x", "last"}}, `null`, "\"last\"\n"},
		{"several", `[$a, $b, .]`, []Variable{{"a", "1"}, {"b", mustJSON(t, "2")}}, `3`, "[\"1\",2,3]\n"},
		{"$ARGS.named", `$ARGS`, []Variable{{"a", "1"}, {"b", mustJSON(t, "null")}, {"a", "2"}}, `null`, `{"named":{"a":"2","b":null},"positional":[]}` + "\n"},
		{"$ARGS without variables", `$ARGS.named`, nil, `null`, "{}\n"},
		{"a variable named ARGS is the user's", `$ARGS`, []Variable{{"ARGS", "mine"}}, `null`, "\"mine\"\n"},
		{"$ENV is the given environment", `$ENV.HOME, env.EMPTY, ($ENV | has("PATH"))`, nil, `null`, "\"/home/ada\"\n\"\"\nfalse\n"},
		{"variables beside $ENV", `"\($ENV.HOME)/\($dir)"`, []Variable{{"dir", "notes"}}, `null`, "\"/home/ada/notes\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Compile(tt.expr, environ, tt.vars...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runString(t, f, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", tt.expr, d)
			}
		})
	}
}

// A filter compiled once runs many times (a batch) with the same values.
func TestFilterVariablesRunAgain(t *testing.T) {
	f, err := Compile(`. + $n`, nil, Variable{"n", mustJSON(t, "1")})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"1", "2"} {
		got, err := runString(t, f, in)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"1": "2\n", "2": "3\n"}[in]; got != want {
			t.Errorf("on %s: %q, want %q", in, got, want)
		}
	}
}

func TestFilterUndefinedVariable(t *testing.T) {
	_, err := Compile(`$nmae`, nil, Variable{"name", "x"})
	if err == nil || err.Error() != "jq: variable not defined: $nmae" {
		t.Errorf("err = %v", err)
	}
}

func TestDecodeJSON(t *testing.T) {
	for _, bad := range []string{"", "{", "hello", "1 2", `{"a":1}x`, "'x'"} {
		if v, err := DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("DecodeJSON(%q) = %v, want an error", bad, v)
		}
	}
	v, err := DecodeJSON([]byte(" [1.50, \"x\"] \n"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := runString(t, mustFilterVars(t, "$v", Variable{"v", v}), "null")
	if !strings.HasPrefix(got, `[1.50,"x"]`) {
		t.Errorf("decoded value prints as %q", got)
	}
}

func mustFilterVars(t *testing.T, expr string, vars ...Variable) *Filter {
	t.Helper()
	f, err := Compile(expr, nil, vars...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
