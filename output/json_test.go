package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpv/mcpv/internal/jq"
)

func printString(t *testing.T, p Printer, in string) (string, error) {
	t.Helper()
	var b bytes.Buffer
	p.Out = &b
	err := p.Print([]byte(in))
	return b.String(), err
}

func mustFilter(t *testing.T, expr string) *jq.Filter {
	t.Helper()
	f, err := jq.Compile(expr, []string{"MCPV_OUTPUT_TEST=from the test"})
	if err != nil {
		t.Fatalf("jq.Compile(%q): %v", expr, err)
	}
	return f
}

// stripANSI removes SGR escape sequences (ESC [ ... m).
func stripANSI(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return b.String() + s
		}
		b.WriteString(s[:i])
		j := strings.IndexByte(s[i:], 'm')
		if j < 0 {
			return b.String() + s[i:]
		}
		s = s[i+j+1:]
	}
}

func TestPrintCompact(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"already compact", `{"a":1}`, "{\"a\":1}\n"},
		{"whitespace removed, strings kept", "{ \"a b\" : \"x  y\\n\\t\" ,\n\t\"c\": [ 1 , 2.50, -0.0, 1e2 ] }",
			"{\"a b\":\"x  y\\n\\t\",\"c\":[1,2.50,-0.0,1e2]}\n"},
		{"escaped quotes inside strings", `{"s": "say \"a , b\" \\" , "t" : 1}`, `{"s":"say \"a , b\" \\","t":1}` + "\n"},
		{"key order and unknown members kept", `{"z":1, "a":{"y":null, "b":true}}`, `{"z":1,"a":{"y":null,"b":true}}` + "\n"},
		{"trailing newlines become one", "{\"a\":1}\n\n  \r\n", "{\"a\":1}\n"},
		{"big number text kept", `{"n": 12345678901234567890.000}`, `{"n":12345678901234567890.000}` + "\n"},
		{"top-level string", `"a  b"`, "\"a  b\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := printString(t, Printer{}, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Print(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestPrintFormats(t *testing.T) {
	in := "{ \"a\" : [1, 2.50, \"x y\\n\"], \"b\": {\"c\": null, \"d\": true, \"e\": {}}, \"n\": 12345678901234567890 }"
	var want bytes.Buffer
	if err := json.Compact(&want, []byte(in)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		f         Format
		multiline bool
	}{
		{Format{}, false},
		{Format{Pretty: true}, true},
		{Format{Color: true}, false},
		{Format{Pretty: true, Color: true}, true},
	}
	for _, tt := range tests {
		got, err := printString(t, Printer{Format: tt.f}, in)
		if err != nil {
			t.Fatalf("%+v: %v", tt.f, err)
		}
		if hasColor := strings.Contains(got, "\x1b["); hasColor != tt.f.Color {
			t.Errorf("%+v: output has ANSI escapes = %v:\n%q", tt.f, hasColor, got)
		}
		plain := stripANSI(got)
		if !strings.HasSuffix(plain, "}\n") || strings.HasSuffix(plain, "\n\n") {
			t.Errorf("%+v: output does not end with exactly one newline: %q", tt.f, got)
		}
		if lines := strings.Count(plain, "\n"); (lines > 1) != tt.multiline {
			t.Errorf("%+v: %d lines:\n%s", tt.f, lines, plain)
		}
		if !json.Valid([]byte(plain)) {
			t.Errorf("%+v: output is not JSON:\n%s", tt.f, plain)
		}
		var compacted bytes.Buffer
		json.Compact(&compacted, []byte(plain))
		if diff := cmp.Diff(want.String(), compacted.String()); diff != "" {
			t.Errorf("%+v: output compacts to something else (-want +got):\n%s", tt.f, diff)
		}
	}
}

func TestFilterOutputs(t *testing.T) {
	tests := []struct {
		name, expr, in string
		format         Format
		want           string
	}{
		{"identity keeps a big integer", ".", `12345678901234567890`, Format{}, "12345678901234567890\n"},
		{"field keeps a big integer", ".a", `{"a":12345678901234567890}`, Format{}, "12345678901234567890\n"},
		{"arithmetic on a big integer is exact", ".a + 1", `{"a":12345678901234567890}`, Format{}, "12345678901234567891\n"},
		{"number text kept", ".", `{"a":1.000,"b":[1.50, 1e2, -0.0]}`, Format{}, `{"a":1.000,"b":[1.50,1e2,-0.0]}` + "\n"},
		{"field keeps number text", ".a", `{"a":1.000}`, Format{}, "1.000\n"},
		// gojq, unlike jq, sorts object keys; without a filter the order is kept.
		{"gojq sorts keys", ".", `{"z":1,"a":2}`, Format{}, `{"a":2,"z":1}` + "\n"},
		{"string quoted", ".s", `{"s":"a\nb"}`, Format{}, `"a\nb"` + "\n"},
		{"raw string", ".s", `{"s":"a\nb \"c\""}`, Format{Raw: true}, "a\nb \"c\"\n"},
		// At a terminal a raw string cannot clear the screen or set the clipboard; piped, it is as it came.
		{"raw string at a terminal", ".s", `{"s":"a\r\nb\t\u001b]52;c;ZXZpbA==\u0007\u001b[2J\u202e\u0008"}`, Format{Raw: true, Terminal: true}, "a\nb\t\\x1b]52;c;ZXZpbA==\\x07\\x1b[2J\\u202e\\x08\n"},
		{"raw string piped", ".s", `{"s":"\u001b[2J"}`, Format{Raw: true}, "\x1b[2J\n"},
		{"raw leaves other values JSON", ".[]", `["x",1,{"a":"y"},null]`, Format{Raw: true}, "x\n1\n{\"a\":\"y\"}\nnull\n"},
		{"one output per line", ".[]", `[1,"x",{"a":[1, 2]}]`, Format{}, "1\n\"x\"\n{\"a\":[1,2]}\n"},
		{"pretty outputs", ".[]", `[{"a":1},[2]]`, Format{Pretty: true}, "{\n  \"a\": 1\n}\n[2]\n"},
		{"no output", "empty", `{}`, Format{}, ""},
		{"halt stops quietly", "1, halt, 2", `{}`, Format{}, "1\n"},
		{"environment", "$ENV.MCPV_OUTPUT_TEST", `{}`, Format{}, "\"from the test\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := printString(t, Printer{Filter: mustFilter(t, tt.expr), Format: tt.format}, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s on %s (-want +got):\n%s", tt.expr, tt.in, diff)
			}
		})
	}
}

