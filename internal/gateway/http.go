package gateway

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
	"cmp"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/serve"
)

// Handler serves a gateway over HTTP.
type Handler struct {
	// Endpoint serves the members together; Members each alone, by
	// name.
	Endpoint *serve.HTTPHandler
	Members  map[string]*serve.HTTPHandler
}

// HTTPHandler serves the gateway at path (serve.DefaultPath when ""):
// clients are the bearer tokens and their views (nil takes none: only
// for loopback with no token), anyHost as serve.Server.HTTPHandler's,
// and set shapes each path's handler alike (origins, SSE, bounds).
func (g *Gateway) HTTPHandler(clients *serve.Clients, anyHost bool, path string, set func(*serve.HTTPHandler)) *Handler {
	path = cmp.Or(path, serve.DefaultPath)
	build := func(srv *serve.Server, p string) *serve.HTTPHandler {
		h := srv.HTTPHandler("", anyHost)
		h.Path = p
		if clients != nil {
			h.SetClients(clients)
		}
		if set != nil {
			set(h)
		}
		return h
	}
	gh := &Handler{Endpoint: build(g.front, path), Members: map[string]*serve.HTTPHandler{}}
	gh.Endpoint.Health = g.health
	for _, m := range g.Members {
		h := build(m.Server, strings.TrimSuffix(path, "/")+"/"+m.Name)
		h.SSEPaths = &[2]string{h.Path + "/sse", h.Path + "/message"}
		// The endpoint's card is the gateway's; a member's name and
		// what it says of itself are for the tokens that see it.
		h.NoCard = true
		h.Admit = func(v *serve.View) bool { return v.Sees(m.Name) }
		gh.Members[m.Name] = h
	}
	return gh
}

func (gh *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h := gh.route(r.URL.Path); h != nil {
		h.ServeHTTP(w, r)
		return
	}
	http.NotFound(w, r)
}

// route is the handler of a path: the endpoint's, else the member's
// whose path it is under; nil for none.
func (gh *Handler) route(path string) *serve.HTTPHandler {
	if gh.Endpoint.Serves(path) {
		return gh.Endpoint
	}
	rest, ok := strings.CutPrefix(path, strings.TrimSuffix(gh.Endpoint.Path, "/")+"/")
	if !ok {
		return nil
	}
	name, _, _ := strings.Cut(rest, "/")
	if h := gh.Members[name]; h != nil && h.Serves(path) {
		return h
	}
	return nil
}

// Drain readies every path to stop (serve.HTTPHandler.Drain).
func (gh *Handler) Drain(grace time.Duration) {
	gh.each(func(h *serve.HTTPHandler) { h.Drain(grace) })
}

// Settle waits, within a bound, for the requests of every path to be
// answered.
func (gh *Handler) Settle() { gh.each((*serve.HTTPHandler).Settle) }

// Close ends every path's sessions.
func (gh *Handler) Close() { gh.each((*serve.HTTPHandler).Close) }

// each does do to every path's handler at once, and waits for them.
func (gh *Handler) each(do func(*serve.HTTPHandler)) {
	var wg sync.WaitGroup
	for _, h := range append(slices.Collect(maps.Values(gh.Members)), gh.Endpoint) {
		wg.Go(func() { do(h) }) // parallel close or settle
	}
	wg.Wait()
}

// memberHealth is one member in /healthz.
type memberHealth struct {
	Name  string `json:"name"`
	State string `json:"state"`
	Since string `json:"since,omitempty"`
}

// health answers a probe of a gateway: 200 while the endpoint can serve
// (some member is not down), with status "ok", or "degraded" when a
// member is down; 503 ("unavailable") when every member is, or serving
// ends, and ("starting") while members start and none is up yet (a
// draining endpoint's "draining" is serve's). The body names the members and their states (idle: not started
// yet; starting; up; down; isolated: each client opens its own) to a
// client whose token the endpoint takes, those its view sees; to a
// probe without one, how many are in each state. No error text: a
// server's words may hold anything, and its down state's reason is on
// serve's log.
func (g *Gateway) health(who *serve.View, known, closed bool) (int, any) {
	counts := map[string]int{}
	var members []memberHealth
	for _, m := range g.Members {
		st, since := "isolated", time.Time{}
		if m.life != nil {
			var s lifeState
			s, since = m.life.status()
			st = s.String()
		}
		counts[st]++
		if known && who.Sees(m.Name) {
			mh := memberHealth{Name: m.Name, State: st}
			if !since.IsZero() && st != "idle" {
				mh.Since = since.UTC().Format(time.RFC3339)
			}
			members = append(members, mh)
		}
	}
	status, word := http.StatusOK, "ok"
	switch {
	case closed || counts["down"] == len(g.Members):
		status, word = http.StatusServiceUnavailable, "unavailable"
	case counts["starting"] > 0 && counts["up"] == 0:
		// No member answers yet: a balancer waits for one.
		status, word = http.StatusServiceUnavailable, "starting"
	case counts["down"] > 0:
		word = "degraded"
	}
	body := map[string]any{"status": word, "servers": counts}
	if known {
		body["servers"] = members
	}
	return status, body
}
