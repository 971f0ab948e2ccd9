// Package demoserver builds a small MCP server used by the README examples
// and as a real peer in tests.
package demoserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/lazy"
)

// MaxBigBytes is the largest result the big tool will produce.
const MaxBigBytes = 300_000_000

const notesPrefix = "demo://notes/"

// config holds test hooks.
type config struct {
	onSlowCancel func(error)        // called when slow observes cancellation
	clockEvery   time.Duration      // how often demo://clock changes; 0 means clockInterval
	onClock      func(running bool) // called when the clock's ticker starts and stops
	opts         Options
}

// New returns the demo server.
func New() *mcp.Server { return newServer(config{}) }

// Options vary the demo server for the tests and benchmarks of a client.
type Options struct {
	// TTL, when positive, is the ttlMs of every result that may carry
	// one (server/discover's, the lists', resources/read's); the go-sdk
	// sends 0 otherwise: a client may keep nothing.
	TTL time.Duration
	// Private makes their cacheScope "private" rather than "public".
	Private bool
	// Versions, when set, are the only protocol versions it speaks (the
	// initialize era's alone, say).
	Versions []string
}

// NewWith returns the demo server as opts vary it.
func NewWith(opts Options) *mcp.Server { return newServer(config{opts: opts}) }

func newServer(cfg config) *mcp.Server {
	clk := &clock{every: cfg.clockEvery, onRunning: cfg.onClock, subs: map[*mcp.ServerSession]bool{}} // its server is set once the server exists
	clk.every = cmp.Or(max(clk.every, 0), clockInterval)
	var cacheable func(context.Context, mcp.Request, *mcp.Cacheable)
	if ttl := cfg.opts.TTL; ttl > 0 {
		cacheable = func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) {
			c.TTLMs = int(ttl / time.Millisecond)
			if cfg.opts.Private {
				c.CacheScope = "private"
			}
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpv-demo", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions:              "Demo server for mcpv. Tools: echo, add, fail, slow, big, and ask, sample, roots, log, which ask the client something or report to it. Resources under demo://; subscribe to demo://clock to hear it change. Prompts: greet, review.",
		CompletionHandler:         complete,
		SubscribeHandler:          clk.subscribe,
		UnsubscribeHandler:        clk.unsubscribe,
		SetCacheable:              cacheable,
		SupportedProtocolVersions: cfg.opts.Versions,
	})
	clk.server = s
	addTools(s, cfg)
	addAskers(s)
	addResources(s)
	addClock(s)
	addPrompts(s)
	return s
}

func text(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }

type echoIn struct {
	Message string `json:"message" jsonschema:"the text to echo back"`
}
type echoOut struct {
	Message string `json:"message" jsonschema:"the echoed text"`
}
type addIn struct {
	A float64 `json:"a" jsonschema:"first addend"`
	B float64 `json:"b" jsonschema:"second addend"`
}
type addOut struct {
	Sum float64 `json:"sum" jsonschema:"a + b"`
}
type failIn struct {
	Reason string `json:"reason,omitempty" jsonschema:"why the tool should fail"`
}
type slowIn struct {
	Seconds float64 `json:"seconds,omitempty" jsonschema:"total time to take, in seconds"`
	Steps   int     `json:"steps,omitempty" jsonschema:"number of steps (one progress notification each)"`
}
type bigIn struct {
	Bytes int `json:"bytes" jsonschema:"size of the returned text, in bytes"`
}

func addTools(s *mcp.Server, cfg config) {
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the message back."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
			return &mcp.CallToolResult{Content: text(in.Message)}, echoOut(in), nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			sum := in.A + in.B
			return &mcp.CallToolResult{Content: text(strconv.FormatFloat(sum, 'g', -1, 64))}, addOut{sum}, nil
		})

	mcp.AddTool(s, &mcp.Tool{Name: "fail", Description: "Always fail with a tool error (isError: true)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in failIn) (*mcp.CallToolResult, any, error) {
			reason := cmp.Or(in.Reason, "as asked")
			return &mcp.CallToolResult{IsError: true, Content: text("failed: " + reason)}, nil, nil
		})

	slowSchema := mustSchema[slowIn]()
	slowSchema.Properties["seconds"].Default = json.RawMessage("5")
	slowSchema.Properties["seconds"].Minimum = new(0.0)
	slowSchema.Properties["steps"].Default = json.RawMessage("5")
	slowSchema.Properties["steps"].Minimum = new(1.0)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "slow",
		Description: "Take a while, reporting progress after each step; honours cancellation.",
		InputSchema: slowSchema,
	}, func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		res, err := slow(ctx, req, in)
		if err != nil && cfg.onSlowCancel != nil {
			cfg.onSlowCancel(err)
		}
		return res, nil, err
	})

	bigSchema := mustSchema[bigIn]()
	bigSchema.Properties["bytes"].Minimum = new(0.0)
	bigSchema.Properties["bytes"].Maximum = new(float64(MaxBigBytes))
	mcp.AddTool(s, &mcp.Tool{
		Name:        "big",
		Description: "Return one text block of the given number of 'x' bytes.",
		InputSchema: bigSchema,
	}, func(_ context.Context, _ *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: text(strings.Repeat("x", in.Bytes))}, nil, nil
	})
}

