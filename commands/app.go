package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/apphost"
	"github.com/mcpv/mcpv/internal/apps"
	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/mcp"
)

type appCmd struct {
	callArgs
	Call    bool `name:"call" help:"Call the tool; check what the app is given."`
	MaxSize int  `name:"max-size" placeholder:"BYTES" default:"5242880" min:"1" help:"The largest app HTML taken, in bytes."`

	Open       bool     `name:"open" help:"Render the app in the browser until it ends."`
	NoBrowser  bool     `name:"no-browser" help:"With --open: open no browser; print the URL."`
	Listen     string   `name:"listen" placeholder:"127.0.0.1:PORT" help:"With --open: the page's address (loopback)."`
	Yes        bool     `name:"yes" help:"With --open: let the app call tools unasked."`
	Grant      []string `name:"permission" sep:"," placeholder:"PERMISSION" help:"With --open: grant the app this permission."`
	AllowLinks bool     `name:"allow-links" help:"With --open: open the app's http(s) links."`

	AllowTools     []string `name:"allow-tools" sep:"," placeholder:"GLOB" help:"With --open: the only tools the app may call."`
	DenyTools      []string `name:"deny-tools" sep:"," placeholder:"GLOB" help:"With --open: tools the app may never call."`
	AllowResources []string `name:"allow-resources" sep:"," placeholder:"GLOB" help:"With --open: the only resources it may read."`
	DenyResources  []string `name:"deny-resources" sep:"," placeholder:"GLOB" help:"With --open: resources it may never read."`
	ReadOnly       bool     `name:"read-only" help:"With --open: only tools saying readOnlyHint."`
}

func (c *appCmd) Help() string {
	return `Checks the app a tool carries (MCP Apps: the ui:// HTML its _meta.ui.resourceUri names) as the extension requires and prints what a host would do with it; with arguments (or --call) the tool is called too. Exit 0 for a valid app, 1 for an invalid one, 3 when the tool has none. --open renders it in your browser, sandboxed, a JSON line per thing it does, until it ends or Ctrl-C. 'mcpv help mcp-apps' says what is checked, the report, how --open hosts it.

Examples:

    $ mcpv app get_weather -- ./server
    $ mcpv app get_weather location=Paris -q .call.result -- ./server
    $ mcpv app get_weather -r -q '.problems[] | "\(.level) \(.message)"' -u $URL
    $ mcpv app get_weather location=Paris --open -- ./server
    $ mcpv app get_weather --open --no-browser --listen 127.0.0.1:8808 -u $URL`
}

// appsTopic is 'mcpv help mcp-apps': what app's help leaves out.
const appsTopic = `MCP Apps (the io.modelcontextprotocol/ui extension): a tool names, in _meta.ui.resourceUri, a ui:// resource of HTML that a host renders in a sandboxed frame.

Without --open, mcpv app finds the tool, reads its app's resource and checks it as the extension requires: the ui:// scheme, the media type (text/html;profile=mcp-app), text or a base64 blob, an HTML5 document, its size (--max-size), the content security policy it declares (each domain an origin; none that admits everything) and the permissions it asks for. It prints what a host would do with it:

    {"tool", "resourceUri", "visibility", "valid", "resource": {...},
     "host": {"sandbox", "csp", ...}, "appTools": [...],
     "problems": [{"level", "rule", "message"}]}

With arguments (or --call) the tool is called too, and "call" shows what the app would be given (ui/notifications/tool-input and tool-result); a result without text for the hosts that show no app is a problem.

Exit 0 for a valid app (warnings are printed on stderr), 1 for an invalid one (the report is printed, and each error on stderr), 3 when the tool carries no app or the server lists no such tool.

--open renders the app in your browser: a host page on 127.0.0.1 (one origin) frames a sandbox proxy (another), which frames the app's HTML with scripts alone allowed, under the policy it declared. The tool is called with the arguments given; the app gets them and the result, and may call tools (those whose visibility includes "app", within --allow-tools, --deny-tools and --read-only, and the config entry's guard; under a pin, only what did not move since; a tool that does not say readOnlyHint only once you agree on the terminal, or with --yes), read resources (within --allow-resources and --deny-resources), send messages and log: each is a JSON line on stdout. The app never sees mcpv's token or origin, and each of its messages is bounded. It runs until the app asks to end (exit 0), the page is closed, or Ctrl-C (exit 130).

With --open: --no-browser prints the page's address on stderr instead of opening a browser; --listen 127.0.0.1:PORT serves the page at that loopback address (a free port by default); --yes lets the app call tools that do not say readOnlyHint without asking first; --permission grants the app a permission it asks for (camera, microphone, geolocation, clipboardWrite; repeatable or comma-separated); --allow-links opens in the browser the http(s) links the app asks to open (ui/open-link), which are refused otherwise. The guard flags take globs (* any run, ? one character), comma-separated or repeated.`

