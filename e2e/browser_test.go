//go:build unix && e2e

package e2e

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// browserPage is a web app that uses mcpv serve --http with fetch: it
// initializes a session (reading Mcp-Session-Id, which serve must let it
// read), lists the tools and calls one, tries to read /healthz, does the
// same over the legacy HTTP+SSE transport (an EventSource, and fetch to
// the URL its endpoint event names), and reports what it got, or the
// error its browser gave it, to the origin it came from.
const browserPage = `<!doctype html>
<title>mcp page</title>
<script>
const q = new URLSearchParams(location.search);
const endpoint = q.get("mcp"), token = q.get("token"), sse = q.get("sse");
async function rpc(message, sid) {
  const headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
    "Authorization": "Bearer " + token};
  if (sid) { headers["Mcp-Session-Id"] = sid; headers["MCP-Protocol-Version"] = "2025-11-25"; }
  const r = await fetch(endpoint, {method: "POST", headers, body: JSON.stringify(message)});
  if (!("id" in message)) return {status: r.status};
  const text = await r.text();
  let answer = null;
  if ((r.headers.get("Content-Type") || "").includes("text/event-stream")) {
    for (const line of text.split("\n")) {
      if (!line.startsWith("data:")) continue;
      const m = JSON.parse(line.slice(5));
      if (m.id === message.id) answer = m;
    }
  } else {
    answer = JSON.parse(text);
  }
  return {status: r.status, sid: r.headers.get("Mcp-Session-Id"), answer};
}
function legacy() {
  return new Promise((resolve, reject) => {
    const es = new EventSource(sse), waiting = new Map();
    const fail = (e) => { es.close(); reject(e); };
    setTimeout(() => fail(new Error("no answer within 20 s")), 20000);
    es.addEventListener("message", (e) => {
      const m = JSON.parse(e.data), answered = waiting.get(m.id);
      if (answered) { waiting.delete(m.id); answered(m); }
    });
    es.onerror = () => fail(new Error("EventSource failed"));
    es.addEventListener("endpoint", async (e) => {
      const post = new URL(e.data, sse);
      const send = async (m) => {
        const r = await fetch(post, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(m)});
        if (r.status !== 202) throw new Error("POST answered " + r.status);
      };
      const ask = (m) => new Promise((answered, failed) => { waiting.set(m.id, answered); send(m).catch(failed); });
      try {
        await ask({jsonrpc: "2.0", id: 1, method: "initialize", params: {protocolVersion: "2024-11-05",
          capabilities: {}, clientInfo: {name: "page", version: "1"}}});
        await send({jsonrpc: "2.0", method: "notifications/initialized"});
        const list = await ask({jsonrpc: "2.0", id: 2, method: "tools/list"});
        const call = await ask({jsonrpc: "2.0", id: 3, method: "tools/call", params: {name: "echo", arguments: {message: "over SSE"}}});
        es.close();
        resolve({tools: list.result.tools.map(t => t.name), result: JSON.stringify(call.result)});
      } catch (err) { fail(err); }
    });
  });
}
async function run() {
  const report = {origin: location.origin};
  try {
    const init = await rpc({jsonrpc: "2.0", id: 1, method: "initialize", params: {protocolVersion: "2025-11-25",
      capabilities: {}, clientInfo: {name: "page", version: "1"}}});
    report.sessionId = init.sid;
    await rpc({jsonrpc: "2.0", method: "notifications/initialized"}, init.sid);
    const list = await rpc({jsonrpc: "2.0", id: 2, method: "tools/list"}, init.sid);
    report.tools = list.answer.result.tools.map(t => t.name);
    const call = await rpc({jsonrpc: "2.0", id: 3, method: "tools/call", params: {name: "echo", arguments: {message: "from the page"}}}, init.sid);
    report.echo = call.answer.result.structuredContent.message;
  } catch (e) {
    report.error = String(e);
  }
  try {
    await fetch(new URL("/healthz", endpoint));
    report.healthzRead = true;
  } catch (e) {
    report.healthzRead = false;
  }
  try {
    const got = await legacy();
    report.legacyTools = got.tools;
    report.legacyResult = got.result;
  } catch (e) {
    report.legacyError = String(e);
  }
  await fetch("/report", {method: "POST", body: JSON.stringify(report)});
}
run();
</script>
`

// pageReport is what the page reports.
type pageReport struct {
	Origin      string   `json:"origin"`
	SessionID   string   `json:"sessionId"`
	Tools       []string `json:"tools"`
	Echo        string   `json:"echo"`
	Error       string   `json:"error"`
	HealthzRead bool     `json:"healthzRead"`
	// Over the legacy transport.
	LegacyTools  []string `json:"legacyTools"`
	LegacyResult string   `json:"legacyResult"`
	LegacyError  string   `json:"legacyError"`
}

