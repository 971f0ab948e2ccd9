package mock

import (
	"cmp"
	"encoding/json"
	"slices"
	"sync"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

// Recorder keeps what passes through a relay: who the server says it is
// (its serverInfo, instructions and capabilities), the surface as listed,
// and the answers to calls, reads, gets and completions, first answer
// first. It is safe for use by several clients' requests at once.
//
// It keeps them in memory until the files are written, so it is bounded:
// past Max bytes of answers (each counted with what it answers: the
// name, the arguments or the URI, held twice), a new answer is not kept,
// only counted (Skipped). The surface is not bounded: it holds each item
// once.
type Recorder struct {
	// Max is the bytes of answers kept, with their keys; 0 is
	// DefaultMaxRecorded.
	Max int64

	mu        sync.Mutex // guards the fields below
	size      int64      // bytes of answers kept
	skipped   int        // answers not kept, past Max
	malformed int        // answers not kept: their params or items do not decode
	snap      surface.Snapshot
	listed    map[string]bool            // list method + name (or URI) of the items kept
	resources map[string]json.RawMessage // URI -> the resource as resources/list showed it
	order     []string                   // the URIs listed, in order
	resp      Responses
	answered  map[string]bool // method + name + arguments (or URI) answered
}

// DefaultMaxRecorded is how much of the answers a Recorder keeps unless
// told otherwise: far more than a session of testing brings, far less
// than a relay left running for days would.
const DefaultMaxRecorded = 64 << 20

// NewRecorder is a Recorder that has seen nothing.
func NewRecorder() *Recorder {
	return &Recorder{listed: map[string]bool{}, resources: map[string]json.RawMessage{}, answered: map[string]bool{}}
}

// Note keeps a request's result, when it is one a mock answers from.
func (r *Recorder) Note(method string, params, result json.RawMessage) {
	var p target
	r.mu.Lock()
	defer r.mu.Unlock()
	if params != nil && json.Unmarshal(params, &p) != nil && slices.Contains([]string{"tools/call", "prompts/get", "resources/read", "completion/complete"}, method) {
		r.malformed++
		return
	}
	switch method {
	case "initialize":
		r.server(result)
	case mcp.Tools.Method:
		r.items(mcp.Tools, result, &r.snap.Tools)
	case mcp.Prompts.Method:
		r.items(mcp.Prompts, result, &r.snap.Prompts)
	case mcp.ResourceTemplates.Method:
		r.items(mcp.ResourceTemplates, result, &r.snap.ResourceTemplates)
	case mcp.Resources.Method:
		var its []json.RawMessage
		r.items(mcp.Resources, result, &its)
		for _, it := range its {
			uri := rawjson.Key(it, "uri")
			r.resources[uri] = it
			r.order = append(r.order, uri)
		}
	case "tools/call", "prompts/get":
		args := json.RawMessage(compact(orEmpty(p.Arguments)))
		key := method + "\x00" + p.Name + "\x00" + string(args)
		if r.answered[key] || !r.keep(2*len(key)+len(result)) { // the key, and the entry's name and arguments
			return
		}
		r.answered[key] = true
		to := &r.resp.Prompts
		if method == "tools/call" {
			to = &r.resp.Tools
		}
		*to = append(*to, Entry{Name: p.Name, Arguments: args, Result: result})
	case "resources/read":
		if key := method + "\x00" + p.URI; !r.answered[key] && r.keep(2*len(key)+len(result)) {
			r.answered[key] = true
			r.resp.Resources = append(r.resp.Resources, Entry{URI: p.URI, Result: result})
		}
	case "completion/complete":
		if p.Ref == nil {
			return
		}
		ref, arg := json.RawMessage(compact(p.Ref)), json.RawMessage(compact(p.Argument))
		if p.Argument == nil {
			arg = nil
		}
		key := method + "\x00" + string(ref) + "\x00" + string(arg)
		if !r.answered[key] && r.keep(2*len(key)+len(result)) {
			r.answered[key] = true
			r.resp.Completions = append(r.resp.Completions, Entry{Ref: ref, Argument: arg, Result: result})
		}
	}
}

// server keeps who the server says it is, from its initialize (or
// server/discover) result.
func (r *Recorder) server(result json.RawMessage) {
	var s Server
	if json.Unmarshal(result, &s) != nil || (s.ServerInfo == nil && s.Instructions == nil && s.Capabilities == nil) {
		return
	}
	r.resp.Server = &s
}

// keep reports whether an answer that costs n bytes to keep fits in what
// the recorder keeps, and counts it in: its size if so, else as skipped.
// A skipped answer leaves nothing behind, not even its key, so the same
// call answered again is skipped again, and counted again.
func (r *Recorder) keep(n int) bool {
	if r.size+int64(n) > cmp.Or(max(r.Max, 0), DefaultMaxRecorded) {
		r.skipped++
		return false
	}
	r.size += int64(n)
	return true
}

// Skipped is how many answers were not kept, past Max, each time one
// came, and how many because their params or list items do not decode.
func (r *Recorder) Skipped() (past, malformed int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped, r.malformed
}

// items keeps the items of a list page not kept yet.
func (r *Recorder) items(l mcp.List, result json.RawMessage, dest *[]json.RawMessage) {
	var its []json.RawMessage
	if raw := rawjson.Member(result, l.Key); raw != nil && json.Unmarshal(raw, &its) != nil {
		r.malformed++
		return
	}
	for _, it := range its {
		if k := l.Method + "\x00" + rawjson.Key(it, l.Field); !r.listed[k] {
			r.listed[k] = true
			*dest = append(*dest, it)
		}
	}
}

// Files are the snapshot and the responses file of what was seen: a
// resource listed and never read is answered with no contents.
func (r *Recorder) Files() (snapshot, responses []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	resp := Responses{Server: r.resp.Server, Tools: r.resp.Tools, Prompts: r.resp.Prompts, Completions: r.resp.Completions}
	read := map[string]bool{}
	for _, e := range r.resp.Resources {
		e.Resource = r.resources[e.URI]
		resp.Resources = append(resp.Resources, e)
		read[e.URI] = true
	}
	for _, uri := range r.order {
		if !read[uri] {
			resp.Resources = append(resp.Resources, Entry{URI: uri, Resource: r.resources[uri], Result: json.RawMessage(`{"contents":[]}`)})
		}
	}
	return r.snap.Marshal(), resp.Marshal()
}

// Mask hides secrets in a recorded file: every value secrets knows, and
// the string values of members whose names say they hold one.
func Mask(file []byte, secrets interface{ Mask([]byte) []byte }) []byte {
	return redact.JSON(secrets.Mask(file))
}