func (c *appCmd) Validate() error {
	if !c.Open && (c.NoBrowser || c.Listen != "" || c.Yes || c.Grant != nil || c.AllowLinks || c.AllowTools != nil || c.DenyTools != nil ||
		c.AllowResources != nil || c.DenyResources != nil || c.ReadOnly) {
		return fmt.Errorf("--no-browser, --listen, --yes, --permission, --allow-links and the guard flags go with --open")
	}
	for _, g := range c.Grant {
		if !slices.Contains(apps.PermissionNames(), g) {
			return fmt.Errorf("--permission %s: the extension defines the permissions %v", g, apps.PermissionNames())
		}
	}
	return callLean{c.callArgs}.full().Validate()
}

// appInvalid is an app that breaks the extension (exit 1): the report
// says how.
type appInvalid struct {
	tool  string
	first string
	n     int
	open  bool
}

func (e appInvalid) Error() string {
	what := fmt.Sprintf("the app of tool %q is invalid", e.tool)
	if e.open {
		what += ", and is not rendered"
	}
	if e.n > 1 {
		return fmt.Sprintf("%s: %d problems, the first: %s", what, e.n, e.first)
	}
	return what + ": " + e.first
}

func (c *appCmd) Run(ctx context.Context, s *session, out *console) error {
	if c.Open && out.embedded {
		return usageErrorf("app --open renders the app in a browser until it ends: not in a batch or a test step")
	}
	cc := callLean{c.callArgs}.full()
	base, readFile, err := cc.inputs(out)
	if err != nil {
		return err
	}
	client, err := s.client(ctx)
	if err != nil {
		return err
	}
	if ce, ok := errors.AsType[*mcp.CapabilityError](client.RequireExtension(mcp.UIExtension, "app")); ok && ce.Off {
		return ce
	}
	if err := client.Require("tools", "tools/list"); err != nil {
		return err
	}
	tools, def, err := c.findTool(ctx, s, client)
	if err != nil {
		return err
	}
	a, ok := apps.OfTool(def.Raw)
	if !ok {
		return &refusal{fmt.Sprintf("tool %q carries no app: its _meta names no ui:// resource (_meta.ui.resourceUri)", c.Tool)}
	}
	if err := s.pinApp(ctx, client, c.Tool, def.Raw, false, nil); err != nil {
		return err // what the tool says of its app, before its document is read
	}
	if err := s.pinResource(ctx, client, a.ResourceURI); err != nil {
		return err
	}
	report, rs, res, err := c.check(ctx, client, a, tools)
	if err != nil {
		return err
	}
	if err := s.pinApp(ctx, client, c.Tool, def.Raw, true, res); err != nil {
		return err
	}
	called := c.Call || len(c.Pairs) > 0 || c.ArgsJSON != ""
	var args json.RawMessage
	if called || c.Open {
		if args, err = cc.arguments(ctx, s, out, base, def, readFile); err != nil {
			return err
		}
	}
	if called && !c.Open {
		res, err := s.sendTool(ctx, client, c.Tool, def, toolcall.Params(c.Tool, args, nil))
		if err != nil {
			return err
		}
		report.AddCall(args, res)
	}
	invalid := appInvalid{tool: report.Tool, open: c.Open} // the report's errors counted, the first named
	for _, p := range report.Problems {
		if p.Level == apps.Error {
			if invalid.n == 0 {
				invalid.first = p.Message
			}
			invalid.n++
		}
	}
	for _, p := range report.Problems {
		switch {
		case p.Level == apps.Warning:
			out.warnf("app: %s (%s)", p.Message, p.Rule)
		case p.Level == apps.Error && invalid.n > 1: // one alone is the last line's
			out.notef("app: error: %s (%s)", p.Message, p.Rule)
		}
	}
	if !report.Valid || !c.Open {
		if err := out.print(mustJSON(report)); err != nil || report.Valid {
			return err
		}
		return invalid
	}
	return c.open(ctx, s, client, out, tools, def, a, rs, args)
}

