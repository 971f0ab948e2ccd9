package redact

import (
	"slices"
	"testing"
)

func TestJSONForms(t *testing.T) {
	got := JSONForms([]string{`a/b"c&d`, "plain-token-value"})
	for _, want := range []string{
		`a/b"c&d`,           // as it is
		`a/b\"c&d`,          // escaped the least (JavaScript, Python)
		`a/b\"c\u0026d`,     // by Go
		`a\/b\"c&d`,         // by PHP
		`a/b\\\"c&d`,        // twice
		`a\\/b\\\"c&d`,      // PHP's, escaped again
		`a\\\/b\\\"c&d`,     // PHP's, escaped again by PHP
		`a/b\\\"c\\u0026d`,  // Go's, escaped again
		"plain-token-value", // nothing to escape: one form
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no form %s in %q", want, got)
		}
	}
	if n := len(got); n != len(slices.Compact(slices.Sorted(slices.Values(got)))) {
		t.Errorf("forms repeated: %q", got)
	}
	if slices.Index(got, "plain-token-value") != len(got)-1 {
		t.Errorf("a value with nothing to escape has more than one form: %q", got)
	}
}

// A PHP server's JSON writes / as \/: a secret with a slash is masked
// there too.
func TestJSONFormsMaskPHP(t *testing.T) {
	s := NewScrubber(nil)
	s.Add(JSONForms([]string{"https://h.example/cb?k=s3cr3t"})...)
	php := `{"text":"https:\/\/h.example\/cb?k=s3cr3t"}`
	if got := string(s.Mask([]byte(php))); got != `{"text":"`+Mask+`"}` {
		t.Errorf("masked: %s", got)
	}
}
