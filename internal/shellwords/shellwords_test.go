package shellwords

import (
	"slices"
	"strings"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tt := range []struct {
		line  string
		words []string
		err   bool
	}{
		{`call echo message=hi`, []string{"call", "echo", "message=hi"}, false},
		{`a 'b c' "d \"e\" \$f" g\ h ''`, []string{"a", "b c", `d "e" $f`, "g h", ""}, false},
		{"a\tb\r", []string{"a", "b"}, false},
		{`'open`, nil, true},
		{`"open`, nil, true},
	} {
		words, err := Split(tt.line)
		if (err != nil) != tt.err || !slices.Equal(words, tt.words) {
			t.Errorf("%q: %q, %v; want %q", tt.line, words, err, tt.words)
		}
	}
}

// Join quotes words so that Split gives them back as they were.
func TestJoinSplitsBack(t *testing.T) {
	words := []string{"", "a b", `it's`, `"q"`, `back\slash`, "$HOME", "tab\there"}
	got, err := Split(Join(words))
	if err != nil || !slices.Equal(got, words) {
		t.Errorf("%q: %q, %v", Join(words), got, err)
	}
}

// Quote leaves a plain word as it is and quotes anything else so that
// Split gives it back.
func TestQuote(t *testing.T) {
	for _, w := range []string{"plain", "a/b.c:d=e@f%g+h,i", "", "two words", "it's", "$HOME", "a\nb"} {
		q := Quote(w)
		if got, err := Split(q); err != nil || len(got) != 1 || got[0] != w {
			t.Errorf("Split(Quote(%q)) = %q, %v", w, got, err)
		}
		if plain := w != "" && !strings.ContainsAny(w, " '$\n"); plain != (q == w) {
			t.Errorf("Quote(%q) = %q", w, q)
		}
	}
}