func TestFilterColor(t *testing.T) {
	got, err := printString(t, Printer{Filter: mustFilter(t, ".a"), Format: Format{Color: true}}, `{"a":{"b":[1,"x"]}}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "\x1b[") || stripANSI(got) != `{"b":[1,"x"]}`+"\n" {
		t.Errorf("coloured filter output = %q", got)
	}
}

func TestExitStatus(t *testing.T) {
	tests := []struct {
		expr, in string
		falsy    bool
	}{
		{".a", `{"a":false}`, true},
		{".a", `{"a":null}`, true},
		{".a", `{}`, true},
		{"empty", `{}`, true},
		{".[]", `[]`, true},
		{".[]", `[1,false]`, true},
		{".[]", `[false,1]`, false},
		{".a", `{"a":0}`, false},
		{".a", `{"a":""}`, false},
		{".a", `{"a":[]}`, false},
		{".a", `{"a":true}`, false},
		{"1, halt", `{}`, false},
	}
	for _, tt := range tests {
		for _, exitStatus := range []bool{true, false} {
			_, err := printString(t, Printer{Filter: mustFilter(t, tt.expr), ExitStatus: exitStatus}, tt.in)
			want := error(nil)
			if exitStatus && tt.falsy {
				want = ErrFalsy
			}
			if err != want {
				t.Errorf("ExitStatus=%v: %s on %s = %v, want %v", exitStatus, tt.expr, tt.in, err, want)
			}
		}
	}
}

func TestFilterRuntimeErrors(t *testing.T) {
	tests := []struct {
		expr, in, wantOut, wantMsg string
	}{
		{".a.b", `{"a":1}`, "", "jq: expected an object but got: number (1)"},
		{`1, error("custom")`, `{}`, "1\n", "jq: error: custom"},
		{`"x" | halt_error`, `{}`, "", "jq: halt error: x"},
	}
	for _, tt := range tests {
		got, err := printString(t, Printer{Filter: mustFilter(t, tt.expr)}, tt.in)
		var fe *jq.FilterError
		if !errors.As(err, &fe) {
			t.Errorf("%s on %s = %v, want a *FilterError", tt.expr, tt.in, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), tt.wantMsg) {
			t.Errorf("%s: error %q, want it to start with %q", tt.expr, err, tt.wantMsg)
		}
		if got != tt.wantOut {
			t.Errorf("%s: output before the error = %q, want %q", tt.expr, got, tt.wantOut)
		}
	}
	if _, err := printString(t, Printer{Filter: mustFilter(t, ".")}, `{"a":`); err == nil || !strings.Contains(err.Error(), "decode result for --jq") {
		t.Errorf("filter on invalid JSON = %v", err)
	}
}

// epipeWriter fails like a closed pipe (mcpv ... | head).
type epipeWriter struct{ writes int }

func (w *epipeWriter) Write([]byte) (int, error) {
	w.writes++
	return 0, syscall.EPIPE
}

func TestPrintBrokenPipe(t *testing.T) {
	big := `{"s":"` + strings.Repeat("x", 200<<10) + `"}`
	tests := []struct {
		name string
		p    Printer
		in   string
	}{
		{"compact", Printer{}, `{"a":1}`},
		{"compact, larger than the buffer", Printer{}, big},
		{"pretty", Printer{Format: Format{Pretty: true}}, `{"a":1}`},
		{"filter", Printer{Filter: mustFilter(t, ".[]")}, `[1,2,3]`},
		{"filter, larger than the buffer", Printer{Filter: mustFilter(t, ".s, .s")}, big},
		{"raw", Printer{Filter: mustFilter(t, ".s"), Format: Format{Raw: true}}, big},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &epipeWriter{}
			tt.p.Out = w
			if err := tt.p.Print([]byte(tt.in)); !errors.Is(err, syscall.EPIPE) {
				t.Errorf("Print = %v, want an error wrapping EPIPE", err)
			}
			if w.writes == 0 {
				t.Error("nothing was written")
			}
		})
	}
}

// Coloured output goes to a terminal: C1 and bidirectional controls in
// strings are written escaped (the same JSON value); plain output keeps them.
func TestColourEscapesTerminalControls(t *testing.T) {
	in := "{\"s\":\"a\u009b31mb \u202eevil\u202c\"}"
	got, err := printString(t, Printer{Format: Format{Color: true}}, in)
	if err != nil {
		t.Fatal(err)
	}
	plain := regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(got, "")
	if strings.ContainsAny(got, "\u009b\u202e\u202c") || plain != `{"s":"a\u009b31mb \u202eevil\u202c"}`+"\n" {
		t.Errorf("coloured: %q", got)
	}
	got, _ = printString(t, Printer{}, in)
	if got != in+"\n" {
		t.Errorf("plain: %q, want it as sent", got)
	}
}
