package mcptest

// A fake server whose whole surface comes from a JSON spec: the tools,
// prompts, resources and resource templates it lists (names and schemas as
// written, valid or not), the capabilities it declares, canned answers, and
// faults to plant (a cursor that repeats or never ends, a method answered
// as not found, a result that is not what the method should return). It is
// the behaviour spec=FILE of the fake, or served by ServeSpec over any
// reader and writer.
//
// It speaks in the initialize era (2025-11-25 and the versions before it)
// or, with era "modern", in the 2026-07-28 era (server/discover, no
// initialize). Like most servers, it answers a method of a capability it
// does not declare (tools/*, prompts/*, resources/*) as not found, unless
// the spec names the method in ServeUndeclared.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"
)

// Spec is a fixture server's surface. Every field is optional.
type Spec struct {
	// Era is "" or "initialize" (the initialize handshake; server/discover
	// is not found) or "modern" (server/discover; initialize is not found).
	Era string `json:"era,omitempty"`
	// ProtocolVersion is the version answered to an initialize that asks
	// for one the server does not know; default the latest it speaks.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
	// ServerInfo is sent as is; default {"name":"fixture-server","version":"0"}.
	ServerInfo json.RawMessage `json:"serverInfo,omitempty"`
	// Capabilities is sent as is. Absent, the server declares tools,
	// prompts and resources for each of its lists that is not empty.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	Instructions string          `json:"instructions,omitempty"`

	// Card, over HTTP, is the Server Card served at the endpoint's URL
	// + /server-card, as written but for {{endpoint}}, which is the
	// endpoint's URL.
	Card json.RawMessage `json:"card,omitempty"`

	// The lists, each item sent as written.
	Tools             []json.RawMessage `json:"tools,omitempty"`
	Prompts           []json.RawMessage `json:"prompts,omitempty"`
	Resources         []json.RawMessage `json:"resources,omitempty"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates,omitempty"`
	// Skills are the skills extension's entries, served by skills/list
	// (paged as the lists are) and skills/get; their files are read with
	// resources/read from ReadResults, and each skill's directory with
	// resources/directory/read.
	Skills []json.RawMessage `json:"skills,omitempty"`

	// CallResults are tools/call results by tool name. A listed tool with
	// none answers one text block, "called NAME"; any other name -32602.
	CallResults map[string]json.RawMessage `json:"callResults,omitempty"`
	// PromptResults are prompts/get results by prompt name. A listed
	// prompt with none answers one user message, its name.
	PromptResults map[string]json.RawMessage `json:"promptResults,omitempty"`
	// ReadResults are resources/read results by URI. A listed resource
	// with none answers one empty text content.
	ReadResults map[string]json.RawMessage `json:"readResults,omitempty"`
	// Answers are results by method, sent as written instead of whatever
	// the server would answer: a malformed page, say.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`

	// PageSize is how many items a list page holds; 0 is all of them.
	PageSize int `json:"pageSize,omitempty"`
	// RepeatCursor names list methods whose every page has nextCursor
	// "again": a client that follows it never reaches the end.
	RepeatCursor []string `json:"repeatCursor,omitempty"`
	// EndlessCursor names list methods whose pages never end: each page
	// has a new nextCursor, past the last item with no items at all.
	EndlessCursor []string `json:"endlessCursor,omitempty"`
	// EndlessItems names list methods whose pages never end and each
	// bring new items (named after their place): an endless list that
	// looks like progress to a client.
	EndlessItems []string `json:"endlessItems,omitempty"`
	// GenerateTools adds that many tools, t0, t1, ..., after Tools: a
	// long list (with PageSize, many pages) without a long spec.
	GenerateTools int `json:"generateTools,omitempty"`
	// MethodNotFound names methods answered with -32601, served or not.
	MethodNotFound []string `json:"methodNotFound,omitempty"`
	// Errors are JSON-RPC errors ({"code", "message", "data"}) by method, or by
	// method and name ("tools/call NAME"), sent instead of any answer.
	Errors map[string]specError `json:"errors,omitempty"`
	// ServeUndeclared names methods served though their capability is
	// not declared.
	ServeUndeclared []string `json:"serveUndeclared,omitempty"`
	// Faults name the requirements of the specification the server
	// breaks, one fault each (Faults lists them; spec_faults.go).
	Faults []string `json:"faults,omitempty"`
	// Edges name what a correct server may do at the edge of a
	// requirement, the legal behaviour closest to a fault (Edges lists
	// them; spec_edges.go): a checker must not fail a server for them.
	Edges []string `json:"edges,omitempty"`
	// Tasks, when set, runs the tools whose execution.taskSupport is
	// "optional" or "required" as tasks (spec_tasks.go).
	Tasks *TaskSpec `json:"tasks,omitempty"`
	// Versions are the initialize-era versions the server speaks, latest
	// first; default knownVersions. A version it does not speak is
	// answered with ProtocolVersion, or its latest.
	Versions []string `json:"versions,omitempty"`
	// Mute names methods (or "tools/call NAME") never answered: the request is read and
	// nothing comes back (over HTTP the POST is held open), as a server
	// that ignores what it does not know may do.
	Mute []string `json:"mute,omitempty"`

	// TTLMs and CacheScope, when set, are the caching hints of the
	// results that carry them in the modern era (server/discover's and
	// the lists'): how long a client may keep them (a number as written,
	// 1e19 as well as 60000), and for whom.
	TTLMs      *json.Number `json:"ttlMs,omitempty"`
	CacheScope string       `json:"cacheScope,omitempty"`

	// named is the named fake this spec is (behaviours.go), nil for a
	// spec as written: it answers first (namedRequest).
	named *named
	// lat, when set, delays each tools/call (latency.go).
	lat *latency
}

