//go:build unix && e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// sandboxPage is an app that tries every way out of its frame that its
// policy does not govern, and the ways its policy does. WebRTC: a peer
// connection with a data channel to a STUN server (STUN_PORT, UDP), under
// each name. Windows of its own, where WebRTC would be whole: frames of
// its own content (srcdoc) written in its markup (one inside a closed
// shadow root, which no script can reach) and made by every script route
// (the property, setAttribute, an attribute node, innerHTML and the other
// HTML sinks, execCommand, XSLT, document.write); each such frame's
// script, if it runs, makes a peer connection and tells the app; and a
// blank frame, whose window's WebRTC the app reaches for itself. And the
// channels the policy governs (fetch, a beacon, a WebSocket, an
// EventSource, an image, prefetch, a worker, a form, a popup) to an HTTP
// server (HTTP_PORT). What it learned goes to the tool record, when every
// frame it made has loaded.
const sandboxPage = `<!DOCTYPE html>
<html><head></head><body>
<div id="static"><iframe srcdoc="<script>parent.postMessage({child: 'static'}, '*')</script>"></iframe></div>
<div id="closed"><template shadowrootmode="closed"><iframe srcdoc="<script>parent.postMessage({child: 'closed shadow root'}, '*')</script>"></iframe></template></div>
<script>
const STUN = "stun:127.0.0.1:STUN_PORT", WEB = "http://127.0.0.1:HTTP_PORT";
const SD = "src" + "doc"; // the frame's attribute, named at run time
let id = 0; const pending = new Map();
function req(method, params) {
  return new Promise((resolve, reject) => {
    const i = ++id; pending.set(i, {resolve, reject});
    parent.postMessage({jsonrpc: "2.0", id: i, method, params}, "*");
  });
}
const children = [];
function listen(e) {
  const m = e.data;
  if (m && m.child) { children.push(m.child + ": " + m.rtc); return; }
  if (m && !m.method && pending.has(m.id)) {
    const p = pending.get(m.id); pending.delete(m.id);
    if (m.error) p.reject(new Error(m.error.message)); else p.resolve(m.result);
    return;
  }
  if (m && m.method === "ui/notifications/tool-result") tryAll();
  if (m && m.method === "ui/resource-teardown") parent.postMessage({jsonrpc: "2.0", id: m.id, result: {}}, "*");
}
window.addEventListener("message", listen);
// What a frame of the app's own content runs: a peer connection.
const child = (name) => "<script>let rtc = typeof RTCPeerConnection; try { const p = new RTCPeerConnection({iceServers: [{urls: '" + STUN +
  "'}]}); p.createDataChannel('x'); p.createOffer().then((o) => p.setLocalDescription(o)); rtc += ', made'; } catch (e) { rtc += ', ' + e; }" +
  " parent.postMessage({child: '" + name + "', rtc}, '*')<\/script>";
const attr = (name) => child(name).replace(/&/g, "&amp;").replace(/"/g, "&quot;");
const frame = (name) => "<iframe " + SD + "=\"" + attr(name) + "\"></iframe>";
const box = () => { const d = document.createElement("div"); document.body.append(d); return d; };
async function peer(C) {
  const p = new C({iceServers: [{urls: STUN}]});
  p.createDataChannel("x");
  await p.setLocalDescription(await p.createOffer());
  await new Promise((done) => { p.onicegatheringstatechange = () => { if (p.iceGatheringState === "complete") done(); }; setTimeout(done, 10000); });
  return "gathered";
}
const frames = {
  property: () => { const f = document.createElement("iframe"); f[SD] = child("property"); box().append(f); },
  setAttribute: () => { const f = document.createElement("iframe"); f.setAttribute(SD.toUpperCase(), child("setAttribute")); box().append(f); },
  attributeNode: () => { const f = document.createElement("iframe"); const a = document.createAttribute(SD); a.value = child("attributeNode"); f.setAttributeNode(a); box().append(f); },
  attributeValue: () => { const f = document.createElement("iframe"); f.toggleAttribute(SD); f.getAttributeNode(SD).value = child("attributeValue"); box().append(f); },
  movedAttribute: () => { const d = document.createElement("div"); d.setAttribute(SD, child("movedAttribute")); const a = d.getAttributeNode(SD); d.removeAttributeNode(a); const f = document.createElement("iframe"); f.setAttributeNode(a); box().append(f); },
  innerHTML: () => { box().innerHTML = frame("innerHTML"); },
  insertAdjacentHTML: () => { box().insertAdjacentHTML("beforeend", frame("insertAdjacentHTML")); },
  outerHTML: () => { box().append(document.createElement("p")); document.body.lastChild.firstChild.outerHTML = frame("outerHTML"); },
  setHTMLUnsafe: () => { box().setHTMLUnsafe("<div><template shadowrootmode=closed>" + frame("setHTMLUnsafe") + "</template></div>"); },
  parseHTMLUnsafe: () => { box().append(document.adoptNode(Document.parseHTMLUnsafe(frame("parseHTMLUnsafe")).body.firstChild)); },
  DOMParser: () => { box().append(document.adoptNode(new DOMParser().parseFromString(frame("DOMParser"), "text/html").body.firstChild)); },
  contextualFragment: () => { box().append(document.createRange().createContextualFragment(frame("contextualFragment"))); },
  execCommand: () => { const d = box(); d.contentEditable = "true"; d.focus(); document.execCommand("insertHTML", false, frame("execCommand")); },
  XSLT: () => {
    const xsl = new DOMParser().parseFromString('<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns="http://www.w3.org/1999/xhtml">' +
      '<xsl:template match="/"><div><iframe><xsl:attribute name="{concat(\'src\', \'doc\')}">' + attr("XSLT").replace(/</g, "&lt;") +
      '</xsl:attribute></iframe></div></xsl:template></xsl:stylesheet>', "application/xml");
    const p = new XSLTProcessor(); p.importStylesheet(xsl);
    box().append(p.transformToFragment(new DOMParser().parseFromString("<x/>", "application/xml"), document));
  },
  write: () => { document.write(frame("write")); },
  policy: () => { trustedTypes.createPolicy("mine", {createHTML: (s) => s}); },
};
const channels = {
  fetch: () => fetch(WEB + "/fetch").then(() => "fetched", () => "failed"),
  beacon: () => String(navigator.sendBeacon(WEB + "/beacon", "x")),
  webSocket: () => new Promise((done) => { const w = new WebSocket(WEB.replace("http", "ws") + "/ws"); w.onerror = () => done("error"); w.onopen = () => done("open"); }),
  eventSource: () => new Promise((done) => { const s = new EventSource(WEB + "/events"); s.onerror = () => { s.close(); done("error"); }; s.onopen = () => done("open"); }),
  image: () => new Promise((done) => { const i = new Image(); i.onerror = () => done("error"); i.onload = () => done("load"); i.src = WEB + "/image"; }),
  prefetch: () => { const l = document.createElement("link"); l.rel = "prefetch"; l.href = WEB + "/prefetch"; document.head.append(l); return "added"; },
  speculation: () => { const s = document.createElement("script"); s.type = "speculationrules"; s.textContent = JSON.stringify({prefetch: [{source: "list", urls: [WEB + "/speculation"]}]}); document.head.append(s); return "added"; },
  worker: () => new Promise((done) => { const w = new Worker(URL.createObjectURL(new Blob(["fetch('" + WEB + "/worker')"], {type: "text/javascript"}))); w.onerror = () => done("error"); setTimeout(() => done("made"), 1000); }),
  form: () => { const f = document.createElement("form"); f.action = WEB + "/form"; f.method = "post"; f.target = "_blank"; document.body.append(f); f.submit(); return "submitted"; },
  popup: () => String(window.open(WEB + "/popup")),
};
async function attempt(f) { try { return String(await f()); } catch (e) { return "threw " + e.name; } }
async function tryAll() {
  const probes = {interfaces: {}, frames: {}, channels: {}};
  for (const name of ["RTCPeerConnection", "webkitRTCPeerConnection", "RTCDataChannel", "RTCIceTransport", "RTCSessionDescription", "XSLTProcessor"]) {
    probes.interfaces[name] = typeof window[name];
  }
  probes.peer = await attempt(() => peer(window.RTCPeerConnection));
  probes.webkitPeer = await attempt(() => peer(window.webkitRTCPeerConnection));
  // A frame's script runs before its frame's load event: each frame a
  // route made is waited for (a frame in a closed shadow root cannot be,
  // hence the second more).
  const seen = new Set(document.querySelectorAll("iframe")), loads = [];
  for (const [name, f] of Object.entries(frames)) {
    probes.frames[name] = await attempt(f);
    for (const f of document.querySelectorAll("iframe")) {
      if (!seen.has(f)) { seen.add(f); loads.push(new Promise((done) => { f.addEventListener("load", done); setTimeout(done, 20000); })); }
    }
  }
  // document.write opened the document again, which ended its listeners.
  window.addEventListener("message", listen);
  probes.blank = await attempt(() => { const f = document.createElement("iframe"); box().append(f); return typeof f.contentWindow.RTCPeerConnection + " " + typeof window[window.length - 1].RTCPeerConnection; });
  for (const [name, f] of Object.entries(channels)) probes.channels[name] = await attempt(f);
  await Promise.all(loads);
  await new Promise((done) => setTimeout(done, 1000));
  probes.children = children.sort();
  await req("tools/call", {name: "record", arguments: {probes}});
  parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/request-teardown", params: {}}, "*");
}
(async () => {
  await req("ui/initialize", {appCapabilities: {}, appInfo: {name: "sandbox", version: "1"}, protocolVersion: "2026-01-26"});
  parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/initialized", params: {}}, "*");
})();
</script></body></html>`

