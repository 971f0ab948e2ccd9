package mcp

// A request whose answer is lost once it was delivered (written in full,
// and not refused): the connection breaks, a balancer in front answers
// 502 or 504 for a replica that died, the answer's stream or body ends
// early. The server may have acted on it, and sending it again could act
// twice (a mail, a payment): only a request that changes nothing is sent
// again; any other ends with a *LostError. What was not delivered (a
// connection refused, a 404 for a session unknown) is no loss.

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Resendable reports whether method changes nothing at the server: the
// specification's requests that only read, and subscriptions/listen,
// which only asks to hear. tools/call, initialize, logging/setLevel,
// resources/subscribe and unsubscribe, tasks/cancel and tasks/update act
// or change what the server keeps, and an unknown method may.
func Resendable(method string) bool {
	switch method {
	case "ping", "server/discover", "resources/read", "prompts/get", "completion/complete",
		"tasks/get", "tasks/list", "tasks/result", "subscriptions/listen":
		return true
	}
	return isList(method)
}

// MarkReplayable lets net/http send a read or an opening again where a kept
// connection closed under it, when mark is true: Idempotency-Key with no
// value, read, never sent. net/http resends any request that carries that
// header or X-Idempotency-Key, so on any other request a key the user set
// goes under a lower-case name, which net/http does not read and the
// server reads as the same (header names are not case sensitive).
func MarkReplayable(h http.Header, method string, mark bool) {
	if mark && (Resendable(method) || method == "initialize") {
		if _, set := h["Idempotency-Key"]; !set {
			h["Idempotency-Key"] = nil
		}
		return
	}
	for _, k := range [...]string{"Idempotency-Key", "X-Idempotency-Key"} {
		if v, set := h[k]; set {
			delete(h, k)
			h[strings.ToLower(k)] = v
		}
	}
}

// LostError is a request that may act whose answer was lost after it was
// delivered: the server may or may not have acted on it, and it was not
// sent again.
type LostError struct {
	Method string
	Err    error // how the answer was lost
}

func (e *LostError) Error() string {
	acted := "the server may or may not have acted on it"
	if e.Method == "tools/call" {
		acted = "the tool may or may not have run"
	}
	return fmt.Sprintf("its answer was lost (%v): %s; it was not sent again", e.Err, acted) // the session names the request
}

func (e *LostError) Unwrap() error { return e.Err }

// answerLost marks the failure of an exchange whose request was
// delivered and whose response did not come.
type answerLost struct {
	error
	retry time.Duration // the delay the server's stream asked for, if any
	// answered: a balancer's 502 or 504, which it would answer again at
	// once: a request that changes nothing is not sent again either.
	answered bool
}

func (e *answerLost) Unwrap() error { return e.error }

func lost(err error) error { return &answerLost{error: err} }
