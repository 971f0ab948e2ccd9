package suggest

import "testing"

func TestNearest(t *testing.T) {
	tools := []string{"add", "echo", "fail", "get_weather", "get-prompt", "search_repositories"}
	tests := []struct {
		name string
		want string // "" for no suggestion
	}{
		{"ecoh", "echo"},  // a swap
		{"ech", "echo"},   // a deletion
		{"Echo", "echo"},  // case
		{"ECHO", "echo"},  // case
		{"echoo", "echo"}, // an insertion
		{"get_wether", "get_weather"},
		{"search_repos", ""}, // too far
		{"xyz", ""},
		{"ad", "add"},
		{"a", ""},    // "add" is two edits from one letter
		{"echo", ""}, // itself: nothing to suggest
		{"get_prompt", "get-prompt"},
	}
	for _, tt := range tests {
		got, ok := Nearest(tt.name, tools)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("Nearest(%q) = %q, %v; want %q", tt.name, got, ok, tt.want)
		}
	}
	if got := DidYouMean("ecoh", tools); got != `; did you mean "echo"?` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("zzz", tools); got != "" {
		t.Errorf("DidYouMean(zzz) = %q", got)
	}
}

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"kitten", "sitting", 3},
		{"ab", "ba", 1}, {"ca", "abc", 3}, {"héllo", "hello", 1}, {"flaw", "lawn", 2},
	} {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// A candidate comes from a server or a project file: its controls are shown
// escaped, never sent to the terminal.
func TestDidYouMeanEscapes(t *testing.T) {
	if got := DidYouMean("echo", []string{"ech\x1bo", "zzz"}); got != `; did you mean "ech\x1bo"?` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("admin", []string{"admin\u202e"}); got != `; did you mean "admin\u202e"?` {
		t.Errorf("DidYouMean = %q", got)
	}
}
