package commands

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestComplete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantOut  string
		errHas   string
	}{
		{"prompt", []string{"complete", "--prompt", "review", "--arg", "language=ja"}, 0,
			`{"completion":{"total":2,"values":["java","javascript"]}}`, ""},
		{"prompt values", []string{"complete", "--prompt", "review", "--arg", "language=ja", "-r", "-q", ".completion.values[]"}, 0,
			"java\njavascript", ""},
		{"template", []string{"complete", "--template", "demo://notes/{id}", "--arg", "id=1", "-c", "-q", ".completion.values"}, 0,
			`["1","12"]`, ""},
		{"empty partial and context", []string{"complete", "--template", "demo://notes/{id}", "--arg", "id=", "--context", "x=y", "-c", "-q", ".completion.values"}, 0,
			`["1","7","12","42"]`, ""},
		{"nothing to offer", []string{"complete", "--prompt", "greet", "--arg", "name=A", "-c", "-q", ".completion.values"}, 0, `[]`, ""},
		{"both refs", []string{"complete", "--prompt", "review", "--template", "demo://notes/{id}", "--arg", "id=1"}, 2, "", "can't be used together"},
		{"no ref", []string{"complete", "--arg", "id=1"}, 2, "", "--prompt NAME or --template"},
		{"no arg", []string{"complete", "--prompt", "review"}, 2, "", "--arg"},
		{"arg without =", []string{"complete", "--prompt", "review", "--arg", "language"}, 2, "", "want NAME=PARTIAL"},
		{"arg without name", []string{"complete", "--prompt", "review", "--arg", "=ja"}, 2, "", "want NAME=PARTIAL"},
		{"bad context", []string{"complete", "--prompt", "review", "--arg", "language=j", "--context", "code"}, 2, "", "want NAME=VALUE"},
		{"context twice", []string{"complete", "--prompt", "review", "--arg", "language=j", "--context", "a=1", "--context", "a=2"}, 2, "", "given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, "", args(tt.args, demoLegacy())...)
			if r.code != tt.wantCode {
				t.Errorf("exit code %d, want %d; stderr:\n%s", r.code, tt.wantCode, r.stderr)
			}
			if d := cmp.Diff(tt.wantOut, strings.TrimSuffix(r.stdout, "\n")); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
			if !strings.Contains(r.stderr, tt.errHas) {
				t.Errorf("stderr %q does not contain %q", r.stderr, tt.errHas)
			}
		})
	}
}

func TestCompleteOverHTTP(t *testing.T) {
	t.Parallel()
	u := demoHTTP(t, httpModes["sse"])
	r := mcpv(t, "", "-u", u, "complete", "--prompt", "review", "--arg", "language=ja", "-c", "-q", ".completion.values")
	if r.code != 0 || r.stdout != `["java","javascript"]`+"\n" {
		t.Errorf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestCompleteParams checks what goes on the wire, through the verbose trace.
func TestCompleteParams(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"-v", "complete", "--template", "db://{schema}/{table}", "--arg", "table=us", "--context", "schema=public", "--context", "db=main"}, demoLegacy())...)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	want := `"method":"completion/complete","params":{"ref":{"type":"ref/resource","uri":"db://{schema}/{table}"},"argument":{"name":"table","value":"us"},"context":{"arguments":{"schema":"public","db":"main"}}}}`
	if !strings.Contains(r.stderr, want) {
		t.Errorf("trace lacks %s:\n%s", want, r.stderr)
	}
}

func TestCompleteNoCapability(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"-v", "complete", "--prompt", "p", "--arg", "a=b"}, fake("plain"))...)
	if r.code != 3 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, `"completions" capability`) || strings.Contains(r.stderr, `"method":"completion/complete"`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}
