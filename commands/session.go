package commands

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/keeper"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// session is the server a command talks to: its settings, and the
// connection, opened on first use so that a command checks everything that
// needs no server first. A batch shares one session among its lines.
type session struct {
	settings *connect.Settings
	env      connect.Env
	hooks    connect.Hooks

	mu   sync.Mutex    // guards conn; held while opening
	conn *connect.Conn // once open

	// lmu guards listeners: a lock of its own, because notifications are
	// delivered while mu is held by the opening.
	lmu       sync.Mutex
	listeners []func(method string, params json.RawMessage)
	// cacheTools: look tools up in the session's cache (a batch), rather
	// than walking tools/list for each call.
	cacheTools bool
	// unremembered: nothing kept of the server between runs is read or written
	// (mcpv check, which judges the server as it is now).
	unremembered bool

	// mask masks the secrets the run knows (the settings', the tokens
	// it came to hold) in a message; nil masks nothing.
	mask func([]byte) []byte

	pinMu    sync.Mutex  // guards pinEntry and pinErr, read once (see pinned)
	pinEntry *pin.Server // the pin the server is held to
	pinErr   error
	appsNote sync.Once // says once that a pin written before apps were pinned holds none
}

// client opens the session if it is not open yet.
func (s *session) client(ctx context.Context) (*mcp.Client, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn == nil {
		h := s.hooks
		h.OnNotification = s.notify
		open := connect.Open
		if s.settings.Session != "" {
			open = attach
		} else {
			h.Remember = !s.unremembered
		}
		conn, err := open(ctx, s.settings, s.env, h)
		if err != nil {
			return nil, err
		}
		s.conn = conn
	}
	return s.conn.Client, nil
}

// opened reports whether the session is open.
func (s *session) opened() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn != nil
}

// httpClients are an HTTP target's clients for mcpv check and its
// connection walk: with the session's credentials, and without any. A
// login they would need is told as the 401 it is, never handed off to a
// process that waits for it: the checker reports the authorization it
// finds, it does not sign in.
func (s *session) httpClients() (authorized, plain *http.Client, err error) {
	h := s.hooks
	h.HandOff = nil
	return connect.HTTPClients(s.settings, s.env, h)
}

// required opens the session and checks that the server declared
// capability, which method needs.
func (s *session) required(ctx context.Context, capability, method string) (*mcp.Client, error) {
	client, err := s.client(ctx)
	if err != nil {
		return nil, err
	}
	return client, client.Require(capability, method)
}

// request opens the session, checks that the server declared capability,
// holds what the request names to the session's pin (pinRequest),
// sends the request and returns its raw result.
func (s *session) request(ctx context.Context, capability, method string, params json.RawMessage) (json.RawMessage, error) {
	client, err := s.required(ctx, capability, method)
	if err != nil {
		return nil, err
	}
	if err := s.pinRequest(ctx, client, method, params); err != nil {
		return nil, err
	}
	return client.Call(ctx, method, params)
}

// keepForTask leaves an HTTP session open for a detached task, which a
// server may keep only as long as its session, and says how to resume it.
func (s *session) keepForTask(out *console, taskID string) error {
	if s.settings.Session != "" || s.conn == nil {
		return nil // a keeper holds the session
	}
	sid, err := s.conn.Keep()
	if err != nil || sid == "" {
		return err
	}
	id, sid := safetext.Line(taskID), safetext.Line(sid)
	out.notef("the HTTP session stays open for task %s: collect it with mcpv tasks result %s --session-id %s and the same server", id, id, sid)
	return nil
}

// attach opens the running session the settings name, through its keeper.
func attach(ctx context.Context, settings *connect.Settings, env connect.Env, h connect.Hooks) (*connect.Conn, error) {
	if err := sessionsSupported(); err != nil {
		return nil, &refusal{err.Error()}
	}
	t, st, err := keeper.Attach(ctx, sessionDir(env), settings.Session)
	if err != nil {
		if isA[*keeper.ErrNoSession](err) {
			return nil, &mcp.TransportError{Op: "session", Err: err}
		}
		return nil, err
	}
	if h.Secret != nil {
		h.Secret(t.Secrets()...) // masked here as the keeper masks them
	}
	s := *settings
	s.Answers = withSessionAnswers(settings.Answers, t.Answers())
	return connect.Attach(&s, env, h, t, st)
}

