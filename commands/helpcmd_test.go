package commands

import (
	"slices"
	"strings"
	"testing"
)

// 'mcpv help' takes a command path of any depth, as gh's does, and prints
// what --help prints for it (a misspelled word, a usage error that
// suggests the right one, is testdata/cli.yaml's).
func TestHelpCommandPaths(t *testing.T) {
	t.Parallel()
	for _, path := range [][]string{{"session", "start"}, {"tasks", "result"}, {"skills", "pull"}, {"completions"}, {"session"}} {
		want := mcpv(t, "", append(slices.Clone(path), "--help")...)
		got := mcpv(t, "", append([]string{"help"}, path...)...)
		if got.code != 0 || got.stderr != "" || got.stdout != want.stdout {
			t.Errorf("help %s: exit %d, stderr %q, stdout %.200q; want what --help prints: %.200q", strings.Join(path, " "), got.code, got.stderr, got.stdout, want.stdout)
		}
		if usage := "Usage: mcpv " + strings.Join(path, " "); !strings.HasPrefix(got.stdout, usage) {
			t.Errorf("help %s begins %.60q, want %q", strings.Join(path, " "), got.stdout, usage)
		}
	}
}
