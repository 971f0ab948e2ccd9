//go:build unix

package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session name that is not a plain file name is refused, exit 2, by
// every way a command names a session, before any file is touched: the
// NAME.json and NAME.sock it would reach stay.
func TestSessionNameRefusedBeforeAnyFile(t *testing.T) {
	t.Parallel()
	w, dir := testWorld(t, map[string]string{"t.yaml": "server:\n  session: ../x\nsteps:\n  - ping:\n"})
	rt := filepath.Join(dir, "rt")
	if err := os.Mkdir(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	w.setenv("XDG_RUNTIME_DIR", rt)
	victims := []string{filepath.Join(rt, "x.json"), filepath.Join(rt, "x.sock")}
	for _, v := range victims {
		if err := os.WriteFile(v, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		env  string
		args []string
		code int
		want string
	}{
		{"", []string{"--session", "../x", "ping"}, 2, `mcpv: --session: session name "../x"`},
		{"../x", []string{"ping"}, 2, `mcpv: MCPV_SESSION: session name "../x"`},
		{"", []string{"session", "stop", "../x"}, 2, `session name "../x"`},
		{"", []string{"session", "start", "../x", "--", "true"}, 2, `session name "../x"`},
		{"", []string{"test", "t.yaml"}, 2, `session name "../x"`},
	} {
		w := *w
		if tc.env != "" {
			w.setenv("MCPV_SESSION", tc.env)
		}
		r := w.mcpv(t, "", tc.args...)
		if r.code != tc.code || !strings.Contains(r.stdout+r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tc.args, r.code, r.stdout, r.stderr)
		}
	}
	for _, v := range victims {
		if _, err := os.Stat(v); err != nil {
			t.Errorf("%s was touched: %v", v, err)
		}
	}
}