// findTool lists every tool and finds the one named, its copies counted
// by their name before one is decoded (mcp.ToolName): a name listed
// twice is refused as such though its first copy does not decode.
func (c *appCmd) findTool(ctx context.Context, s *session, client *mcp.Client) ([]json.RawMessage, mcp.Tool, error) {
	var tools []json.RawMessage
	var def mcp.Tool
	var names []string
	for page, err := range client.Walk(ctx, "tools/list", "tools", 0) {
		if err != nil {
			return nil, def, err
		}
		tools = append(tools, page.Items...)
		for _, raw := range page.Items {
			if t, ok := mcp.ParseTool(raw); ok {
				names = append(names, t.Name)
				if t.Name == c.Tool && def.Name == "" {
					def = t
				}
			}
		}
	}
	first, n := listedAs(tools, "name", c.Tool)
	if n > 1 || def.Name != "" {
		if err := s.checkPinListed(client, pin.Tool, c.Tool, first, n); err != nil {
			return nil, def, err
		}
	}
	if def.Name == "" {
		return nil, def, &refusal{fmt.Sprintf("the server lists no tool %q%s (see mcpv list-tools)", c.Tool, suggest.DidYouMean(c.Tool, names))}
	}
	return tools, def, nil
}

// check reads the app's resource and checks it, with the resource's
// entry in resources/list when its content declares no metadata; res is
// what was read (nil when the server would not give it).
func (c *appCmd) check(ctx context.Context, client *mcp.Client, a apps.ToolApp, tools []json.RawMessage) (_ apps.Report, _ apps.Resource, res json.RawMessage, _ error) {
	res, err := client.Call(ctx, "resources/read", mustJSON(map[string]string{"uri": a.ResourceURI}))
	readErr := ""
	if ce, ok := errors.AsType[*mcp.CallError](err); ok {
		readErr = ce.Err.Error()
	} else if err != nil {
		return apps.Report{}, apps.Resource{}, nil, err
	}
	report, rs := apps.Check(a, tools, res, readErr, nil, c.MaxSize)
	if readErr == "" && rs.MetaFrom == "" && client.HasCapability("resources") {
		if listing, err := listedResource(ctx, client, a.ResourceURI); err == nil && listing != nil {
			report, rs = apps.Check(a, tools, res, readErr, listing, c.MaxSize)
		}
	}
	if !client.HasExtension(mcp.UIExtension) {
		report.Problems = append(report.Problems, apps.Problem{Level: apps.Warning, Rule: "apps.declared",
			Message: "the server does not declare the " + mcp.UIExtension + " extension in its capabilities, though its tool carries an app; a host that holds to the negotiation shows none"})
	}
	if !client.HasCapability("resources") {
		report.Problems = append(report.Problems, apps.Problem{Level: apps.Warning, Rule: "apps.resources",
			Message: "the server does not declare the resources capability, through which a host reads the app"})
	}
	return report, rs, res, nil
}

// listedResource is uri's entry in resources/list, or nil.
func listedResource(ctx context.Context, client *mcp.Client, uri string) (json.RawMessage, error) {
	for page, err := range client.Walk(ctx, "resources/list", "resources", 0) {
		if err != nil {
			return nil, err
		}
		for _, raw := range page.Items {
			var r struct {
				URI string `json:"uri"`
			}
			if json.Unmarshal(raw, &r) == nil && r.URI == uri {
				return raw, nil
			}
		}
	}
	return nil, nil
}

// confirm asks the user on the terminal whether the app may do something.
func confirm(s *session) func(ctx context.Context, question string) (bool, error) {
	term := s.hooks.Terminal()
	if term == nil {
		return nil
	}
	return func(ctx context.Context, question string) (bool, error) {
		release, err := term.Turn(ctx)
		if err != nil {
			return false, err
		}
		defer release()
		if _, err := io.WriteString(term, "mcpv: "+safetext.Line(question)); err != nil {
			return false, err
		}
		line, err := term.ReadLine(ctx)
		if err != nil {
			return false, err
		}
		line = strings.ToLower(strings.TrimSpace(line))
		return line == "y" || line == "yes", nil
	}
}

