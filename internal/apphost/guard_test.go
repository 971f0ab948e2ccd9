package apphost

import (
	"strings"
	"testing"
)

// TestGuardedComesFirst: the guard goes right after the doctype as a
// browser finds it, so that it is the document's first script and the
// document keeps its standards mode; where markup that a browser would
// read before the doctype could hold a script (a comment a browser ends
// earlier than "-->"), or no doctype comes, the guard goes first of all.
func TestGuardedComesFirst(t *testing.T) {
	const g = "GUARD"
	for _, tt := range []struct{ html, want string }{
		{"<!DOCTYPE html><p>x", "<!DOCTYPE html>GUARD<p>x"},
		{"<!doctype HTML >\n<html><script>app()</script>", "<!doctype HTML >GUARD\n<html><script>app()</script>"},
		{"\ufeff \n<!-- made by hand --><!-- again -->\t<!DocType html><p>", "\ufeff \n<!-- made by hand --><!-- again -->\t<!DocType html>GUARD<p>"},
		{"<!--><!doctype html>", "<!--><!doctype html>GUARD"},
		{"<!---><!doctype html>", "<!---><!doctype html>GUARD"},
		{"<!-- a --!-- b --><!doctype html>", "<!-- a --!-- b --><!doctype html>GUARD"},
		// A browser ends this comment at "--!>": the script is markup
		// before the doctype, which it then ignores.
		{"<!-- --!><script>first()</script><!-- --><!doctype html>", "GUARD<!-- --!><script>first()</script><!-- --><!doctype html>"},
		{"<!-- <!doctype html> --><script>first()</script>", "GUARD<!-- <!doctype html> --><script>first()</script>"},
		{"<!-- never ends <!doctype html>", "GUARD<!-- never ends <!doctype html>"},
		{"<script>first()</script><!doctype html>", "GUARD<script>first()</script><!doctype html>"},
		{"<p>no doctype", "GUARD<p>no doctype"},
		{"<!doctype html", "GUARD<!doctype html"},
		{"", "GUARD"},
	} {
		at := doctypeEnd(tt.html)
		if got := tt.html[:at] + g + tt.html[at:]; got != tt.want {
			t.Errorf("%q:\n got %q\nwant %q", tt.html, got, tt.want)
		}
	}
	got := guarded([]byte("<!DOCTYPE html><p>x"))
	if !strings.HasPrefix(got, "<!DOCTYPE html><meta http-equiv=\"Content-Security-Policy\" content=\"require-trusted-types-for 'script'; trusted-types default\"><script>") ||
		!strings.HasSuffix(got, "</script><p>x") || strings.Count(got, "</script>") != 1 {
		t.Errorf("guarded: %s", got)
	}
}

// TestGuardedNoSrcdoc: no "srcdoc" of the app's markup reaches the frame,
// in any ASCII case, in an attribute, a script or text; a replacement
// never makes one again; other letters that fold to ASCII ones outside
// ASCII (ſ) are the tokenizer's own and are left.
func TestGuardedNoSrcdoc(t *testing.T) {
	for _, tt := range []struct{ html, want string }{
		{`<iframe srcdoc="<script>x()</script>">`, `<iframe src_doc="<script>x()</script>">`},
		{`<IFRAME SRCDOC=a><iframe SrcDoc=b>`, `<IFRAME src_doc=a><iframe src_doc=b>`},
		{`<script>f.srcdoc = s; f.setAttribute("srcDOC", s)</script>`, `<script>f.src_doc = s; f.setAttribute("src_doc", s)</script>`},
		{`srcsrcdocdoc srcdocsrcdoc`, `srcsrc_docdoc src_docsrc_doc`},
		{`ſrcdoc srcdo c`, `ſrcdoc srcdo c`},
	} {
		if got := noSrcdoc(tt.html); got != tt.want {
			t.Errorf("%q:\n got %q\nwant %q", tt.html, got, tt.want)
		}
		if got := noSrcdoc(tt.want); got != tt.want {
			t.Errorf("%q is not left as it is: %q", tt.want, got)
		}
	}
	if got := guarded([]byte(`<!doctype html><iframe srcdoc="x">`)); strings.Contains(strings.TrimPrefix(got, "<!doctype html>"+guardHead), "srcdoc") {
		t.Errorf("guarded: %s", got)
	}
}
