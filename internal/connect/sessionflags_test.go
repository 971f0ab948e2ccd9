package connect

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The guide's list of the flags that belong to a session is the list the
// code refuses with --session.
func TestSessionFlagsDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/guide/session-keeper.md")
	if err != nil {
		t.Fatal(err)
	}
	_, list, ok := strings.Cut(string(b), "These belong to the session:")
	_, list, _ = strings.Cut(list, "\n\n") // after the paragraph that says so
	list, _, ok2 := strings.Cut(list, "These are each command's own")
	if !ok || !ok2 {
		t.Fatal("docs/guide/session-keeper.md: the paragraphs of the session's and the command's flags are not found")
	}
	var documented []string
	for _, m := range regexp.MustCompile("`--([a-z-]+)`").FindAllStringSubmatch(list, -1) {
		documented = append(documented, m[1])
	}
	slices.Sort(documented)
	want := slices.Sorted(slices.Values(sessionShaping))
	if d := cmp.Diff(want, documented); d != "" {
		t.Errorf("the session's flags (-code +docs/guide/session-keeper.md):\n%s", d)
	}
}
