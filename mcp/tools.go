package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// Tool is the part of a tool's definition the client uses; Raw is the
// definition as the server listed it (nil when there is no such tool).
type Tool struct {
	Name         string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	TaskSupport  string // execution.taskSupport: "", "forbidden", "optional" or "required"
	Raw          json.RawMessage
}

// ParseTool reads a tool definition from tools/list; ok is false for one
// without a name (ToolName's), or that cannot be read: FindTool passes
// over it.
func ParseTool(raw json.RawMessage) (Tool, bool) {
	var d struct {
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Execution    struct {
			TaskSupport string `json:"taskSupport"`
		} `json:"execution"`
	}
	name := ToolName(raw)
	if name == "" || json.Unmarshal(raw, &d) != nil {
		return Tool{}, false
	}
	return Tool{Name: name, InputSchema: d.InputSchema, OutputSchema: d.OutputSchema, TaskSupport: d.Execution.TaskSupport, Raw: raw}, true
}

// FindTool walks tools/list page by page for the tool called name and stops
// at it. A tool the server does not list comes back with only its Name
// set, and a *ToolNotListedError. Its requests carry the name
// (ToolSought), for a transport that can find the tool in fewer pages.
func (c *Client) FindTool(ctx context.Context, name string) (Tool, error) {
	found := Tool{Name: name}
	var listed []string
	for p, err := range c.Seek(WithToolSought(ctx, name), "tools/list", "tools") {
		if err != nil {
			return found, err
		}
		for _, raw := range p.Items {
			if n := ToolName(raw); n != name {
				listed = append(listed, n)
				continue
			}
			if t, ok := ParseTool(raw); ok {
				return t, nil
			}
		}
	}
	return found, &ToolNotListedError{Name: name, Listed: listed}
}

type toolSoughtKey struct{}

// WithToolSought tells the transport that the tools/list requests sent
// with ctx look for the tool called name (see ToolSought).
func WithToolSought(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, toolSoughtKey{}, name)
}

// ToolSought is the name of the tool the tools/list request sent with ctx
// looks for (FindTool's), "" for a listing. A session keeper that has kept
// the server's pages answers it with a page that holds only that tool.
func ToolSought(ctx context.Context) string {
	name, _ := ctx.Value(toolSoughtKey{}).(string)
	return name
}

// ToolName reads a definition's name without decoding the rest of it
// (its exact member "name", rawjson.Key): "" when it has none, or the
// definition is not an object. A name listed twice is counted by it.
func ToolName(raw json.RawMessage) string { return rawjson.Key(raw, "name") }

// ToolNotListedError is a tool name that tools/list does not hold.
type ToolNotListedError struct {
	Name   string
	Listed []string // the names it does hold, in its order
}

func (e *ToolNotListedError) Error() string {
	return fmt.Sprintf("the server lists no tool %q (it has %d)", e.Name, len(e.Listed))
}

// ToolCache keeps a session's tool definitions, so that many calls in one
// session cost one tools/list walk. Reset it when the server sends
// notifications/tools/list_changed. The zero value is ready; it is safe for
// concurrent use, and Reset never waits for a walk in progress.
type ToolCache struct {
	walk sync.Mutex // guards the walk: held while listing, so one walk serves every waiter

	mu    sync.Mutex         // guards the fields below
	tools map[string]listing // by name (ToolName's); nil until listed, or after Reset
	gen   int                // bumped by Reset: a walk begun before it is stale
}

// listing is what the tool list holds under one name: how many times it
// lists it, whether it decodes or not, and the first definition that
// decodes (ok), else the first.
type listing struct {
	tool Tool
	n    int
	ok   bool
}

// Find returns the tool called name, listing every tool first if the cache
// is empty. A tool the server does not list comes back with only its Name,
// and a *ToolNotListedError. Of a name listed twice, the first
// definition comes back, as FindTool finds it.
func (tc *ToolCache) Find(ctx context.Context, c *Client, name string) (Tool, error) {
	t, _, err := tc.Lookup(ctx, c, name)
	return t, err
}

// Lookup is Find, and how many times the list held name (every page's
// items, each counted by its name before it is decoded, a definition
// that does not decode too): a caller that must tell two definitions of
// one name apart can, whether or not one of them decodes. A name listed
// with no definition that decodes comes back with its first definition
// as Raw, its count and a *ToolNotListedError.
func (tc *ToolCache) Lookup(ctx context.Context, c *Client, name string) (Tool, int, error) {
	tc.walk.Lock()
	defer tc.walk.Unlock()
	tc.mu.Lock()
	tools, gen := tc.tools, tc.gen
	tc.mu.Unlock()
	if tools == nil {
		tools = map[string]listing{}
		for p, err := range c.Seek(ctx, "tools/list", "tools") {
			if err != nil {
				return Tool{Name: name}, 0, err
			}
			for _, raw := range p.Items {
				if n := ToolName(raw); n != "" {
					tools[n] = tools[n].add(n, raw)
				}
			}
		}
		tc.mu.Lock()
		if tc.gen == gen { // else the list changed while it was walked: use it once, keep nothing
			tc.tools = tools
		}
		tc.mu.Unlock()
	}
	if l := tools[name]; l.ok {
		return l.tool, l.n, nil
	}
	var listed []string
	for n, l := range tools {
		if l.ok {
			listed = append(listed, n)
		}
	}
	slices.Sort(listed)
	return Tool{Name: name, Raw: tools[name].tool.Raw}, tools[name].n, &ToolNotListedError{Name: name, Listed: listed}
}

// add is l with one more definition of the tool called name, raw.
func (l listing) add(name string, raw json.RawMessage) listing {
	if l.n++; !l.ok {
		if t, ok := ParseTool(raw); ok {
			l.tool, l.ok = t, true
		} else if l.n == 1 {
			l.tool = Tool{Name: name, Raw: raw}
		}
	}
	return l
}

// Reset forgets every definition; the next Find lists the tools again.
func (tc *ToolCache) Reset() {
	tc.mu.Lock()
	tc.tools = nil
	tc.gen++
	tc.mu.Unlock()
}
