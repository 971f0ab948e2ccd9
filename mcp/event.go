package mcp

import (
	"net/http"
	"net/url"
	"os/exec"
	"syscall"
)

// TransportEvent is something a transport did that no message shows: a server
// process started or exited, an HTTP exchange and its status, a stream
// resumed after its last event id. A trace (mcpv --trace) writes them
// beside the messages. Each place that may send one costs a nil check
// when no hook is set.
type TransportEvent struct {
	// Kind is one of the Event* names below.
	Kind string `json:"event"`
	// PID is the server process's, for EventStart and EventExit.
	PID int `json:"pid,omitempty"`
	// Program is the server's program, for EventStart.
	Program string `json:"program,omitempty"`
	// Code is the exit status, for EventExit (-1 when a signal ended it).
	Code *int `json:"code,omitempty"`
	// Signal names the signal that ended the process, for EventExit.
	Signal string `json:"signal,omitempty"`
	// Method and URL are the HTTP request's (the URL without its query
	// or user info), for EventHTTP.
	Method string `json:"method,omitempty"`
	URL    string `json:"url,omitempty"`
	// Status is the HTTP answer's status code, 0 when none came.
	Status int `json:"status,omitempty"`
	// Header holds the headers of the exchange that matter to a reader
	// of the trace (tracedHeaders), secrets masked; a request's are
	// prefixed with "> ".
	Header map[string]string `json:"header,omitempty"`
	// Error is what went wrong, when something did.
	Error string `json:"error,omitempty"`
}

// The kinds of TransportEvent.
const (
	EventStart = "process.start"
	EventExit  = "process.exit"
	EventHTTP  = "http"
)

// tracedHeaders are the headers an EventHTTP keeps: those that say what
// the exchange was in MCP's terms (its session, version, stream) and why
// it failed; Authorization is kept masked, to show that it was sent.
var tracedHeaders = []string{"Content-Type", "Mcp-Session-Id", "Mcp-Protocol-Version", "Last-Event-Id", "Www-Authenticate", "Retry-After", "Location", "Authorization", "Mcp-Method", "Mcp-Name"}

// httpEvent is the event of one HTTP exchange.
func httpEvent(req *http.Request, resp *http.Response, err error) TransportEvent {
	e := TransportEvent{Kind: EventHTTP, Method: req.Method, URL: displayURL(req.URL), Header: map[string]string{}}
	keep := func(prefix string, h http.Header) {
		for _, k := range tracedHeaders {
			if v := h.Get(k); v != "" {
				if k == "Authorization" {
					v = "***"
				}
				e.Header[prefix+k] = v
			}
		}
	}
	keep("> ", req.Header)
	if resp != nil {
		e.Status = resp.StatusCode
		keep("", resp.Header)
	}
	if err != nil {
		e.Error = unwrap[*url.Error](err).Error()
	}
	return e
}

// exitEvent is the event of a server process that ended with err (what
// Wait returned).
func exitEvent(pid int, err error) TransportEvent {
	e := TransportEvent{Kind: EventExit, PID: pid}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			e.Signal = ws.Signal().String()
		}
	} else if err != nil {
		e.Error = err.Error()
	}
	e.Code = &code
	return e
}