func slow(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, error) {
	steps := max(in.Steps, 1)
	step := time.Duration(in.Seconds * float64(time.Second) / float64(steps))
	token := req.Params.GetProgressToken()
	timer := time.NewTimer(step)
	defer timer.Stop()
	for i := 1; i <= steps; i++ {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-timer.C:
			timer.Reset(step)
		}
		if token != nil {
			// Best effort: a failed notification must not fail the call.
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      float64(i),
				Total:         float64(steps),
				Message:       fmt.Sprintf("step %d of %d", i, steps),
			})
		}
	}
	return &mcp.CallToolResult{Content: text(fmt.Sprintf("done after %ss", strconv.FormatFloat(in.Seconds, 'g', -1, 64)))}, nil
}

func mustSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	return s
}

const readme = `# mcpv demo server

A small MCP server for trying out mcpv.

- Tools: echo, add, fail, slow, big
- Resources: demo://readme, demo://logo.png, demo://clock (subscribe to it), demo://notes/{id}
- Prompts: greet, review
`

// logoPNG is a tiny 8x8 PNG, encoded once.
var logoPNG = &lazy.Value[[]byte]{New: func() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 8, 8))
	for y := range 8 {
		for x := range 8 {
			img.Set(x, y, color.NRGBA{R: uint8(32 * x), G: uint8(32 * y), B: 200, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic(err)
	}
	return buf.Bytes()
}}

func addResources(s *mcp.Server) {
	s.AddResource(&mcp.Resource{
		URI: "demo://readme", Name: "readme", Title: "Demo README",
		Description: "About this demo server.", MIMEType: "text/markdown",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: "text/markdown", Text: readme},
		}}, nil
	})
	s.AddResource(&mcp.Resource{
		URI: "demo://logo.png", Name: "logo", Title: "Demo logo",
		Description: "A tiny PNG image.", MIMEType: "image/png",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: req.Params.URI, MIMEType: "image/png", Blob: logoPNG.Get()},
		}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: notesPrefix + "{id}", Name: "note", Title: "Note by id",
		Description: "A note; reading demo://notes/ID returns \"note ID\".", MIMEType: "text/plain",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		raw, ok := strings.CutPrefix(uri, notesPrefix)
		id, err := url.PathUnescape(raw)
		if !ok || err != nil || id == "" {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: uri, MIMEType: "text/plain", Text: "note " + id},
		}}, nil
	})
}

func addPrompts(s *mcp.Server) {
	s.AddPrompt(&mcp.Prompt{
		Name: "greet", Description: "Ask for a greeting.",
		Arguments: []*mcp.PromptArgument{{Name: "name", Description: "who to greet", Required: true}},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		name := req.Params.Arguments["name"]
		if name == "" {
			return nil, missingArg("name")
		}
		return userMessage("Greeting", "Say hello to "+name+"."), nil
	})
	s.AddPrompt(&mcp.Prompt{
		Name: "review", Description: "Ask for a code review.",
		Arguments: []*mcp.PromptArgument{
			{Name: "code", Description: "the code to review", Required: true},
			{Name: "language", Description: "programming language of the code"},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		code := req.Params.Arguments["code"]
		if code == "" {
			return nil, missingArg("code")
		}
		what := "this code"
		if lang := req.Params.Arguments["language"]; lang != "" {
			what = "this " + lang + " code"
		}
		return userMessage("Code review", "Please review "+what+":\n\n"+code), nil
	})
}

func userMessage(desc, msg string) *mcp.GetPromptResult {
	return &mcp.GetPromptResult{
		Description: desc,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: msg}}},
	}
}

func missingArg(name string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("missing required argument %q", name)}
}

var (
	languages = []string{"bash", "c", "cpp", "go", "java", "javascript", "python", "rust", "typescript"}
	noteIDs   = []string{"1", "7", "12", "42"}
)

// complete offers values for the review prompt's language argument and the
// note template's id.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var candidates []string
	ref, arg := req.Params.Ref, req.Params.Argument.Name
	switch {
	case ref.Type == "ref/prompt" && ref.Name == "review" && arg == "language":
		candidates = languages
	case ref.Type == "ref/resource" && ref.URI == notesPrefix+"{id}" && arg == "id":
		candidates = noteIDs
	}
	values := []string{}
	for _, v := range candidates {
		if strings.HasPrefix(v, strings.ToLower(req.Params.Argument.Value)) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}