// events prints the lines of --open, one JSON value a line, as watch does.
type events struct {
	mu  sync.Mutex // guards out and err: one line at a time
	out *console
	err error // the first failure to print (a closed stdout)
}

func (e *events) line(v any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err != nil {
		return
	}
	p := *e.out.printer
	p.Format.Pretty = e.out.flags.Pretty
	e.out.ios.Status.Clear()
	if err := p.Print(mustJSON(v)); err != nil {
		e.err = err
	}
}

func (c *appCmd) open(ctx context.Context, s *session, client *mcp.Client, out *console, tools []json.RawMessage, def mcp.Tool, a apps.ToolApp, rs apps.Resource, args json.RawMessage) error {
	ev := &events{out: out}
	byName := map[string]json.RawMessage{}
	for _, t := range tools {
		if pt, ok := mcp.ParseTool(t); ok && byName[pt.Name] == nil {
			byName[pt.Name] = t
		}
	}
	for _, p := range rs.Meta.Permissions {
		if !slices.Contains(c.Grant, p) {
			out.notef("the app asks for the %s permission, which is not granted (--permission %s)", p, p)
		}
	}
	// What the app may call and read: the flags' guard, and the config entry's.
	guard := s.guards(config.Guard{AllowTools: c.AllowTools, DenyTools: c.DenyTools, AllowResources: c.AllowResources,
		DenyResources: c.DenyResources, ReadOnly: c.ReadOnly})
	bridge := &apphost.Bridge{
		Tools:         byName,
		Relay:         pinnedRelay(s, client, tools),
		AllowTool:     guard.AllowsTool,
		AllowResource: guard.AllowsResource,
		ReadOnly:      serve.ToolReadOnly,
		Yes:           c.Yes,
		Confirm:       confirm(s),
		Record:        func(line map[string]any) { ev.line(line) },
	}
	if c.AllowLinks {
		bridge.OpenLink = s.hooks.OpenURL
	}
	h := &apphost.Host{
		App: apphost.App{Tool: def.Raw, ToolName: c.Tool, ResourceURI: a.ResourceURI, Arguments: args, HTML: rs.HTML, Meta: rs.Meta,
			Granted: c.Grant, ServerTools: client.HasCapability("tools"), ServerResources: client.HasCapability("resources")},
		Call: func(ctx context.Context) (json.RawMessage, error) {
			res, err := s.sendTool(ctx, client, c.Tool, def, toolcall.Params(c.Tool, args, nil))
			if err == nil {
				ev.line(map[string]any{"event": "tool-result", "arguments": args, "result": res})
			} else {
				ev.line(map[string]any{"event": "tool-error", "arguments": args, "error": err.Error()})
			}
			return res, err
		},
		Request: bridge.Request,
		Event:   bridge.Event,
		Notef:   out.notef,
		Listen:  c.Listen,
		Info:    mcp.Implementation{Name: "mcpv", Version: Version},
	}
	if !c.NoBrowser {
		h.Open = s.hooks.OpenURL
	}
	err := h.Run(ctx)
	if ev.err != nil {
		return ev.err
	}
	if errors.Is(err, apphost.ErrPageGone) {
		out.notef("the app's page was closed")
		return nil
	}
	return err
}

// pinnedRelay is the app's way to the server, holding what it calls and
// reads to the session's pin (when there is one) as a command of the
// user's would be: a tool or resource that moved since it was pinned, or
// is listed twice, or a tool whose _meta.ui moved (a visibility widened
// to let apps call it), is refused and nothing is sent for it. tools are
// every definition listed.
func pinnedRelay(s *session, client *mcp.Client, tools []json.RawMessage) func(context.Context, string, json.RawMessage) (json.RawMessage, error) {
	return func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		var p struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
		}
		if len(params) > 0 && json.Unmarshal(params, &p) != nil {
			return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: "params of the wrong type"}
		}
		var err error
		switch method {
		case "tools/call":
			first, n := listedAs(tools, "name", p.Name)
			if err = s.checkPinListed(client, pin.Tool, p.Name, first, n); err == nil && n == 1 {
				err = s.pinApp(ctx, client, p.Name, first, false, nil)
			}
		case "resources/read":
			err = s.pinResource(ctx, client, p.URI)
		}
		if err != nil {
			return nil, err
		}
		return client.Call(ctx, method, params)
	}
}
