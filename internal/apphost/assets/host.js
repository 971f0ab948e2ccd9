// The host side of the MCP Apps bridge (io.modelcontextprotocol/ui,
// specification 2026-01-26), as mcpv app --open serves it: this page, of
// mcpv's own origin, frames a sandbox proxy of another origin, which frames
// the app's HTML (srcdoc, sandbox="allow-scripts": an origin of its own,
// confined by the policy the app declared). Messages reach this page only
// from the proxy's window and origin; each is bounded in size and in how
// many are in flight, and every request the app makes goes to mcpv, which
// decides (the tool's visibility, the guard, the user's consent) and
// relays it. The token that lets this page talk to mcpv never leaves it:
// not in the URL (the fragment is dropped at once), not in a message to
// the frame.
"use strict";
(() => {
  const status = (text) => { document.getElementById("status").textContent = text; };
  let token = location.hash.slice(1);
  if (token) {
    sessionStorage.setItem("mcpv-token", token);
    history.replaceState(null, "", location.pathname);
  } else {
    token = sessionStorage.getItem("mcpv-token") || "";
  }
  const headers = { "Authorization": "Bearer " + token };
  const frame = document.getElementById("frame");
  let app = null;          // what mcpv says of the app (GET /api/app)
  let initialized = false; // the view sent ui/notifications/initialized
  let queued = [];         // host → view messages held until then
  let inFlight = 0;
  let nextId = 1;
  const waiting = new Map(); // host → view requests, by id
  let lastSize = "";

  async function api(method, params, id) {
    const r = await fetch("/api/rpc", {
      method: "POST", headers: { ...headers, "Content-Type": "application/json" },
      body: JSON.stringify({ id: id === undefined ? null : id, method, params: params === undefined ? null : params }),
    });
    if (r.status !== 200) {
      return { error: { code: -32603, message: "mcpv answered " + r.status } };
    }
    return r.json();
  }

  // The browser opens six connections at most to mcpv's origin (HTTP/1.1):
  // the event stream holds one, and the page's own messages (a refusal,
  // the end of the app) must find one however long the app's requests
  // take. So the app's requests go to mcpv maxWire at a time; the others
  // in flight wait here, a slot passed on as one ends.
  const maxWire = 4;
  let onWire = 0;
  const wireQueue = [];
  function relay(method, params, id) {
    const go = () => api(method, params, id).finally(() => {
      const next = wireQueue.shift();
      if (next) next(); else onWire--;
    });
    if (onWire < maxWire) { onWire++; return go(); }
    return new Promise((resolve) => wireQueue.push(resolve)).then(go);
  }

  // What the page tells mcpv without waiting on the answer goes one at a
  // time, in the order it happened: the app's last notifications reach
  // mcpv before its request to be torn down does, which ends the run.
  let told = Promise.resolve();
  function tell(method, params) {
    told = told.then(() => api(method, params).catch(() => {}));
    return told;
  }

  function toProxy(message) {
    frame.contentWindow.postMessage(message, app.proxyOrigin);
  }
  function toView(message) {
    if (!initialized) { queued.push(message); return; }
    toProxy(message);
  }
  function answer(id, body) {
    // Answers go out whatever the state: the view waits for them.
    toProxy({ jsonrpc: "2.0", id, ...body });
  }
  function request(method, params, timeoutMs) {
    const id = "host-" + (nextId++);
    return new Promise((resolve) => {
      const timer = setTimeout(() => { waiting.delete(id); resolve({ error: { code: -32001, message: "no answer" } }); }, timeoutMs);
      waiting.set(id, (m) => { clearTimeout(timer); resolve(m); });
      toView({ jsonrpc: "2.0", id, method, params });
    });
  }

  function hostContext() {
    const dark = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
    return {
      toolInfo: { tool: app.tool },
      theme: dark ? "dark" : "light",
      displayMode: document.body.classList.contains("fullscreen") ? "fullscreen" : "inline",
      availableDisplayModes: ["inline", "fullscreen"],
      containerDimensions: { maxHeight: app.maxHeight },
      locale: navigator.language,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      userAgent: "mcpv",
      platform: "web",
      deviceCapabilities: { touch: navigator.maxTouchPoints > 0, hover: window.matchMedia ? window.matchMedia("(hover: hover)").matches : true },
    };
  }

  // A request of the view: answered here when it is about this page,
  // else by mcpv.
  async function onRequest(m) {
    if (inFlight >= app.maxInFlight) {
      answer(m.id, { error: { code: -32000, message: "too many requests in flight" } });
      tell("host/refused", { method: m.method, reason: "too many requests in flight" });
      return;
    }
    inFlight++;
    try {
      switch (m.method) {
        case "ui/initialize": {
          tell("ui/initialize", m.params || {});
          answer(m.id, { result: { protocolVersion: app.protocolVersion, hostCapabilities: app.hostCapabilities, hostInfo: app.hostInfo, hostContext: hostContext() } });
          return;
        }
        case "ping":
          answer(m.id, { result: {} });
          return;
        case "ui/request-display-mode": {
          const mode = m.params && m.params.mode;
          if (mode === "fullscreen" || mode === "inline") {
            document.body.classList.toggle("fullscreen", mode === "fullscreen");
          }
          const now = document.body.classList.contains("fullscreen") ? "fullscreen" : "inline";
          tell("ui/request-display-mode", { requested: mode, mode: now });
          answer(m.id, { result: { mode: now } });
          toView({ jsonrpc: "2.0", method: "ui/notifications/host-context-changed", params: { displayMode: now } });
          return;
        }
      }
      const got = await relay(m.method, m.params, m.id);
      if (got.error) answer(m.id, { error: got.error });
      else answer(m.id, { result: got.result });
    } catch (e) {
      answer(m.id, { error: { code: -32603, message: String(e) } });
    } finally {
      inFlight--;
    }
  }

  function onNotification(m) {
    switch (m.method) {
      case "ui/notifications/initialized":
        if (initialized) return;
        initialized = true;
        status("running");
        toProxy({ jsonrpc: "2.0", method: "ui/notifications/tool-input", params: { arguments: app.arguments } });
        for (const q of queued) toProxy(q);
        queued = [];
        tell(m.method, {});
        return;
      case "ui/notifications/size-changed": {
        const p = m.params || {};
        const h = Math.min(Math.max(Number(p.height) || 0, 0), app.maxHeight);
        if (h > 0 && !document.body.classList.contains("fullscreen")) frame.style.height = h + "px";
        const size = JSON.stringify([p.width, p.height]);
        if (size !== lastSize) {
          lastSize = size;
          tell(m.method, { width: p.width, height: p.height });
        }
        return;
      }
    }
    tell(m.method, m.params);
  }

  window.addEventListener("message", (e) => {
    // Only the proxy's window, of the proxy's origin: a message the app
    // sends to this window itself (window.top.postMessage), or any other
    // window's, is not the bridge's.
    if (!app || e.source !== frame.contentWindow || e.origin !== app.proxyOrigin) return;
    const m = e.data;
    let size;
    try { size = JSON.stringify(m).length; } catch (err) { size = Infinity; }
    if (!m || typeof m !== "object" || m.jsonrpc !== "2.0" || size > app.maxMessage) {
      tell("host/refused", { reason: size > app.maxMessage ? "a message of " + size + " characters, more than " + app.maxMessage : "not a JSON-RPC message" });
      if (m && typeof m === "object" && m.id !== undefined && typeof m.method === "string") {
        answer(m.id, { error: { code: -32600, message: "message refused" } });
      }
      return;
    }
    if (m.method === "ui/notifications/sandbox-proxy-ready") {
      toProxy({ jsonrpc: "2.0", method: "ui/notifications/sandbox-resource-ready",
        params: { html: app.html, sandbox: "allow-scripts", csp: app.csp, permissions: app.permissions, allow: app.allow } });
      return;
    }
    if (typeof m.method !== "string") {
      const w = waiting.get(m.id);
      if (w) { waiting.delete(m.id); w(m); }
      return;
    }
    if (m.id !== undefined && m.id !== null) onRequest(m);
    else onNotification(m);
  });

  async function teardown(reason) {
    status("ending: " + reason);
    if (initialized) await request("ui/resource-teardown", { reason }, 3000);
    await tell("host/torn-down", { reason });
    frame.remove();
    status("ended: " + reason);
  }

  // What mcpv tells this page: the tool's result, and when to end.
  async function listen() {
    for (;;) {
      let r;
      try {
        r = await fetch("/api/events", { headers });
      } catch (e) {
        status("mcpv is gone");
        return;
      }
      if (r.status !== 200) { status("mcpv answered " + r.status); return; }
      const reader = r.body.getReader();
      const decoder = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        let nl;
        while ((nl = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line) continue;
          const ev = JSON.parse(line);
          if (ev.type === "tool-result") toView({ jsonrpc: "2.0", method: "ui/notifications/tool-result", params: ev.result });
          if (ev.type === "tool-cancelled") toView({ jsonrpc: "2.0", method: "ui/notifications/tool-cancelled", params: { reason: ev.reason } });
          if (ev.type === "handshake-late" && !initialized) status(ev.text);
          if (ev.type === "teardown") { await teardown(ev.reason); return; }
        }
      }
      status("mcpv is gone");
      return;
    }
  }

  (async () => {
    // The app's frame is guarded (guard.js) by Trusted Types: without
    // them an app can make a frame of its own content whose window has
    // WebRTC whole, and reach any address. Such a browser renders no app.
    if (!window.trustedTypes) {
      status("this browser has no Trusted Types, which keep the app from reaching the network through WebRTC: mcpv does not render the app in it (open the page in one that has them, such as Chrome or Edge)");
      tell("host/no-trusted-types", {});
      return;
    }
    const r = await fetch("/api/app", { headers });
    if (r.status !== 200) { status("mcpv refused this page (" + r.status + "): open the address mcpv printed"); return; }
    app = await r.json();
    document.getElementById("tool").textContent = app.tool.name;
    document.getElementById("uri").textContent = app.resourceUri;
    if (app.prefersBorder !== false) frame.classList.add("border");
    if (app.allow) frame.setAttribute("allow", app.allow);
    frame.src = app.proxyURL;
    listen();
  })();
})();
