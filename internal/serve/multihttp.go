package serve

// A gateway over HTTP: the endpoint (every member together, through the
// front) at its path, /mcp unless Path says otherwise, and each member
// alone at <endpoint>/NAME, served by the member's own Server exactly as
// a one-upstream serve serves it (with SSE, its legacy transport at
// <endpoint>/NAME/sse and <endpoint>/NAME/message). Each path is an
// HTTPHandler of its own, with the same origins, hosts, clients and
// bounds; a request is routed by its path: the endpoint's own paths
// first (its legacy paths, /healthz, and whatever the endpoint serves
// beside itself), then the members'. A member a client's token does not
// see is not found (404), as a path nothing serves.

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// GatewayHandler serves a gateway over HTTP.
type GatewayHandler struct {
	gw *Gateway
	// Endpoint serves the members together; Members each alone, by
	// name.
	Endpoint *HTTPHandler
	Members  map[string]*HTTPHandler
}

// HTTPHandler serves the gateway at path (DefaultPath when ""): clients
// are the bearer tokens and their views (nil takes none: only for
// loopback with no token), anyHost as Server.HTTPHandler's, and set
// shapes each path's handler alike (origins, SSE, bounds).
func (g *Gateway) HTTPHandler(clients *Clients, anyHost bool, path string, set func(*HTTPHandler)) *GatewayHandler {
	if path == "" {
		path = DefaultPath
	}
	build := func(srv *Server, p string) *HTTPHandler {
		h := srv.HTTPHandler("", anyHost)
		h.Path, h.clients = p, clients
		if set != nil {
			set(h)
		}
		return h
	}
	gh := &GatewayHandler{gw: g, Endpoint: build(g.front, path), Members: map[string]*HTTPHandler{}}
	for _, m := range g.Members {
		h := build(m.Server, strings.TrimSuffix(path, "/")+"/"+m.Name)
		h.legacy = &[2]string{h.Path + "/sse", h.Path + "/message"}
		// The endpoint's card is the gateway's; a member's name and
		// what it says of itself are for the tokens that see it.
		h.NoCard = true
		h.admit = func(v *View) bool { return v.sees(m) }
		gh.Members[m.Name] = h
	}
	return gh
}

func (gh *GatewayHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := gh.route(r.URL.Path); h != nil {
		h.ServeHTTP(w, r)
		return
	}
	http.NotFound(w, r)
}

// route is the handler of a path: the endpoint's, else the member's
// whose path it is under; nil for none.
func (gh *GatewayHandler) route(path string) *HTTPHandler {
	if gh.Endpoint.route(path) != notServed {
		return gh.Endpoint
	}
	rest, ok := strings.CutPrefix(path, strings.TrimSuffix(gh.Endpoint.path(), "/")+"/")
	if !ok {
		return nil
	}
	name, _, _ := strings.Cut(rest, "/")
	if h := gh.Members[name]; h != nil && h.route(path) != notServed {
		return h
	}
	return nil
}

// Settle waits, within a bound, for the requests of every path to be
// answered.
func (gh *GatewayHandler) Settle() {
	var wg sync.WaitGroup
	wg.Go(gh.Endpoint.Settle) // parallel close or settle
	for _, h := range gh.Members {
		wg.Go(h.Settle) // parallel close or settle
	}
	wg.Wait()
}

// Close ends every path's sessions.
func (gh *GatewayHandler) Close() {
	var wg sync.WaitGroup
	wg.Go(gh.Endpoint.Close) // parallel close or settle
	for _, h := range gh.Members {
		wg.Go(h.Close) // parallel close or settle
	}
	wg.Wait()
}

// memberHealth is one member in /healthz.
type memberHealth struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Since string `json:"since,omitempty"`
}

// gatewayHealth answers a probe of a gateway: 200 while the endpoint can
// serve (some member is not down), with status "ok", or "degraded" when
// a member is down; 503 ("unavailable") when every member is, or serving
// ends. The body names the members and their states (idle: not started
// yet; starting; up; down; isolated: each client opens its own) to a
// client whose token the endpoint takes, those its view sees; to a
// probe without one, how many are in each state. No error text: a
// server's words may hold anything, and its down state's reason is on
// serve's log.
func (h *HTTPHandler) gatewayHealth(w http.ResponseWriter, r *http.Request) {
	g := h.srv.gw
	who, known := h.authorize(r)
	counts := map[string]int{}
	var members []memberHealth
	up := 0
	for _, m := range g.Members {
		st, since := "isolated", time.Time{}
		if m.life != nil {
			var s lifeState
			s, since = m.life.status()
			st = s.String()
		}
		counts[st]++
		if st != "down" {
			up++
		}
		if known && who.sees(m) {
			mh := memberHealth{Name: m.Name, State: st}
			if !since.IsZero() && st != "idle" {
				mh.Since = since.UTC().Format(time.RFC3339)
			}
			members = append(members, mh)
		}
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	status, word := http.StatusOK, "ok"
	switch {
	case closed || up == 0:
		status, word = http.StatusServiceUnavailable, "unavailable"
	case counts["down"] > 0:
		word = "degraded"
	}
	body := map[string]any{"status": word}
	if known {
		body["servers"] = members
	} else {
		body["servers"] = counts
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method == http.MethodGet {
		b, _ := json.Marshal(body)
		io.WriteString(w, string(b)+"\n")
	}
}
