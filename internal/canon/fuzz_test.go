package canon

import (
	"strings"
	"testing"
)

// FuzzURI: what URI accepts it accepts again, unchanged (the normal form
// of a normal form is itself), and no dot segment survives in its path:
// a guard that matches normal forms cannot be walked around by writing
// the same URI another way. Pattern and Fold are as steady.
func FuzzURI(f *testing.F) {
	for _, seed := range []string{
		"file:///a/./b/../c", "FILE://localhost/a%2e%2e/b", "https://Example.COM:443/x/../y?q=1#f",
		"demo://items/%7Eone", "s3://bucket/a/b/./c", "urn:x:y", "file:///a//b", "http://h/%2F", "http://h/a/%2e%2E/b",
		"demo://x/..", "mailto:a@b", "file:///C:/dir/../f", "http://h:/p", "ui://app/index.html",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		norm, err := URI(raw)
		if err != nil {
			return
		}
		again, err := URI(norm)
		if err != nil {
			t.Fatalf("URI(%q) = %q, which URI refuses: %v", raw, norm, err)
		}
		if again != norm {
			t.Fatalf("URI is not idempotent: %q -> %q -> %q", raw, norm, again)
		}
		path := split(norm, false).path
		for _, seg := range strings.Split(path, "/") {
			if seg == "." || seg == ".." {
				t.Fatalf("URI(%q) = %q keeps a dot segment", raw, norm)
			}
		}
		if p := Pattern(norm); Pattern(p) != p {
			t.Fatalf("Pattern is not idempotent on %q", norm)
		}
		if fold := Fold(raw); Fold(fold) != fold {
			t.Fatalf("Fold is not idempotent on %q", raw)
		}
	})
}
