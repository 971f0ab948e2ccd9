//go:build unix && e2e

package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// Ctrl-C while pin or audit waits on a server that stopped answering:
// exit 130, the server gone, and no pin file half written.
func TestTrustCommandsInterrupted(t *testing.T) {
	testkit.SkipLong(t, "pin and audit each waiting on a server that stopped answering")
	t.Parallel()
	for _, cmd := range [][]string{{"audit"}, {"pin", "pins.json"}} {
		t.Run(cmd[0], func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			s := newServer(t, "deaf")
			r := &run{cmd: exec.Command(mcpvBin, append(append([]string{}, cmd...), s.args()...)...)}
			r.cmd.Dir = dir
			r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
			if err := r.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.cmd.Process.Kill() })
			s.waitFor(t, `"method":"notifications/initialized"`)
			r.cmd.Process.Signal(os.Interrupt)
			if code, _ := r.wait(t, 60*time.Second); code != 130 {
				t.Errorf("exit %d, want 130; stderr:\n%s", code, r.stderr.String())
			}
			if !s.gone(t) {
				t.Error("the server outlived mcpv")
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the directory holds %v", entries)
			}
			if _, err := os.Stat(filepath.Join(dir, "pins.json")); err == nil {
				t.Error("a pin file was written")
			}
		})
	}
}
