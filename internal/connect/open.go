package connect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/serverstate"
	"github.com/mcpv/mcpv/mcp"
)

// Conn is an open session: the initialized client and what came with it.
type Conn struct {
	Client *mcp.Client
	// Tools caches the tool definitions for the whole session; it is
	// emptied when the server says its tools changed.
	Tools *mcp.ToolCache
	// Kept is what is kept of the server between runs (Hooks.Remember);
	// nil when nothing is.
	Kept *serverstate.Store

	notes   *notifier
	hooks   Hooks
	verbose bool
	probed  bool // the era was the server's to say (--protocol-era auto)
	wait    *startWait

	http     *mcp.HTTPTransport // the HTTP transport, for Keep
	settings *Settings
	env      Env
}

// Open starts the server (or prepares the HTTP connection), initializes the
// session and sends --log-level. ctx bounds every step; ConnectTimeout
// bounds start-up and initialize. On failure nothing is left running.
func Open(ctx context.Context, s *Settings, env Env, h Hooks) (*Conn, error) {
	h = h.withDefaults().traced(s)
	ans, err := newAnswerer(s, env, h)
	if err != nil {
		return nil, err
	}
	if s.ResumeSession != "" {
		return resume(s, env, h, ans)
	}
	c, err := open(ctx, s, env, h, ans, false)
	if errors.Is(err, errStartAgain) && ctx.Err() == nil {
		// A server of the initialize era that ends on any first message
		// but initialize (rmcp's do): started again, and sent initialize
		// first. The era is remembered as a probe's would be, so the next
		// run starts it once. Said, unless the server's stderr is hidden:
		// its complaint is shown above, and the command goes on.
		if !s.Quiet {
			fmt.Fprintf(h.Stderr, "mcpv: the server ended on server/discover, the probe of its era: started again, with initialize first\n")
		}
		return open(ctx, s, env, h, ans, true)
	}
	return c, err
}

// errStartAgain marks the end of a stdio server that took the probe of
// its era for the client's fault: its last words on stderr name
// server/discover, what it would not take before initialize. A server
// that ends for any other reason (a missing key, a module not found, a
// client it failed to initialize) is not started again: the user would
// read its complaint twice, and wait twice for it.
var errStartAgain = errors.New("the server ended on the probe of its era, wanting initialize first")

// endedOnProbe wraps err with errStartAgain where t is a stdio server
// that ended on the probe, naming it.
func endedOnProbe(err error, t mcp.Transport) error {
	ct, ok := t.(*mcp.CommandTransport)
	if ended := (*mcp.EndedOnProbeError)(nil); !ok || !errors.As(err, &ended) {
		return err
	}
	// All its stderr still kept, not its last lines: a Rust server's
	// backtrace follows the line that names the probe.
	for _, line := range ct.StderrTail(1 << 10) {
		if strings.Contains(line, "server/discover") {
			return fmt.Errorf("%w: %w", errStartAgain, err)
		}
	}
	return err
}

