//go:build unix

package commands

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A browser login inside a command's handshake does not count against
// --connect-timeout: the user's time is bounded by --login-timeout. The
// connect timeout runs on a clock of the test's own, which the test runs
// out while the browser is open, at a server's first run and at a later
// one that starts from its remembered era (in the modern era, the login
// comes at the first call, which waits for the server's start; in the
// initialize era, at initialize): no clock of the start may be running
// then.
func TestOAuthLoginOutlastsConnectTimeout(t *testing.T) {
	t.Parallel()
	for era, opts := range map[string]*sdk.StreamableHTTPOptions{"modern": {Stateless: true, JSONResponse: true}, "initialize": {JSONResponse: true}} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			srv, _ := authWorldWith(t, w, opts)
			fifo := filepath.Join(t.TempDir(), "browser")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			// The browser waits for the test before it goes to the page.
			w.setenv("BROWSER", "read -r _ < "+shellwords.Quote(fifo)+"; MCPV_TEST_BROWSER=1 "+shellwords.Quote(os.Args[0]))
			const connect = 2 * time.Second
			for _, run := range []string{"first", "remembered"} {
				clock := mcptest.NewClock()
				done := make(chan result, 1)
				go func() { // ends with the run, which the browser's wait holds
					done <- mcpvIn(t, onClock(w.env, clock), "", "--auth", "auto", "--connect-timeout", connect.String(), "list-tools", "-u", srv.URL(), "-c", "-q", "[.tools[].name]")
				}()
				browser := openWhenRead(t, fifo)
				clock.WaitUntil(t, "a clock of the start", func(ts mcptest.Timers) bool { return ts.Running[connect]+ts.Stopped[connect] > 0 })
				if n := clock.Fire(connect); n != 0 {
					t.Errorf("%s run: %d clocks of the start ran while the browser was open", run, n)
				}
				browser.WriteString("go\n")
				browser.Close()
				if r := <-done; r.code != 0 || strings.TrimSpace(r.stdout) != demoTools {
					t.Fatalf("%s run: exit %d, stdout %q, stderr %q", run, r.code, r.stdout, r.stderr)
				}
				if r := w.mcpv(t, "", "auth", "logout", "-u", srv.URL()); r.code != 0 {
					t.Fatalf("logout: exit %d, stderr %q", r.code, r.stderr)
				}
			}
			if n := srv.Count("authorize"); n != 2 {
				t.Errorf("%d logins, want 2", n)
			}
		})
	}
}

// openWhenRead opens the FIFO at path for writing once a reader has
// opened it; a minute without one is a hang.
func openWhenRead(t *testing.T, path string) *os.File {
	t.Helper()
	for guard := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return f
		}
		if !errors.Is(err, syscall.ENXIO) || time.Now().After(guard) {
			t.Fatalf("waiting for a reader of %s: %v", path, err)
		}
	}
}
