package apphost

// The two servers: the host page's (its page, its script, its API) and
// the sandbox proxy's. Each answers only requests for its own host name
// and port (a page whose name was made to point at 127.0.0.1, DNS
// rebinding, gets 403), and each page is sent with a policy: the host
// page may run its own script alone and talk to its own origin alone; the
// proxy, and the app inside it, get the app's policy, and may be framed
// by the host page alone.

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/apps"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

func secureHeaders(w http.ResponseWriter, policy string) {
	w.Header().Set("Content-Security-Policy", policy)
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Cross-Origin-Opener-Policy", "same-origin")
}

func (h *Host) serveHost(w http.ResponseWriter, r *http.Request) {
	if r.Host != strings.TrimPrefix(h.hostOrigin, "http://") {
		http.Error(w, "host not allowed", http.StatusForbidden)
		return
	}
	switch {
	case r.URL.Path == "/" && r.Method == http.MethodGet:
		secureHeaders(w, "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; "+
			"frame-src "+h.proxyOrigin+"; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, hostPage)
	case r.URL.Path == "/host.js" && r.Method == http.MethodGet:
		secureHeaders(w, "default-src 'none'")
		w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
		io.WriteString(w, hostScript)
	case strings.HasPrefix(r.URL.Path, "/api/"):
		if !h.admitted(w, r) {
			return
		}
		switch {
		case r.URL.Path == "/api/app" && r.Method == http.MethodGet:
			h.removeOpener()
			h.serveApp(w)
		case r.URL.Path == "/api/events" && r.Method == http.MethodGet:
			h.serveEvents(w, r)
		case r.URL.Path == "/api/rpc" && r.Method == http.MethodPost:
			h.serveRPC(w, r)
		default:
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	default:
		http.NotFound(w, r)
	}
}

// admitted says whether a request may use the API: of the host page's own
// origin (a cross-origin or null Origin is refused, and so is a request a
// browser says another site made), with the token.
func (h *Host) admitted(w http.ResponseWriter, r *http.Request) bool {
	o, site := r.Header.Get("Origin"), r.Header.Get("Sec-Fetch-Site")
	if o != "" && o != h.hostOrigin || site != "" && site != "same-origin" {
		http.Error(w, "origin not allowed", http.StatusForbidden)
		return false
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte("Bearer "+h.token)) != 1 {
		http.Error(w, "the page's token is required", http.StatusUnauthorized)
		return false
	}
	return true
}

func (h *Host) serveProxy(w http.ResponseWriter, r *http.Request) {
	if r.Host != strings.TrimPrefix(h.proxyOrigin, "http://") {
		http.Error(w, "host not allowed", http.StatusForbidden)
		return
	}
	if r.URL.Path != "/proxy/"+h.proxyID || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	secureHeaders(w, h.App.Meta.CSP.Policy()+"; frame-ancestors "+h.hostOrigin)
	w.Header().Del("Cross-Origin-Opener-Policy")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	io.WriteString(w, strings.Replace(proxyPage, "HOST_ORIGIN", string(rawjson.Marshal(h.hostOrigin)), 1)) // the proxy page, told the host's origin
}

// serveApp answers what the page needs to render the app.
func (h *Host) serveApp(w http.ResponseWriter) {
	h.mu.Lock()
	if !h.pageCame && !h.ended {
		h.late = time.AfterFunc(h.HandshakeWait, h.handshakeLate) // the handshake's bound: stopped as Run returns
	}
	h.pageCame = true
	h.mu.Unlock()
	a := h.App
	args := a.Arguments
	if args == nil {
		args = json.RawMessage(`{}`)
	}
	caps := map[string]any{"logging": map[string]any{}, "message": map[string]any{"text": map[string]any{}},
		"updateModelContext": map[string]any{"text": map[string]any{}, "structuredContent": map[string]any{}},
		"sandbox":            map[string]any{"permissions": grantedObject(a.Meta.Permissions, a.Granted), "csp": a.Meta.CSP}}
	if a.ServerTools {
		caps["serverTools"] = map[string]any{}
	}
	if a.ServerResources {
		caps["serverResources"] = map[string]any{}
	}
	info := h.Info
	if info.Name == "" {
		info = mcp.Implementation{Name: "mcpv", Version: "dev"}
	}
	body := map[string]any{
		"proxyURL": h.proxyOrigin + "/proxy/" + h.proxyID, "proxyOrigin": h.proxyOrigin,
		"tool": a.Tool, "resourceUri": a.ResourceURI, "arguments": args, "html": guarded(a.HTML),
		"csp": a.Meta.CSP, "permissions": grantedObject(a.Meta.Permissions, a.Granted),
		"allow": apps.Allow(a.Meta.Permissions, a.Granted), "prefersBorder": a.Meta.PrefersBorder,
		"protocolVersion": apps.Spec, "hostInfo": info, "hostCapabilities": caps,
		"maxMessage": h.MaxMessage, "maxInFlight": h.MaxInFlight, "maxHeight": maxHeight,
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(body)
}

// grantedObject is the permissions granted, as the extension writes them
// ({"camera": {}}).
func grantedObject(asked, granted []string) map[string]any {
	out := map[string]any{}
	for _, p := range apps.Permissions {
		if slices.Contains(asked, p.Name) && slices.Contains(granted, p.Name) {
			out[p.Name] = map[string]any{}
		}
	}
	return out
}

// serveEvents streams what the page is to tell the app, as NDJSON: the
// tool's result once the call has ended, and the end of the host. The
// page reads it as long as it is open: its end is how the host learns
// the page went.
func (h *Host) serveEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "no streaming", http.StatusInternalServerError)
		return
	}
	h.mu.Lock()
	h.streams++
	h.everConnected = true
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		h.streams--
		last := h.streams == 0
		h.mu.Unlock()
		if last {
			lazy.Wake(h.gone)
		}
	}()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	flusher.Flush()
	sentResult, sentLate := false, false
	for {
		h.mu.Lock()
		wake, teardown, late := h.wake, h.teardown, h.lateNote
		h.mu.Unlock()
		if late != "" && !sentLate {
			sentLate = true
			if writeLine(w, map[string]any{"type": "handshake-late", "text": late}) != nil {
				return
			}
			flusher.Flush()
		}
		select {
		case <-h.callDone:
			if !sentResult {
				sentResult = true
				if err := h.writeResult(w); err != nil {
					return
				}
				flusher.Flush()
			}
		default:
		}
		if teardown != "" {
			writeLine(w, map[string]any{"type": "teardown", "reason": teardown})
			flusher.Flush()
			<-r.Context().Done() // the page ends the stream once the app is torn down
			return
		}
		select {
		case <-wake:
		case <-r.Context().Done():
			return
		}
	}
}

