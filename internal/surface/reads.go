package surface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// Bounds of GatherReads: what an audit reads beyond the lists, so that a
// server that answers none of it, or answers with megabytes, stays cheap.
const (
	MaxReads     = 64               // prompts got, and resources read, at most each
	MaxReadBytes = 1 << 20          // a result larger than this is not kept
	ReadsAtOnce  = 8                // requests in flight at once
	ReadsWait    = 10 * time.Second // for all of them together
)

// Reads are what a server answers beyond its lists that a model reads:
// the messages prompts/get returns, by prompt name, and the contents
// resources/read returns, by URI. A host puts both before a model as they
// are, so an audit reads them as it reads the lists.
type Reads struct {
	Prompts   map[string]json.RawMessage // prompts/get results
	Resources map[string]json.RawMessage // resources/read results
}

// Unread is one kind of read that left something out, and why.
type Unread struct {
	Method, Message string
}

// GatherReads gets each prompt of s (up to MaxReads), its declared
// arguments filled with placeholders, and reads each resource that may be
// text (up to MaxReads), ReadsAtOnce at a time, all within ReadsWait. What
// it could not read is said, a line a method: a server's refusal, a
// result past MaxReadBytes, a wait past ReadsWait, items past MaxReads.
func (l *Lister) GatherReads(ctx context.Context, s *Server) []Unread {
	ctx, cancel := context.WithTimeout(ctx, ReadsWait)
	defer cancel()
	s.Reads = Reads{Prompts: map[string]json.RawMessage{}, Resources: map[string]json.RawMessage{}}
	type read struct {
		method, key string
		params      json.RawMessage
		into        map[string]json.RawMessage
	}
	var todo []read
	past := map[string]int{}
	var mu sync.Mutex          // guards why and the maps the reads fill
	why := map[[2]string]int{} // method and reason -> how many
	note := func(method, reason string) {
		mu.Lock()
		defer mu.Unlock()
		why[[2]string{method, reason}]++
	}
	for _, p := range s.Prompts {
		if len(todo) >= MaxReads {
			past["prompts/get"]++
			continue
		}
		params, ok := promptParams(p)
		if !ok {
			note("prompts/get", undecoded)
			continue
		}
		todo = append(todo, read{"prompts/get", nameOf(p), params, s.Reads.Prompts})
	}
	n := len(todo)
	for _, r := range s.Resources {
		uri := stringMember(r, "uri")
		if !ModelReads(uri, stringMember(r, "mimeType")) {
			continue
		}
		if len(todo)-n >= MaxReads {
			past["resources/read"]++
			continue
		}
		todo = append(todo, read{"resources/read", uri, rawjson.MustMarshal(map[string]string{"uri": uri}), s.Reads.Resources})
	}
	slots := make(chan struct{}, ReadsAtOnce)
	var wg sync.WaitGroup
	for _, r := range todo {
		wg.Go(func() { // audit reads: at most ReadsAtOnce of them in flight
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				note(r.method, "no answer within the wait")
				return
			}
			defer func() { <-slots }()
			res, err := l.c.Call(ctx, r.method, r.params)
			switch {
			case errors.As(err, new(*mcp.CallError)):
				note(r.method, "an error answered")
			case err != nil:
				note(r.method, "no answer within the wait")
			case len(res) > MaxReadBytes:
				note(r.method, fmt.Sprintf("larger than %d MiB", MaxReadBytes>>20))
			default:
				mu.Lock()
				r.into[r.key] = res
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	var out []Unread
	for _, method := range []string{"prompts/get", "resources/read"} {
		var parts []string
		for _, reason := range []string{undecoded, "an error answered", "no answer within the wait", fmt.Sprintf("larger than %d MiB", MaxReadBytes>>20)} {
			if k := why[[2]string{method, reason}]; k > 0 {
				parts = append(parts, fmt.Sprintf("%d: %s", k, reason))
			}
		}
		if k := past[method]; k > 0 {
			parts = append(parts, fmt.Sprintf("%d past the first %d", k, MaxReads))
		}
		if len(parts) > 0 {
			out = append(out, Unread{method, "left unread (" + strings.Join(parts, "; ") + ")"})
		}
	}
	return out
}

// undecoded is why a prompt whose definition does not decode is not got.
const undecoded = "a definition that does not decode"

// promptParams are the params of a prompts/get of prompt p: its name, and
// each argument it declares filled with a placeholder; ok is false when
// p does not decode.
func promptParams(p json.RawMessage) (params json.RawMessage, ok bool) {
	var m struct {
		Name      string `json:"name"`
		Arguments []struct {
			Name string `json:"name"`
		} `json:"arguments"`
	}
	if json.Unmarshal(p, &m) != nil {
		return nil, false
	}
	args := map[string]string{}
	for _, a := range m.Arguments {
		if a.Name != "" {
			args[a.Name] = "example"
		}
	}
	return rawjson.MustMarshal(map[string]any{"name": m.Name, "arguments": args}), true
}

// ModelReads says whether a resource (its URI and MIME type) is one a
// host may put before a model as text: none given, text of any kind, or
// a structured text format; not an MCP App's document (a ui:// resource,
// text/html;profile=mcp-app), which a host renders and no model reads.
func ModelReads(uri, mime string) bool {
	mime = strings.ToLower(mime)
	if uri == "" || strings.HasPrefix(strings.ToLower(uri), "ui://") || strings.Contains(mime, "profile=mcp-app") {
		return false
	}
	mime, _, _ = strings.Cut(mime, ";")
	mime = strings.TrimSpace(mime)
	return mime == "" || strings.HasPrefix(mime, "text/") || strings.HasSuffix(mime, "json") || strings.HasSuffix(mime, "+xml") ||
		mime == "application/xml" || mime == "application/yaml" || mime == "application/x-yaml" || mime == "application/javascript"
}