// The versions a spec server speaks by default: those of mcp, copied on
// purpose, as mcptest cannot import mcp (mcp's tests import mcptest).
const specModernVersion = "2026-07-28" // the modern era's

// knownVersions are the initialize-era versions echoed when a client asks
// for one, latest first.
var knownVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// versions are the initialize-era versions the server speaks, latest
// first.
func (s *Spec) versions() []string {
	if len(s.Versions) > 0 {
		return s.Versions
	}
	return knownVersions
}

// LoadSpec reads a spec file.
func LoadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := ParseSpec(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// ParseSpec reads a spec. A member the spec does not have is an error: a
// misspelt fault must not pass for a server without it.
func ParseSpec(data []byte) (*Spec, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	var s Spec
	if err := d.Decode(&s); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value")
	}
	if !slices.Contains([]string{"", "initialize", "modern"}, s.Era) {
		return nil, fmt.Errorf("era %q: want \"initialize\" or \"modern\"", s.Era)
	}
	if s.PageSize < 0 {
		return nil, fmt.Errorf("pageSize %d is negative", s.PageSize)
	}
	for i := range s.GenerateTools {
		s.Tools = append(s.Tools, json.RawMessage(fmt.Sprintf(`{"name":"t%d","inputSchema":{"type":"object"}}`, i)))
	}
	var statuses []string
	if s.Tasks != nil {
		statuses = s.Tasks.Statuses
	}
	// Each name the spec gives must be one of those known of its kind;
	// unknown is the error's format, of the first name that is not.
	for _, names := range []struct {
		given, known []string
		unknown      string
	}{
		{s.Faults, slices.Concat(Faults, TaskFaults), "no fault %q"},
		{s.Edges, Edges, "no edge %q"},
		{statuses, taskStatuses, "tasks: no status %q"},
		{slices.Concat(s.RepeatCursor, s.EndlessCursor, s.EndlessItems), slices.Collect(maps.Keys(lists)), "%q is not a list method"},
	} {
		if i := slices.IndexFunc(names.given, func(n string) bool { return !slices.Contains(names.known, n) }); i >= 0 {
			return nil, fmt.Errorf(names.unknown, names.given[i])
		}
	}
	s.Tools = append(s.Tools, paramHeaderTools(&s)...)
	return &s, nil
}

// declared is what the server declares at path, a capability or a
// member of one (resources, subscribe); nil where it declares nothing,
// null or false.
func (s *Spec) declared(path ...string) json.RawMessage {
	v := s.capabilities()
	for _, k := range path {
		v = member(v, k)
	}
	if string(v) == "null" || string(v) == "false" {
		return nil
	}
	return v
}

// capabilities is what the server declares.
func (s *Spec) capabilities() json.RawMessage {
	if s.Capabilities != nil {
		return s.Capabilities
	}
	caps := map[string]struct{}{}
	for name, listed := range map[string]int{"tools": len(s.Tools), "prompts": len(s.Prompts), "resources": len(s.Resources) + len(s.ResourceTemplates)} {
		if listed > 0 {
			caps[name] = struct{}{}
		}
	}
	return mustJSON(caps)
}

func (s *Spec) serverInfo() json.RawMessage {
	if s.ServerInfo != nil {
		return s.ServerInfo
	}
	return json.RawMessage(`{"name":"fixture-server","version":"0"}`)
}
