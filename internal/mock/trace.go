package mock

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/trace"
	"github.com/mcpv/mcpv/mcp"
)

// FromTrace is the server's side of a trace (mcpv --trace), for mcpv
// mock to replay: who the server said it was, what it listed, and each
// answer it gave to a call, a read, a get or a completion, matched to
// the request by its method and params (a call's exact arguments); the
// same request answered differently in turn is answered so again, in
// order, each answer once and the last for good. What the server said
// while a request was open (progress, log messages, other
// notifications, requests of its own) is sent again, in order, before
// the answer. A request the trace holds no answer to (the run ended
// first) waits as long as a mock waits, then fails; an answer the trace
// cut is not replayed. notes say what the replay cannot give back.
//
// A trace is one format for what was seen; mcpv serve --record writes
// the mock's own files from a relay, which this makes from a trace.
func FromTrace(data []byte) (snap surface.Snapshot, resp *Responses, notes []string, err error) {
	lines, err := trace.Read(data)
	if err != nil {
		return snap, nil, nil, err
	}
	s, err := trace.Surface(lines)
	if err != nil {
		return snap, nil, nil, err
	}
	snap = s.Snapshot
	r := &Responses{}
	listed := map[string]bool{}
	for _, t := range snap.Tools {
		listed[rawjson.Key(t, "name")] = true
	}
	entries := map[string][]*Entry{} // method + what it names + its arguments -> its entries, in order
	var order []string
	for _, e := range trace.Exchanges(lines) {
		switch e.Method {
		case "initialize", "server/discover":
			if r.Server == nil && e.Result != nil {
				r.Server = serverOf(e.Result)
			}
			continue
		case "tools/call", "prompts/get", "resources/read", "completion/complete":
		default:
			continue
		}
		if e.Cut {
			notes = append(notes, fmt.Sprintf("the trace cut the answer to a %s: it is not replayed", e.Method))
			continue
		}
		entry, key := entryOf(e)
		if entry == nil {
			continue
		}
		if e.Method == "tools/call" && !listed[entry.Name] {
			listed[entry.Name] = true // called without being listed: offered as it was called
			snap.Tools = append(snap.Tools, json.RawMessage(fmt.Sprintf(`{"name":%s,"inputSchema":{"type":"object"}}`, quote(entry.Name))))
		}
		if entries[key] == nil {
			order = append(order, key)
		}
		entries[key] = append(entries[key], entry)
	}
	for _, key := range order {
		list := entries[key]
		for i, e := range list {
			if i < len(list)-1 {
				e.Times = 1
			}
			to := r.lists()[e.group]
			*to = append(*to, *e)
		}
	}
	// Through the file's own checks, as a responses file written by hand;
	// an error that was no error object, which no file can write, goes
	// round them aside: the checked lists hold the same entries, in order.
	doc, err := json.Marshal(r)
	if err != nil {
		return snap, nil, notes, err
	}
	checked, err := ParseResponses(doc)
	if err != nil {
		return snap, nil, notes, fmt.Errorf("the trace's answers: %v", err)
	}
	into := checked.lists()
	for g, list := range r.lists() {
		for i, e := range *list {
			if c := &(*into[g])[i]; e.Error != nil && e.Error.raw != nil && c.Error != nil {
				c.Error.raw = e.Error.raw
			}
		}
	}
	return snap, checked, notes, nil
}

// entryOf is the entry that answers e as the server did, and the key of
// what it answers; group holds which list it goes in.
func entryOf(e *trace.Exchange) (*Entry, string) {
	var p struct {
		target
		Ref      json.RawMessage `json:"ref"`
		Argument json.RawMessage `json:"argument"`
	}
	if json.Unmarshal(e.Params, &p) != nil {
		return nil, ""
	}
	entry := &Entry{}
	switch e.Method {
	case "tools/call", "prompts/get":
		if p.Name == "" {
			return nil, ""
		}
		args := json.RawMessage(compact(orEmpty(p.Arguments)))
		entry.Name, entry.Arguments = p.Name, args
		if e.Method == "prompts/get" {
			entry.group = 1
		}
	case "resources/read":
		entry.URI, entry.group = p.URI, 2
	case "completion/complete":
		if p.Ref == nil {
			return nil, ""
		}
		entry.Ref, entry.group = json.RawMessage(compact(p.Ref)), 3
		if p.Argument != nil {
			entry.Argument = json.RawMessage(compact(p.Argument))
		}
	}
	for _, m := range e.Between {
		if step, ok := stepOf(m); ok {
			entry.Steps = append(entry.Steps, step)
		}
	}
	switch {
	case e.Result != nil:
		entry.Result = e.Result
	case e.Error != nil:
		var ea ErrorAnswer
		if json.Unmarshal(e.Error, &ea) != nil || ea.Code == nil || ea.Message == "" {
			// Replayed as it came: the client fails on it as it did.
			ea = ErrorAnswer{Code: new(-32603), Message: "the trace holds an error that is not one: " + string(e.Error), raw: e.Error}
		}
		entry.Error = &ea
	default:
		wait := Duration(MaxWait - MaxWait/10)
		entry.Steps = append(entry.Steps, Step{Wait: &wait})
		entry.Error = &ErrorAnswer{Code: new(-32603), Message: "the trace holds no answer to this request"}
	}
	key := fmt.Sprintf("%d\x00%s\x00%s\x00%s\x00%s\x00%s", entry.group, entry.Name, entry.URI, entry.Arguments, entry.Ref, entry.Argument)
	return entry, key
}

// stepOf is the step that sends again what the server sent while a
// request was open: a notification, or a request to the client.
func stepOf(m json.RawMessage) (Step, bool) {
	var w struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(m, &w) != nil || w.Method == "" {
		return Step{}, false
	}
	switch {
	case w.ID != nil:
		if !slices.Contains(askable, w.Method) {
			return Step{}, false
		}
		return Step{Ask: &Ask{Method: w.Method, Params: w.Params}}, true
	case w.Method == "notifications/progress":
		var p map[string]json.RawMessage
		if json.Unmarshal(w.Params, &p) != nil {
			return Step{}, false
		}
		delete(p, "progressToken") // the replayed request's own is used
		return Step{Progress: rawjson.Marshal(p)}, true
	case w.Method == "notifications/message":
		return Step{Log: w.Params}, true
	default:
		return Step{Notify: &Notification{Method: w.Method, Params: w.Params}}, true
	}
}

// serverOf is who a server said it was in its initialize or
// server/discover result (whose serverInfo the modern era carries in
// _meta, its instructions at the top as initialize's are).
func serverOf(result json.RawMessage) *Server {
	var r struct { // its protocolVersion not read: any value passes
		ServerInfo   json.RawMessage            `json:"serverInfo"`
		Instructions *string                    `json:"instructions"`
		Capabilities json.RawMessage            `json:"capabilities"`
		Meta         map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(result, &r) != nil {
		return nil
	}
	if r.ServerInfo == nil {
		r.ServerInfo = r.Meta[mcp.MetaServerInfo]
	}
	if r.ServerInfo == nil && r.Instructions == nil && r.Capabilities == nil {
		return nil
	}
	s := &Server{ServerInfo: r.ServerInfo, Instructions: r.Instructions, Capabilities: r.Capabilities}
	if s.check() != nil {
		return nil
	}
	return s
}

func quote(s string) string {
	b, _ := rawjson.Encode(s) // a string always encodes
	return string(b)
}
