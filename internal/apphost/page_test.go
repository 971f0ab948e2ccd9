package apphost

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// pageHarness runs the host page's script, as the host serves it, in
// Node with as much of a browser's window as it uses: the page's token
// in its address, its elements, its fetch to the host; the window has
// Trusted Types when its argument says so. It prints what the page
// showed (its status, and the frame's address) once the page has told
// the host something (no Trusted Types) or set its frame's address.
const pageHarness = `
const [base, token, tt] = process.argv.slice(1);
const els = {};
const classes = () => ({ add() {}, toggle() {}, contains() { return false; } });
const el = (id) => els[id] ??= { textContent: "", style: {}, classList: classes(), setAttribute() {}, contentWindow: { postMessage() {} }, src: "" };
globalThis.window = { addEventListener() {}, matchMedia: null };
if (tt === "yes") window.trustedTypes = {};
globalThis.location = { hash: "#" + token, pathname: "/" };
globalThis.history = { replaceState() {} };
const store = {};
globalThis.sessionStorage = { setItem(k, v) { store[k] = v; }, getItem(k) { return store[k]; } };
globalThis.document = { getElementById: el, body: { classList: classes() } };
const told = [];
const show = () => { console.log(JSON.stringify({ status: el("status").textContent, src: el("frame").src, told })); process.exit(0); };
const realFetch = fetch;
globalThis.fetch = async (url, opts) => {
  if (url !== "/api/rpc") return realFetch(base + url, opts);
  told.push(JSON.parse(opts.body).method);
  try {
    return await realFetch(base + url, opts);
  } catch (e) {
    told.push("unanswered: " + e.message);
    throw e;
  } finally {
    show();
  }
};
setInterval(() => { if (el("frame").src) show(); }, 10);
realFetch(base + "/host.js").then((r) => r.text()).then((src) => (0, eval)(src));
`

// runPage runs the host page's script against s, the window with Trusted
// Types or not, and returns what it showed.
func runPage(t *testing.T, s *started, trustedTypes bool) (status, src string, told []string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node to run the host page's script in")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	tt := map[bool]string{true: "yes", false: "no"}[trustedTypes]
	out, err := exec.CommandContext(ctx, node, "-e", pageHarness, s.base, s.token, tt).Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got struct {
		Status, Src string
		Told        []string
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("the page's report %q: %v", out, err)
	}
	return got.Status, got.Src, got.Told
}

// TestPageWithoutTrustedTypes: in a browser without Trusted Types, which
// keep the app's frame from WebRTC, the host page renders no app (it
// never asks for it, and its frame gets no address), says why on the
// page, and tells mcpv, whose Run ends with ErrNoTrustedTypes; in one
// with them, the page renders the app as ever.
func TestPageWithoutTrustedTypes(t *testing.T) {
	s := start(t, &Host{App: testApp()})
	status, src, told := runPage(t, s, false)
	if src != "" || !strings.Contains(status, "no Trusted Types") || strings.Join(told, " ") != "host/no-trusted-types" {
		t.Errorf("without Trusted Types the page showed %q, framed %q, told %v", status, src, told)
	}
	if err := s.ended(t, ""); !errors.Is(err, ErrNoTrustedTypes) {
		t.Errorf("Run: %v, want ErrNoTrustedTypes", err)
	}
	s.mu.Lock()
	if got := strings.Join(s.records, " "); !strings.HasPrefix(got, "host/no-trusted-types") {
		t.Errorf("records: %s", got)
	}
	s.mu.Unlock()
	s.h.mu.Lock()
	came := s.h.pageCame
	s.h.mu.Unlock()
	if came {
		t.Error("the page asked for the app")
	}

	s = start(t, &Host{App: testApp()})
	if _, src, _ := runPage(t, s, true); !strings.Contains(src, "/proxy/") {
		t.Errorf("with Trusted Types the page framed %q, want the proxy", src)
	}
}
