package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/mcpv/mcpv/content"
	"github.com/mcpv/mcpv/elicit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/oauth"
	"github.com/mcpv/mcpv/output"
	"github.com/mcpv/mcpv/redact"
)

// app is what every command's Run receives: the streams, the parsed global
// flags, the server command line, and the session once it is open.
type app struct {
	ios       *output.Streams
	flags     *cli
	server    []string        // the words after --
	target    *target         // the server, once resolved
	explicit  map[string]bool // the flags given on the command line
	batch     *batchState     // set while a batch runs
	untrusted bool            // the server is an untrusted project file's HTTP entry
	tools     *mcp.ToolCache  // tool definitions by name, kept for a batch
	environ   []string
	getenv    func(string) string

	client  *mcp.Client
	events  *eventLog
	roots   json.RawMessage // the answer to roots/list, when --root was given
	elicit  *elicit.Options // answers elicitation/create
	closers []func() error  // files to close at exit (the terminal)

	listenMu  sync.Mutex // guards listeners
	listeners []func(method string, params json.RawMessage)
}

// connect starts the server and initializes the session. It is called by a
// command's Run once the command has checked everything that needs no server.
func (a *app) connect(ctx context.Context) (*mcp.Client, error) {
	if a.client != nil {
		return a.client, nil // a batch line: the session is open
	}
	f := &a.flags.serverFlags
	cf := &a.flags.clientFlags
	if cf.Events != "" && a.events == nil {
		ev, err := openEventLog(cf.Events)
		if err != nil {
			return nil, err
		}
		a.events = ev
	}
	caps, err := a.capabilities()
	if err != nil {
		return nil, err
	}
	t, err := a.transport()
	if err != nil {
		return nil, err
	}
	sopts := mcp.SessionOptions{Log: output.NewLogger(a.ios.Err), Handler: a.serveRequest, OnNotification: a.onNotification}
	if f.Verbose {
		sopts.Trace = tracer(a.ios.Err)
	}
	s := mcp.NewSession(t, sopts)

	ictx := ctx
	if f.ConnectTimeout > 0 {
		var cancel context.CancelFunc
		ictx, cancel = context.WithTimeoutCause(ctx, f.ConnectTimeout,
			&mcp.TimeoutError{Method: "initialize", Timeout: f.ConnectTimeout})
		defer cancel()
	}
	c, err := mcp.Initialize(ictx, s, mcp.ClientOptions{
		Info:            mcp.Implementation{Name: "mcpv", Version: Version},
		ProtocolVersion: f.ProtocolVersion,
		Capabilities:    caps,
		Timeout:         f.Timeout,
		MaxTimeout:      cf.MaxTimeout,
	})
	if err != nil {
		s.Close(context.Background())
		return nil, err
	}
	a.client = c
	if err := a.setLogLevel(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}

// transport starts the stdio server or prepares the HTTP connection.
func (a *app) transport() (mcp.Transport, error) {
	f := &a.flags.serverFlags
	t := a.target
	if t.url != "" {
		h, err := headers(f.Header)
		if err != nil {
			return nil, err
		}
		for name, vals := range t.header {
			if h.Get(name) == "" { // -H overrides the config entry
				h[name] = vals
			}
		}
		client, err := a.authorizedClient(h)
		if err != nil {
			return nil, err
		}
		opts := mcp.HTTPOptions{URL: t.url, Client: client, Header: h, Mode: t.mode, Log: output.NewLogger(a.ios.Err)}
		if f.Verbose {
			opts.Trace = func(line string) { fmt.Fprintf(a.ios.Err, "mcpv: http: %s\n", line) }
		}
		tr, err := mcp.NewHTTPTransport(opts)
		if err != nil {
			return nil, usageError{err}
		}
		return tr, nil
	}
	opts := mcp.CommandOptions{
		Path: t.command[0],
		Args: t.command[1:],
		Env:  t.env,
		Dir:  t.dir,
		Log:  output.NewLogger(a.ios.Err),
	}
	if !f.Quiet {
		opts.Stderr = a.ios.Err
	}
	return mcp.StartCommand(opts)
}

// authorizedClient is the HTTP client for the server: with the OAuth layer
// unless --auth none or the user sends an Authorization header of their own.
func (a *app) authorizedClient(h http.Header) (*http.Client, error) {
	plain, err := httpClient(a.flags.CACert)
	if err != nil {
		return nil, err
	}
	mode := a.authMode()
	if mode == "none" || h.Get("Authorization") != "" {
		return plain, nil
	}
	m, err := a.oauthManager(plain, mode)
	if errors.Is(err, oauth.ErrBadServerURL) {
		return plain, nil // the transport says what is wrong with the URL
	}
	if err != nil {
		return nil, err
	}
	authorized := *plain
	authorized.Transport = m
	return &authorized, nil
}

// close ends the session, if one was opened, within the transport's bounds.
func (a *app) close() {
	if a.client != nil {
		a.client.Close(context.Background()) // delivers every queued notification first
	}
	a.ios.Status.Clear()
	if a.events != nil {
		a.events.close()
	}
	for _, c := range a.closers {
		c()
	}
}

// setLogLevel sends --log-level when the server declares logging.
func (a *app) setLogLevel(ctx context.Context, c *mcp.Client) error {
	level := a.flags.LogLevel
	if level == "" {
		return nil
	}
	if !c.HasCapability("logging") {
		fmt.Fprintf(a.ios.Err, "mcpv: warning: the server does not declare logging; --log-level %s not sent\n", level)
		return nil
	}
	_, err := c.Call(ctx, "logging/setLevel", mustJSON(map[string]string{"level": level}))
	return err
}

// request connects, checks that the server declared capability, sends the
// request and returns its raw result.
func (a *app) request(ctx context.Context, capability, method string, params json.RawMessage) (json.RawMessage, error) {
	client, err := a.connect(ctx)
	if err != nil {
		return nil, err
	}
	if err := client.Require(capability, method); err != nil {
		return nil, err
	}
	return client.Call(ctx, method, params)
}

// printResult writes a result, after --save-dir has put its binary blocks in
// files, as JSON or (--text) as the text of its blocks.
func (a *app) printResult(res json.RawMessage, text bool, saveDir string) error {
	if saveDir != "" {
		saved, _, err := content.Save(res, saveDir)
		if err != nil {
			return fmt.Errorf("--save-dir: %w", err)
		}
		res = saved
	}
	if !text {
		return a.print(res)
	}
	s, err := content.Text(res)
	if err != nil {
		return fmt.Errorf("--text: %w", err)
	}
	a.ios.Status.Clear()
	if s != "" && s[len(s)-1] != '\n' {
		s += "\n"
	}
	if _, err := io.WriteString(a.ios.Out, s); err != nil {
		return &output.ClosedError{Err: err}
	}
	return nil
}

// print writes a result to stdout through the --jq filter and format flags.
func (a *app) print(raw json.RawMessage) error {
	a.ios.Status.Clear()
	return a.flags.outputFlags.printer(a.ios, a.getenv).Print(raw)
}

// tracer writes each JSON-RPC message on stderr, clipped so a huge message
// cannot flood the terminal; the clip is announced, never silent.
func tracer(w io.Writer) func(out bool, msg []byte) {
	const max = 4096
	return func(out bool, msg []byte) {
		dir := "<-"
		if out {
			dir = "->"
		}
		// Clip first: masking scans what is shown, not a 100 MB message.
		if len(msg) > max {
			fmt.Fprintf(w, "mcpv: %s %s… (%d more bytes)\n", dir, redact.JSON(msg[:max]), len(msg)-max)
			return
		}
		fmt.Fprintf(w, "mcpv: %s %s\n", dir, redact.JSON(msg))
	}
}
