//go:build e2e

package e2e

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
	"github.com/mcpv/mcpv/internal/testkit"
)

// loginRun is auth login with a state directory of its own and a browser
// that only leaves mark (nothing when mark is ""); the caller starts it.
func loginRun(t *testing.T, mark string, args ...string) *run {
	browser := "true"
	if mark != "" {
		browser = "touch " + mark
	}
	r := &run{cmd: exec.Command(mcpvBin, append([]string{"auth", "login"}, args...)...)}
	r.cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir(), "BROWSER="+browser)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	t.Cleanup(func() {
		if r.cmd.Process != nil {
			r.cmd.Process.Kill()
		}
	})
	return r
}

// otherUser runs the test binary as uid 65534 (nobody), from a copy it can
// execute, trying to listen at network and addr; it returns what it said,
// and the function that ends it.
func otherUser(t *testing.T, bin, network, addr string) (said string, end func()) {
	t.Helper()
	// The copy was just written: a fork elsewhere in this process may hold
	// it open for writing for a moment (ETXTBSY), until that child execs.
	for try := 0; ; try++ {
		cmd := exec.Command(bin)
		cmd.Env = []string{squatEnv + "=" + network + " " + addr}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		err := cmd.Start()
		if errors.Is(err, syscall.ETXTBSY) && try < 100 {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		return strings.TrimSpace(line), func() { stdin.Close(); cmd.Wait() }
	}
}

// HARDENING, another local user: the fixed redirect port of a registered
// redirect URI is something another user of the machine can race for.
// Taken first (on either loopback address the host leads to), the login
// ends at once with exit 5 naming it, before the browser is sent anywhere;
// held by mcpv, it cannot be taken on any address, IPv4 or IPv6, loopback
// or wildcard, while mcpv waits for the browser, and Ctrl-C ends the wait.
func TestRedirectPortAgainstAnotherUser(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("making another local user's process needs root")
	}
	if ln, err := net.Listen("tcp6", "[::1]:0"); err != nil {
		t.Skip("no IPv6 loopback address here")
	} else {
		ln.Close()
	}
	dir, err := os.MkdirTemp("", "mcpv-other-user")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "squat")
	data, err := os.ReadFile(os.Args[0])
	if err != nil || os.WriteFile(bin, data, 0o755) != nil {
		t.Fatalf("copying the test binary: %v", err)
	}
	demo := demoserver.New()
	srv := oauthtest.New(t, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, &sdk.StreamableHTTPOptions{JSONResponse: true}))
	for _, taken := range [][2]string{{"tcp6", "::1"}, {"tcp4", "127.0.0.1"}} {
		port := strconv.Itoa(testkit.FreePort(t))
		said, end := otherUser(t, bin, taken[0], net.JoinHostPort(taken[1], port))
		if said != "listening" {
			end()
			t.Fatalf("the other user could not listen at %s: %s", taken[1], said)
		}
		r := loginRun(t, "", "-u", srv.URL(), "--redirect-host", "localhost", "--redirect-port", port)
		if err := r.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		code, _ := r.wait(t, 15*time.Second)
		end()
		want := "the redirect address " + net.JoinHostPort(taken[1], port) + " is in use by another program"
		if code != 5 || !strings.Contains(r.stderr.String(), want) || strings.Count(r.stderr.String(), "\n") != 1 {
			t.Errorf("%s taken first: exit %d, stderr:\n%s", taken[1], code, r.stderr.String())
		}
	}
	if n := srv.Count("authorize") + srv.Count("register"); n != 0 {
		t.Errorf("%d requests to register or authorize while the port was taken", n)
	}

	port := strconv.Itoa(testkit.FreePort(t))
	mark := filepath.Join(t.TempDir(), "opened")
	r := loginRun(t, mark, "-u", srv.URL(), "--redirect-host", "localhost", "--redirect-port", port)
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForFile(t, mark, r)
	for _, try := range [][2]string{{"tcp6", "::1"}, {"tcp4", "127.0.0.1"}, {"tcp4", "0.0.0.0"}, {"tcp6", "::"}} {
		said, end := otherUser(t, bin, try[0], net.JoinHostPort(try[1], port))
		end()
		if !strings.HasPrefix(said, "refused") || !strings.Contains(said, "address already in use") {
			t.Errorf("the other user at %s while mcpv waits: %s", try[1], said)
		}
	}
	r.cmd.Process.Signal(os.Interrupt)
	if code, _ := r.wait(t, 10*time.Second); code != 130 {
		t.Errorf("Ctrl-C during the wait: exit %d, stderr:\n%s", code, r.stderr.String())
	}
}
