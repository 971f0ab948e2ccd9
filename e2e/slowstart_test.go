//go:build unix && e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/demoserver"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A server that takes long to start (a cold go run, npx -y, uvx or docker
// run) gets the outcome a quick one gets: the era probe waits for it, up to
// --connect-timeout, and neither the era nor success depends on the delay.
// go test runs the 6 s delay; MCPV_SLOW_START=all (scripts/slow-start.sh,
// in CI) adds 30 s and 90 s. Every case runs in parallel.

func slowStartDelays() []time.Duration {
	if os.Getenv("MCPV_SLOW_START") == "all" {
		return []time.Duration{6 * time.Second, 30 * time.Second, 90 * time.Second}
	}
	return []time.Duration{6 * time.Second}
}

type slowCase struct {
	name   string
	era    string // "modern" or "legacy": what the output must show; "" as when started at once
	target func(t *testing.T, delay time.Duration) []string
}

// The demo server's echo answers "hello"; the fakes answer any tool "ok".
func (c slowCase) call() (tool, want string) {
	if strings.Contains(c.name, "go-sdk") {
		return "echo", `"text":"hello"`
	}
	return "x", `"text":"ok"`
}

func TestSlowStartingServers(t *testing.T) {
	testkit.SkipLong(t, "servers that start 6 s late")
	t.Parallel()
	cases := []slowCase{
		{"stdio dual-era go-sdk server", "modern", func(t *testing.T, d time.Duration) []string {
			demo := demoBin(t)
			return []string{"--", "sh", "-c", fmt.Sprintf("sleep %g; exec %s", d.Seconds(), demo)}
		}},
		{"stdio server of the initialize era", "legacy", func(t *testing.T, d time.Duration) []string {
			return delayedFake(t, "plain", d)
		}},
		{"stdio server of the initialize era that ignores the probe", "legacy", func(t *testing.T, d time.Duration) []string {
			return delayedFake(t, "ignore-early", d)
		}},
		{"HTTP go-sdk server", "", func(t *testing.T, d time.Duration) []string {
			demo := demoserver.New()
			h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, nil)
			return []string{"--url", slowHTTP(t, h, d) + "/mcp"}
		}},
		{"HTTP go-sdk server, stateless", "", func(t *testing.T, d time.Duration) []string {
			demo := demoserver.New()
			h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return demo }, &sdk.StreamableHTTPOptions{Stateless: true})
			return []string{"--url", slowHTTP(t, h, d) + "/mcp"}
		}},
		{"HTTP server of the initialize era", "legacy", func(t *testing.T, d time.Duration) []string {
			return slowFakeHTTP(t, d, "")
		}},
		{"HTTP server of the modern era only", "modern", func(t *testing.T, d time.Duration) []string {
			return slowFakeHTTP(t, d, `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete"}`)
		}},
	}
	for _, d := range slowStartDelays() {
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s after %s", c.name, d), func(t *testing.T) {
				t.Parallel()
				tool, want := c.call()
				call := func(delay time.Duration) string {
					args := append([]string{"--connect-timeout", (delay + 60*time.Second).String(), "call", tool, "message=hello", "-q", "del(.at)"}, c.target(t, delay)...) // the fakes stamp the time
					r := start(t, args...)
					code, took := r.wait(t, delay+90*time.Second)
					if out := r.stdout.String(); code != 0 || !strings.Contains(out, want) {
						t.Fatalf("started after %v: exit %d after %v, stdout %q, stderr:\n%s", delay, code, took, out, r.stderr.String())
					}
					return r.stdout.String()
				}
				quick := call(0)
				slow := call(d)
				if c.era == "modern" && strings.Contains(c.name, "dual-era") {
					// A dual-era server that starts late reads, at once, the
					// probe and the initialize that followed its silence; the
					// go-sdk server handles them concurrently, and when its
					// initialize wins, its modern results leave out the
					// serverInfo they otherwise carry. mcpv spoke the same
					// era and got the same answer either way: the member is
					// the server's choice, not the outcome.
					quick, slow = withoutServerInfo(t, quick), withoutServerInfo(t, slow)
				}
				if slow != quick {
					t.Errorf("the outcome depends on the start-up time:\nstarted at once: %s\nstarted after %v: %s", quick, d, slow)
				}
				if c.era != "" && strings.Contains(slow, `"resultType"`) != (c.era == "modern") {
					t.Errorf("spoken to in the wrong era (want %s): %s", c.era, slow)
				}
			})
		}
	}
}

// delayedFake is the fake server of the given behaviour, started d late.
func delayedFake(t *testing.T, behaviour string, d time.Duration) []string {
	return []string{"--env", mcptest.EnvVar + "=" + behaviour, "--",
		"sh", "-c", fmt.Sprintf(`sleep %g; exec "$0"`, d.Seconds()), os.Args[0]}
}

// slowFakeHTTP is mcptest's HTTP server, answering every POST d late and
// any tools/call "ok". With a discover result it is a modern server, which
// answers server/discover so and refuses initialize; without one, a server
// of the initialize era.
func slowFakeHTTP(t *testing.T, d time.Duration, discover string) []string {
	ready := make(chan struct{})
	time.AfterFunc(d, func() { close(ready) })
	return gatedHTTP(t, ready, discover)
}

// gatedFakeHTTP is slowFakeHTTP of the initialize era, answering once
// ready is closed.
func gatedFakeHTTP(t *testing.T, ready <-chan struct{}) []string { return gatedHTTP(t, ready, "") }

func gatedHTTP(t *testing.T, ready <-chan struct{}, discover string) []string {
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: discover != "", Post: func(x *mcptest.Exchange) bool {
		select {
		case <-ready:
		case <-x.R.Context().Done(): // the client went: nothing to answer
			return true
		}
		switch {
		case x.RPCMethod == "tools/call" && discover != "":
			x.Reply(x.Result(`{"content":[{"type":"text","text":"ok"}],"resultType":"complete"}`))
		case x.RPCMethod == "tools/call":
			x.Reply(x.Result(`{"content":[{"type":"text","text":"ok"}]}`))
		case discover == "":
			return false
		case x.RPCMethod == "server/discover":
			x.Reply(x.Result(discover))
		default:
			x.Reply(x.Error(-32601, "Method not found"))
		}
		return true
	}})
	return []string{"--url", srv.URL}
}

// slowHTTP serves h on 127.0.0.1, holding every request until d after now,
// as a server still starting behind its port would.
func slowHTTP(t *testing.T, h http.Handler, d time.Duration) string {
	ready := time.Now().Add(d)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(time.Until(ready)):
		case <-r.Context().Done():
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// withoutServerInfo is a result printed by mcpv without the serverInfo a
// server of the 2026-07-28 era may put in its _meta (and _meta, when that
// was all it held), written back as mcpv printed it.
func withoutServerInfo(t *testing.T, out string) string {
	t.Helper()
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("not a result: %q", out)
	}
	if meta, ok := res["_meta"].(map[string]any); ok {
		delete(meta, "io.modelcontextprotocol/serverInfo")
		if len(meta) == 0 {
			delete(res, "_meta")
		}
	}
	b, _ := json.Marshal(res)
	return string(b)
}
