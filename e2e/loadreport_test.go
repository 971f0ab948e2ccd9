//go:build unix && e2e

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// TestLoadReportInABrowser: the page of mcpv load --report, opened by a
// real browser (headless Chromium, MCPV_BROWSER; scripts/browser.sh runs
// it) from a file, with no network, draws its charts from the run's data:
// a point of the latency chart for each second that had successes, an
// error bar for each second that had errors, the histogram's bars, the
// table of operations. A server's error message that tries to end the
// page's script (</script><script>...) is shown as text, and runs
// nothing.
func TestLoadReportInABrowser(t *testing.T) {
	browser := os.Getenv("MCPV_BROWSER")
	if browser == "" {
		t.Skip("MCPV_BROWSER names no Chromium: run scripts/browser.sh")
	}
	const hostile = `</script><script>document.body.dataset.pwned="yes"</script><img src=x onerror="document.body.dataset.pwned='img'">`
	var calls atomic.Int64
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Latency: mcptest.Latency{Delay: 2 * time.Millisecond},
		Post: func(x *mcptest.Exchange) bool {
			if x.RPCMethod != "tools/call" {
				return false
			}
			if calls.Add(1)%10 != 0 {
				return false
			}
			x.Reply(x.Error(-32000, hostile))
			return true
		}})
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	out, err := exec.Command(mcpvBin, "load", "call", "x", "--rate", "100", "-c", "4", "-d", "3s", "--report", page,
		"--threshold", "p99<1h", "--format", "json", "-u", srv.URL).Output()
	if err != nil {
		t.Fatalf("mcpv load: %v\n%s", err, out)
	}
	var res struct {
		Timeline []struct{ OK, Errors int64 } `json:"timeline"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	withOK, withErrors := 0, 0
	for _, p := range res.Timeline {
		if p.OK > 0 {
			withOK++
		}
		if p.Errors > 0 {
			withErrors++
		}
	}
	if withOK < 3 || withErrors < 3 {
		t.Fatalf("the run's timeline %+v; want three seconds and more, each with calls and errors", res.Timeline)
	}
	dom := dumpDOM(t, browser, page)
	attr := func(id, name string) string {
		m := regexp.MustCompile(`<svg[^>]*id="` + id + `"[^>]*>`).FindString(dom)
		v := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(m)
		if v == nil {
			return ""
		}
		return v[1]
	}
	switch {
	case !strings.Contains(dom, `data-rendered="yes"`):
		t.Fatalf("the page's script did not finish:\n%.3000s", dom)
	case strings.Contains(dom, "data-pwned"):
		t.Errorf("the server's message ran as markup or script in the page")
	case strings.Contains(dom, "data-errors"):
		t.Errorf("the page's script failed: %s", regexp.MustCompile(`data-errors="[^"]*"`).FindString(dom))
	}
	if got := attr("latency", "data-points"); got != strconv.Itoa(withOK) {
		t.Errorf("the latency chart drew %s points; want %d, the seconds with calls", got, withOK)
	}
	if got := attr("rate", "data-error-bars"); got != strconv.Itoa(withErrors) {
		t.Errorf("the throughput chart drew %s error bars; want %d", got, withErrors)
	}
	if n, _ := strconv.Atoi(attr("histogram", "data-points")); n < 1 {
		t.Errorf("the histogram drew %d bars", n)
	}
	latency := regexp.MustCompile(`(?s)<svg[^>]*id="latency".*?</svg>`).FindString(dom)
	if strings.Count(latency, "<polygon") != 3 || !strings.Contains(latency, "<polyline") {
		t.Errorf("the latency chart has no percentile bands:\n%.2000s", latency)
	}
	for _, want := range []string{"<td>operation</td>", "<td>JSON-RPC -32000</td>", "&lt;/script&gt;&lt;script&gt;", "<td>p99&lt;1h</td>"} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
}

// dumpDOM opens page in headless Chromium and returns its DOM once its
// scripts have run; the browser, in a process group of its own, is ended
// within a minute (a bound on a hang, not a timing).
func dumpDOM(t *testing.T, browser, page string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
		"--no-proxy-server", "--user-data-dir="+t.TempDir(), "--dump-dom", "file://"+page)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, stderr.String())
	}
	return string(out)
}