// open is Open's one start of the server; initializeFirst sends it
// initialize first, with no probe, even in --protocol-era auto.
func open(ctx context.Context, s *Settings, env Env, h Hooks, ans *answerer, initializeFirst bool) (*Conn, error) {
	wait := new(startWait)
	h.OpenURL = wait.signingIn(h.OpenURL)
	clocks := &startClocks{after: env.afterFunc}
	h.waiting = clocks.pause // a browser login is not the server's time
	begin := time.Now()
	t, err := transport(s, env, h, wait)
	if err != nil {
		return nil, err
	}
	if ct, ok := t.(*mcp.CommandTransport); ok {
		wait.built = watchBuild(ct, clocks, wait) // until the server speaks, or the wait ends (Open fails, the session closes)
	}
	wait.show(s, h, t, begin)
	h.ReadGate = wait.heard(h.ReadGate)
	kept := remember(ctx, s, env, h)
	c, session := newConn(s, h, ans, t, kept, false)
	c.wait, c.settings, c.env = wait, s, env
	c.http, _ = t.(*mcp.HTTPTransport)

	caps := ans.capabilities()
	if h.AwaitCapabilities != nil {
		if caps, err = awaitCapabilities(ctx, session, h.AwaitCapabilities); err != nil {
			closeStartup(session)
			return nil, err
		}
	}
	ictx := ctx
	if s.ConnectTimeout > 0 {
		var stop context.CancelFunc
		ictx, stop = clocks.start(ctx, s.ConnectTimeout,
			&mcp.TimeoutError{Connect: true, Setting: "--connect-timeout", Timeout: s.ConnectTimeout})
		defer stop()
	}
	version := s.ProtocolVersion
	if s.ProtocolEra == "modern" && version == "" {
		version = mcp.ModernVersion
	}
	opts := clientOptions(s, env, h, caps)
	opts.ProtocolVersion = version
	opts.Probe = s.ProtocolEra == "auto" && !initializeFirst
	opts.Relayed = h.Capabilities != nil || h.AwaitCapabilities != nil
	if kept != nil {
		if kept.Ignored != "" && s.Verbose {
			fmt.Fprintf(h.Stderr, "mcpv: what was kept of the server is not used: %s\n", safetext.Line(kept.Ignored))
		}
		opts.Lists = kept
		c.probed = (opts.Probe || initializeFirst) && version == ""
		if s.Verbose {
			kept.Trace = func(line string) { fmt.Fprintf(h.Stderr, "mcpv: %s\n", line) }
		}
		if opts.Probe && version == "" {
			opts.Recall = kept.Recall()
			if s.ConnectTimeout > 0 {
				opts.ConnectLimit = &mcp.TimeoutError{Connect: true, Setting: "--connect-timeout", Timeout: s.ConnectTimeout}
				opts.StartClock = clocks.start
			}
		}
	}
	client, err := mcp.Initialize(ictx, session, opts)
	if err != nil {
		wait.stop()
		if ce := (*mcp.ChangedError)(nil); kept != nil && errors.As(err, &ce) {
			kept.ForgetEra()
			kept.Save()
		}
		startupHint(err, s, t)
		// A server that did not get through start-up (timed out,
		// interrupted, refused) gets a short goodbye, not the full grace
		// periods: the user asked to stop, or it has shown it is not
		// answering.
		closeStartup(session)
		if !initializeFirst {
			err = endedOnProbe(err, t)
		}
		return nil, err
	}
	c.Client = client
	c.noteEra()
	if kept != nil {
		kept.Opened(client.State())
	}
	if err := c.setLogLevel(ctx, s.Answers.LogLevel); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Attach opens a session another process negotiated (a session keeper)
// over t, as st describes it: nothing is sent, and the server's requests
// that reach t are answered as Open's are.
func Attach(s *Settings, env Env, h Hooks, t mcp.Transport, st mcp.State) (*Conn, error) {
	h = h.withDefaults().traced(s)
	ans, err := newAnswerer(s, env, h)
	if err != nil {
		t.Close(context.Background())
		return nil, err
	}
	c, session := newConn(s, h, ans, t, nil, true)
	c.Client = mcp.Attach(session, clientOptions(s, env, h, ans.capabilities()), st)
	return c, nil
}

// clientOptions are the options of every client a command opens, new,
// attached or resumed: who mcpv is, what it declares (caps), and the
// user's bounds, log level and trace, on env's clock.
func clientOptions(s *Settings, env Env, h Hooks, caps json.RawMessage) mcp.ClientOptions {
	return mcp.ClientOptions{
		Info:         h.Client,
		Capabilities: caps,
		NoExtensions: s.NoExtensions,
		Timeout:      s.Timeout,
		MaxTimeout:   s.MaxTimeout,
		LogLevel:     s.Answers.LogLevel, // the modern era sends it with each request
		TraceParent:  h.traceParent(),
		AfterFunc:    env.AfterFunc,
	}
}

// awaitCapabilities asks await for the capabilities to declare, with a
// context that ends when the session does (a server that dies while its
// client has yet to speak).
func awaitCapabilities(ctx context.Context, session *mcp.Session, await func(context.Context) (json.RawMessage, error)) (json.RawMessage, error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	go func() { // capabilities wait's session watcher: ends with the wait: the session's end cuts it short
		select {
		case <-session.Done():
			cancel(session.Err())
		case <-ctx.Done():
		}
	}()
	caps, err := await(ctx)
	if err != nil && ctx.Err() != nil && session.Err() != nil {
		return nil, session.Err()
	}
	return caps, err
}

// newConn starts the session on t: the server's requests answered, its
// notifications shown. kept is what is kept of the server between runs
// (nil: nothing); keeper says that t leads to a session keeper, which
// answers itself the questions of a command that leaves.
func newConn(s *Settings, h Hooks, ans *answerer, t mcp.Transport, kept *serverstate.Store, keeper bool) (*Conn, *mcp.Session) {
	c := &Conn{Tools: &mcp.ToolCache{}, hooks: h, Kept: kept, verbose: s.Verbose}
	c.notes = &notifier{hooks: h, quiet: s.Quiet, tools: c.Tools, kept: kept}
	sopts := mcp.SessionOptions{Log: h.Log, Handler: ans.handler(), OnNotification: c.notes.notify, ReadGate: h.ReadGate, NoteBackPressure: h.NoteBackPressure, LeaveQuestions: keeper, OnDropped: h.OnDropped}
	if h.Events != nil {
		sopts.Record = h.Events.Write // every one, as read: never dropped
	}
	if s.Verbose {
		sopts.Trace = tracer(h.Stderr)
	}
	if h.Trace != nil {
		sopts.Trace = also(sopts.Trace, h.Trace)
	}
	if sent := h.Sent; sent != nil {
		// First: what a message sends under a secret's name is masked
		// before anything writes it, and before its answer can echo it.
		sopts.Trace = also(func(out bool, msg []byte) {
			if out {
				if secrets := redact.Sent(msg); len(secrets) > 0 {
					sent(secrets...)
				}
			}
		}, sopts.Trace)
	}
	return c, mcp.NewSession(t, sopts)
}

// startupCloseWait bounds the stop of a server whose start-up failed: stdin
// closed (or the HTTP session deleted), then, at the end, SIGKILL.
const startupCloseWait = 500 * time.Millisecond

// closeStartup stops the session of a start-up that failed, within startupCloseWait.
func closeStartup(session *mcp.Session) {
	cctx, cancel := context.WithTimeout(context.Background(), startupCloseWait)
	defer cancel()
	session.Close(cctx)
}

// transport starts the stdio server or prepares the HTTP connection; the
// stdio server's stderr redraws wait's line, which quotes it unless quiet.
func transport(s *Settings, env Env, h Hooks, wait *startWait) (mcp.Transport, error) {
	if s.URL != "" {
		opts, err := httpOptions(s, env, h)
		if err != nil {
			return nil, err
		}
		tr, err := mcp.NewHTTPTransport(opts)
		if err != nil {
			return nil, errkind.Usage(err)
		}
		return tr, nil
	}
	opts := mcp.CommandOptions{Path: s.Command[0], Args: s.Command[1:], Env: s.Env, Dir: s.Dir, Log: h.Log, Groups: h.Groups, Framing: s.Framing, MaxMessage: s.MaxMessage, Grace: env.Grace,
		Mask: s.MaskLine, OnEvent: h.onEvent()}
	if h.Mask != nil {
		opts.Mask = h.Mask
	}
	if !s.Quiet {
		opts.Stderr, opts.StderrShown = stderrPoke{wait, h.ServerStderr}, h.ServerStderrShown
	}
	opts.Stderr = h.traceStderr(opts.Stderr)
	return env.StartServer.Start(opts)
}

// httpOptions are the HTTP transport's for s, a new session's and a
// kept one's alike: its authorized client, its bound on a message, and
// under --verbose its trace, each line made safe for a terminal.
func httpOptions(s *Settings, env Env, h Hooks) (mcp.HTTPOptions, error) {
	client, err := authorizedClient(s, env, h)
	if err != nil {
		return mcp.HTTPOptions{}, err
	}
	opts := mcp.HTTPOptions{URL: s.URL, Client: client, Header: s.Header, UserAgent: userAgent(s, h), Mode: s.Mode, Log: h.Log, MaxMessage: s.MaxMessage, OnEvent: h.onEvent()}
	if s.Verbose {
		opts.Trace = func(line string) { fmt.Fprintf(h.Stderr, "mcpv: http: %s\n", safetext.Line(line)) }
	}
	return opts, nil
}

// setLogLevel sends --log-level when the server declares logging.
func (c *Conn) setLogLevel(ctx context.Context, level string) error {
	if level == "" || c.Client.Modern() {
		return nil // a modern request carries the level in its _meta
	}
	if !c.Client.HasCapability("logging") {
		c.hooks.Log.Warn(fmt.Sprintf("the server does not declare logging; --log-level %s not sent", level))
		return nil
	}
	_, err := c.Client.Call(ctx, "logging/setLevel", rawjson.MustMarshal(map[string]string{"level": level}))
	return err
}

// Event records an event of mcpv's own in --events.
func (c *Conn) Event(method string, params json.RawMessage) { c.hooks.Events.Write(method, params) }

// Close ends the session within the transport's bounds, after every queued
// notification has been delivered, then keeps what the server allows of
// this run for the next (Hooks.Remember): a list_changed among those
// notifications counts.
func (c *Conn) Close() {
	c.wait.stop()
	c.Client.Close(context.Background())
	if c.hooks.spans != nil {
		c.hooks.spans.Close()
	}
	if c.Kept != nil {
		if c.probed { // an era pinned says nothing of the server's
			c.Kept.Learnt(c.Client.Learnt())
		}
		if c.Client.Contradicted() {
			c.Kept.ForgetEra()
		}
		if err := c.Kept.Save(); err != nil && c.verbose {
			fmt.Fprintf(c.hooks.Stderr, "mcpv: what the server allows to be kept is not kept: %s\n", safetext.Line(err.Error()))
		}
	}
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
		// Clip first: masking and escaping scan what is shown, not a
		// 100 MB message. What the server sent may hold what a terminal
		// acts on (C1 controls are valid in JSON strings; junk is junk).
		if len(msg) > max {
			fmt.Fprintf(w, "mcpv: %s %s… (%d more bytes)\n", dir, safetext.Line(string(redact.JSON(msg[:max]))), len(msg)-max)
			return
		}
		fmt.Fprintf(w, "mcpv: %s %s\n", dir, safetext.Line(string(redact.JSON(msg))))
	}
}
