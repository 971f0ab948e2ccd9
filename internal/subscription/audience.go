package subscription

import (
	"encoding/json"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Audience is whom, among the parties that share one session, a
// notification of the server is for. The session keeper and mcpv serve
// both pass notifications on by it, so that no party hears what the
// server said for another.
type Audience int

const (
	// Requester: progress, for the party whose request it reports on
	// (found by its progress token).
	Requester Audience = iota
	// Holders: a resource's update, for the parties subscribed to its
	// URI or listening for it.
	Holders
	// Listeners: a subscription's acknowledgement, for the parties with
	// a subscriptions/listen stream open.
	Listeners
	// Everyone: a list's change (each party keeps what it learnt of the
	// lists).
	Everyone
	// Busy: anything else (log messages above all), for the one party
	// with a request in flight, when there is one; else for no one.
	Busy
)

// AudienceOf is whom the notification method is for, and for Holders,
// the resource's URI.
func AudienceOf(method string, params json.RawMessage) (a Audience, uri string) {
	switch {
	case method == "notifications/progress":
		return Requester, ""
	case method == "notifications/resources/updated":
		return Holders, URI(params)
	case method == "notifications/subscriptions/acknowledged":
		return Listeners, ""
	case strings.HasSuffix(method, "/list_changed"):
		return Everyone, ""
	}
	return Busy, ""
}

// URI is the resource's URI in the params of a request or notification
// about one (resources/subscribe, notifications/resources/updated): its
// uri member, "" when it has none.
func URI(params json.RawMessage) string {
	var p struct {
		URI string `json:"uri"`
	}
	rawjson.DecodeLoose(params, &p) // a uri of another type names no resource, which no subscriber holds
	return p.URI
}