// findTool returns the definition of the tool called name. A name the
// tools kept from an earlier run do not hold is looked for again in what
// the server lists now: it may have been added since.
func (s *session) findTool(ctx context.Context, client *mcp.Client, name string) (mcp.Tool, error) {
	return afresh(s, "tools", isA[*mcp.ToolNotListedError], func() (mcp.Tool, error) {
		if s.cacheTools {
			return s.conn.Tools.Find(ctx, client, name)
		}
		return client.FindTool(ctx, name)
	})
}

// findPinnedTool is findTool, with the tool held to the session's pin:
// one that moved since it was pinned, or is not pinned, or is pinned but
// no longer listed, or is listed twice, or whose app moved, is refused
// (*pinRefusal). A refusal on what was kept of the server between runs
// is checked once more against what it lists now.
func (s *session) findPinnedTool(ctx context.Context, client *mcp.Client, name string) (mcp.Tool, error) {
	if !s.pinning() {
		return s.findTool(ctx, client, name)
	}
	return afresh(s, "tools", isA[*pinRefusal], func() (mcp.Tool, error) { return s.pinnedTool(ctx, client, name) })
}

// keptServed reports whether a lookup of the list ("tools", "prompts",
// "resources") was answered from what was kept of the server between runs.
func (s *session) keptServed(list string) bool {
	return s.conn != nil && s.conn.Kept != nil && s.conn.Kept.Served(list)
}

// afresh is what once finds; when once fails (as retry says, nil: in
// any way) on what was kept of list between runs, the server's own list
// decides: the kept one is forgotten and once asked again.
func afresh[T any](s *session, list string, retry func(error) bool, once func() (T, error)) (T, error) {
	v, err := once()
	if err != nil && (retry == nil || retry(err)) && s.keptServed(list) {
		s.forget(list)
		v, err = once()
	}
	return v, err
}

// isA reports whether err is, or wraps, an E.
func isA[E error](err error) bool {
	_, ok := errors.AsType[E](err)
	return ok
}

// forget drops what the session knows of the list, kept between runs or
// for the session: the server is asked again.
func (s *session) forget(list string) {
	if s.conn == nil {
		return
	}
	if s.conn.Kept != nil {
		s.conn.Kept.Forget(list)
	}
	if list == "tools" {
		s.conn.Tools.Reset()
	}
}

// listen passes every notification to fn, on the session's dispatcher
// goroutine; fn must not block for long. Listening before the session is
// open misses nothing.
func (s *session) listen(fn func(method string, params json.RawMessage)) {
	s.lmu.Lock()
	s.listeners = append(s.listeners, fn)
	s.lmu.Unlock()
}

func (s *session) notify(method string, params json.RawMessage) {
	s.lmu.Lock()
	listeners := s.listeners
	s.lmu.Unlock()
	for _, fn := range listeners {
		fn(method, params)
	}
}

// close ends the session, if it was opened.
func (s *session) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != nil {
		s.conn.Close() // delivers every queued notification first
	}
}

// sessionAnswers are a session's answers to server requests as a keeper
// hands them to commands: its paths made absolute and its --sampling-cmd
// run where the session started (a command may run elsewhere), and no
// --events file, which is each command's own.
func sessionAnswers(a connect.Answers, env connect.Env) json.RawMessage {
	a.Roots = slices.Clone(a.Roots)
	for i, r := range a.Roots {
		a.Roots[i] = env.Path(r)
	}
	a.AnswersFile = env.Path(a.AnswersFile) // "" stays ""
	if a.SamplingCmd != "" && a.SamplingDir == "" {
		a.SamplingDir = env.Cwd
	}
	a.Events = ""
	return mustJSON(a)
}

// withSessionAnswers are the answers a command through a session gives
// the server's requests that come to it: the session's roots and log
// level (a command cannot give its own), and the session's answers to
// questions unless the command gives answers of its own.
func withSessionAnswers(own connect.Answers, session json.RawMessage) connect.Answers {
	var s connect.Answers
	if json.Unmarshal(session, &s) != nil {
		return own
	}
	own.Roots, own.LogLevel = s.Roots, s.LogLevel
	if len(own.Answer) == 0 && own.AnswersFile == "" && own.Elicitation == "" {
		own.Answer, own.AnswersFile, own.Elicitation = s.Answer, s.AnswersFile, s.Elicitation
	}
	if own.SamplingCmd == "" {
		own.SamplingCmd, own.SamplingDir = s.SamplingCmd, s.SamplingDir
	}
	return own
}
