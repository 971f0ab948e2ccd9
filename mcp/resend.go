package mcp

// A request whose answer is lost. Once a request is delivered (written in
// full, and not refused) the server may have acted on it, whatever
// becomes of its answer: the connection breaks, a balancer in front
// answers 502 or 504 for a replica that died, the answer's stream or body
// ends before the response. Sending it again could act twice (a mail sent,
// a payment made twice), so mcpv sends again only a request that changes
// nothing (resendable); any other ends with a *LostError, which says
// that it may or may not have run. What was certainly not delivered (a
// connection refused, a refusal such as 404 for a session the server does
// not know) is no loss, and its handling is its own.

import (
	"fmt"
	"time"
)

// resendable reports whether method changes nothing at the server, so
// that it may be sent again when its answer is lost: the requests of the
// specification that only read (ping, server/discover, the lists,
// resources/read, prompts/get, completion/complete, tasks/get,
// tasks/list and tasks/result) and subscriptions/listen, which only asks
// to hear and whose end ends it. Every other request may act: tools/call
// above all; initialize (a session), logging/setLevel,
// resources/subscribe and unsubscribe, tasks/cancel and tasks/update
// change what the server keeps; and a method mcpv does not know is
// taken to act.
func resendable(method string) bool {
	switch method {
	case "ping", "server/discover", "resources/read", "prompts/get", "completion/complete",
		"tasks/get", "tasks/list", "tasks/result", "subscriptions/listen":
		return true
	}
	return isList(method)
}

// LostError is a request whose answer was lost after it was delivered
// and that changes what a server holds or does: the server may or may
// not have acted on it, and it was not sent again.
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
}

func (e *answerLost) Unwrap() error { return e.error }

// lost marks err as an answer lost.
func lost(err error) error { return &answerLost{error: err} }