// writeResult writes the call's outcome: its result, or its failure as a
// result with isError, which is what a tool's failure is to an app; a
// call cancelled is the tool-cancelled notification.
func (h *Host) writeResult(w io.Writer) error {
	h.mu.Lock()
	res, err := h.result, h.callErr
	h.mu.Unlock()
	if err != nil {
		if !errors.As(err, new(*mcp.CallError)) {
			h.Event("host/tool-cancelled", rawjson.MustMarshal(map[string]string{"reason": err.Error()}))
			return writeLine(w, map[string]any{"type": "tool-cancelled", "reason": err.Error()})
		}
		res = rawjson.MustMarshal(map[string]any{"content": []map[string]string{{"type": "text", "text": err.Error()}}, "isError": true})
	}
	return writeLine(w, map[string]any{"type": "tool-result", "result": res})
}

// writeLine writes v as one line of JSON, in one write.
func writeLine(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

// answerInFull writes an empty result whole, for a message after which
// Run is told to end: Run closes the server, which would cut an answer
// still being written off.
func answerInFull(w http.ResponseWriter) {
	const done = `{"result":{}}` + "\n"
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(done)))
	io.WriteString(w, done)
	http.NewResponseController(w).Flush()
}

// rpcMessage is what the page posts: one message of the app (a request
// when ID is set), or the host page's own (host/...).
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// pageMethods are the host page's own messages, and the app's
// notifications and requests the page answers itself, which it passes on
// to be recorded.
var pageMethods = map[string]bool{
	"ui/initialize": true, "ui/notifications/initialized": true, "ui/notifications/size-changed": true,
	"ui/request-display-mode": true, "notifications/message": true,
	"host/refused": true, "host/torn-down": true, "host/no-trusted-types": true,
}

func (h *Host) serveRPC(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		http.Error(w, "want application/json", http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, int64(h.MaxMessage)+4096))
	if err != nil {
		http.Error(w, "message too large", http.StatusRequestEntityTooLarge)
		return
	}
	var m rpcMessage
	if json.Unmarshal(body, &m) != nil || m.Method == "" {
		http.Error(w, "not a message", http.StatusBadRequest)
		return
	}
	if string(m.Params) == "null" {
		m.Params = nil
	}
	reply := func(v any) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(v)
	}
	request := m.ID != nil && string(m.ID) != "null"
	h.heard(m.Method)
	switch {
	case m.Method == "host/torn-down":
		h.Event(m.Method, m.Params)
		answerInFull(w)
		h.tornDownOnce.Do(func() { close(h.tornDown) })
	case m.Method == "host/no-trusted-types":
		h.Event(m.Method, m.Params)
		answerInFull(w)
		lazy.Wake(h.unguarded)
	case m.Method == "ui/notifications/request-teardown":
		h.Event(m.Method, m.Params)
		answerInFull(w)
		select {
		case h.requestTeardown <- "the app asked to be torn down":
		default:
		}
	case pageMethods[m.Method] || !request:
		h.Event(m.Method, m.Params)
		reply(map[string]any{"result": map[string]any{}})
	default:
		res, rerr := h.Request(r.Context(), m.Method, m.Params)
		if rerr != nil {
			reply(map[string]any{"error": rerr})
			return
		}
		reply(map[string]any{"result": res})
	}
}