// TestBrowserPages: a real browser (headless Chromium, MCPV_BROWSER; run
// by scripts/browser.sh, which installs it) runs one page from three
// origins against mcpv serve --http. From a loopback origin, and from
// one --allow-origin names, the page initializes, lists the tools and
// calls one with fetch: serve answered the browser's CORS preflights and
// let it read Mcp-Session-Id; and the same over the legacy transport of
// serve --sse (with no token: an EventSource cannot send one). From a
// foreign origin the browser itself refuses the page its first request
// (serve answers its preflight with no CORS header), and its
// EventSource. No page, admitted or not, can read /healthz.
func TestBrowserPages(t *testing.T) {
	browser := os.Getenv("MCPV_BROWSER")
	if browser == "" {
		t.Skip("MCPV_BROWSER names no Chromium: run scripts/browser.sh")
	}
	reports := make(chan pageReport, 1)
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			io.WriteString(w, browserPage)
		case "/report":
			var rep pageReport
			if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&rep); err != nil {
				t.Errorf("the page's report: %v", err)
			}
			select {
			case reports <- rep:
			default:
				t.Errorf("a report not asked for: %+v", rep)
			}
		default:
			http.NotFound(w, r)
		}
	}))
	defer pages.Close()
	_, port, _ := net.SplitHostPort(pages.Listener.Addr().String())
	admitted := "http://app.test:" + port
	upstream := demoUpstream(t)
	_, _, endpoint, token := serving(t, "serve", "--http", "127.0.0.1:0", "-u", upstream, "--allow-origin", admitted)
	_, _, open, _ := serving(t, "serve", "--http", "127.0.0.1:0", "--http-no-token", "--sse", "-u", upstream, "--allow-origin", admitted)
	sse := strings.TrimSuffix(open, "/mcp") + "/sse"

	for _, tt := range []struct {
		origin string
		admit  bool
	}{{"http://127.0.0.1:" + port, true}, {admitted, true}, {"http://foreign.test:" + port, false}} {
		page := tt.origin + "/?" + url.Values{"mcp": {endpoint}, "token": {token}, "sse": {sse}}.Encode()
		rep := runBrowser(t, browser, page, reports)
		if rep.Origin != tt.origin {
			t.Errorf("a report from %s, want %s", rep.Origin, tt.origin)
		}
		switch {
		case tt.admit && (rep.Error != "" || len(rep.SessionID) < 32 || !slices.Contains(rep.Tools, "echo") || rep.Echo != "from the page"):
			t.Errorf("an admitted page (%s) could not use serve: %+v", tt.origin, rep)
		case !tt.admit && (rep.Error != "TypeError: Failed to fetch" || rep.Tools != nil):
			t.Errorf("a foreign page (%s) was not refused by its browser: %+v", tt.origin, rep)
		}
		switch {
		case tt.admit && (rep.LegacyError != "" || !slices.Contains(rep.LegacyTools, "echo") || !strings.Contains(rep.LegacyResult, "over SSE")):
			t.Errorf("an admitted page (%s) could not use serve --sse: %+v", tt.origin, rep)
		case !tt.admit && (rep.LegacyError != "Error: EventSource failed" || rep.LegacyTools != nil):
			t.Errorf("a foreign page (%s) was not refused its EventSource: %+v", tt.origin, rep)
		}
		if rep.HealthzRead {
			t.Errorf("a page of %s read /healthz", tt.origin)
		}
	}
}

// headless are the flags of a headless Chromium with a profile of its own
// in dir, nothing of its own on the network, and the host names of *.test
// this machine's: a page of app.test is of an origin other than
// 127.0.0.1's, served by the test.
func headless(dir string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--disable-extensions", "--disable-background-networking",
		"--disable-features=HttpsUpgrades", "--no-proxy-server", "--user-data-dir=" + dir,
		"--host-resolver-rules=MAP *.test 127.0.0.1"}
}

// runBrowser opens page in headless Chromium and returns what the page
// reports, within a minute; the browser, in a process group of its own,
// is ended then.
func runBrowser(t *testing.T, browser, page string, reports <-chan pageReport) pageReport {
	t.Helper()
	cmd := exec.Command(browser, append(headless(t.TempDir()), page)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	log, err := os.Create(t.TempDir() + "/browser.log")
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }() // ends when the browser does: below
	defer func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	}()
	select {
	case rep := <-reports:
		return rep
	case err := <-exited:
		out, _ := os.ReadFile(log.Name())
		t.Fatalf("the browser ended before the page reported: %v\n%s", err, out)
	case <-time.After(time.Minute):
		out, _ := os.ReadFile(log.Name())
		t.Fatalf("no report from the page at %s within a minute\n%s", page, out)
	}
	return pageReport{}
}