// sandboxSpec is the fixture server of AppSpec("valid") with page as its
// app.
func sandboxSpec(t *testing.T, page string) string {
	t.Helper()
	var spec map[string]any
	if err := json.Unmarshal([]byte(mcptest.AppSpec("valid")), &spec); err != nil {
		t.Fatal(err)
	}
	read := spec["readResults"].(map[string]any)["ui://fixture/show.html"].(map[string]any)
	read["contents"].([]any)[0].(map[string]any)["text"] = page
	b, _ := json.Marshal(spec)
	path := filepath.Join(t.TempDir(), "app.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestAppSandboxCloses: an app under mcpv app --open, in a real browser
// (headless Chromium, MCPV_BROWSER), finds no WebRTC in its window (a
// STUN server on 127.0.0.1 receives no packet), can make no frame of its
// own content run a script (where WebRTC would be whole), by its markup or
// by any script route; and reaches nothing by the channels its policy
// governs (an HTTP server on 127.0.0.1 receives no request).
func TestAppSandboxCloses(t *testing.T) {
	browser := os.Getenv("MCPV_BROWSER")
	if browser == "" {
		t.Skip("MCPV_BROWSER names no Chromium: run scripts/browser.sh")
	}
	testkit.SkipLong(t, "waits up to 20 s for each frame the app made to load")
	stun, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var packets atomic.Int64
	read := make(chan struct{})
	go func() { // ends when the listener is closed, below
		defer close(read)
		b := make([]byte, 1500)
		for {
			if _, _, err := stun.ReadFrom(b); err != nil {
				return
			}
			packets.Add(1)
		}
	}()
	var mu sync.Mutex
	var asked []string
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked = append(asked, r.Method+" "+r.URL.Path)
		mu.Unlock()
	}))
	defer web.Close()
	_, httpPort, _ := net.SplitHostPort(web.Listener.Addr().String())
	page := strings.NewReplacer("STUN_PORT", fmt.Sprint(stun.LocalAddr().(*net.UDPAddr).Port), "HTTP_PORT", httpPort).Replace(sandboxPage)

	r := startApp(t, browser, sandboxSpec(t, page), "show", "--open")
	var record map[string]any
	for record == nil {
		m := r.next(t, "tools/call")
		if p, _ := m["params"].(map[string]any); p["name"] == "record" {
			record = m
		}
	}
	r.next(t, "host/torn-down")
	if err := r.cmd.Wait(); err != nil {
		t.Errorf("mcpv app --open: %v\n%s", err, r.stderr)
	}
	stun.Close()
	<-read

	var got struct {
		Params struct {
			Arguments struct {
				Probes struct {
					Interfaces       map[string]string
					Peer, WebkitPeer string
					Blank            string
					Frames, Channels map[string]string
					Children         []string
				}
			}
		}
	}
	b, _ := json.Marshal(record)
	json.Unmarshal(b, &got)
	p := got.Params.Arguments.Probes
	if len(p.Interfaces) == 0 {
		t.Fatalf("the app's record: %s", b)
	}
	for name, kind := range p.Interfaces {
		if kind != "undefined" {
			t.Errorf("the app's window has %s (%s)", name, kind)
		}
	}
	if p.Peer != "threw TypeError" || p.WebkitPeer != "threw TypeError" {
		t.Errorf("a peer connection: %q, %q", p.Peer, p.WebkitPeer)
	}
	if strings.Contains(p.Blank, "function") {
		t.Errorf("a blank frame of the app's gives its window's WebRTC: %q", p.Blank)
	}
	if n := packets.Load(); n != 0 {
		t.Errorf("the STUN server received %d packets", n)
	}
	if len(p.Children) != 0 {
		t.Errorf("frames of the app's own content ran scripts: %q", p.Children)
	}
	// The routes refused outright (XSLT finds no XSLTProcessor); the
	// others made a frame without a srcdoc (the HTML sinks' "srcdoc" is
	// "src_doc"), or none (document.write's markup is dropped).
	refused := map[string]string{"property": "threw TypeError", "setAttribute": "threw TypeError", "attributeNode": "threw TypeError",
		"attributeValue": "threw TypeError", "movedAttribute": "threw TypeError", "policy": "threw TypeError",
		"XSLT": "threw ReferenceError"}
	for name, want := range refused {
		if p.Frames[name] != want {
			t.Errorf("%s: %q, want %q", name, p.Frames[name], want)
		}
	}
	mu.Lock()
	sort.Strings(asked)
	if len(asked) != 0 {
		t.Errorf("the HTTP server was reached: %q (the app's channels: %v)", asked, p.Channels)
	}
	mu.Unlock()
}
