package connect

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"

	"github.com/mcpv/mcpv/internal/elicit"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/otel"
	"github.com/mcpv/mcpv/internal/trace"
	"github.com/mcpv/mcpv/mcp"
)

// Hooks are what the command line supplies to a session: where things are
// shown and how the user is reached. Every field is optional.
type Hooks struct {
	// Client names mcpv in initialize.
	Client mcp.Implementation
	// Stderr receives the server's log messages and the verbose trace, and
	// the server's stderr unless ServerStderr is set. It should already mask
	// secrets.
	Stderr io.Writer
	// ServerStderr, when set, receives a stdio server's own stderr (unless
	// Settings.Quiet): a terminal gets it with escape sequences neutralised.
	ServerStderr io.Writer
	// ServerStderrShown says ServerStderr is the user's stderr, read as it
	// comes: a failure of the server does not quote its last lines again.
	ServerStderrShown bool
	// Log receives mcpv's warnings and notices.
	Log *slog.Logger
	// Status shows transient progress (a progress line on a terminal).
	Status Status
	// Terminal opens the user's terminal for questions, or returns nil when
	// there is none. Open calls it at most once.
	Terminal func() elicit.Terminal
	// OpenURL opens a URL in the user's browser.
	OpenURL func(url string) error
	// Interactive: a user is at a terminal, so a browser flow may start.
	Interactive bool
	// HandOff, when set, takes a login a run that does not wait for a
	// browser (no terminal, or --no-wait) finds needed to a process that
	// waits for it (oauth.Options.HandOff).
	HandOff func(h *oauth.HandOff, ln net.Listener) error
	// ShowDevice tells the user the link and the code of a device login;
	// NoBrowser says that no browser can be opened here (then a login
	// takes the device grant where the server offers it).
	ShowDevice func(oauth.DeviceCode)
	NoBrowser  bool
	// Events receives every notification, and mcpv's own events, as NDJSON.
	Events *EventLog
	// Secret is told the secrets mcpv learns during the session (OAuth
	// tokens, a registered client's secret), to mask them from then on.
	Secret func(values ...string)
	// Sent is told the secrets the session sends by name (redact.Sent: a
	// tool's password argument, however the command was given it), each
	// before it goes, to mask them from then on in what the run writes.
	// Unlike Secret's, they are not kept from serve's clients, who sent
	// them.
	Sent func(values ...string)
	// Mask, when set, is the run's masker: what the session quotes of
	// its server (the last lines of its stderr, in an error) is masked
	// with it before it is cut. Unset, the settings' secrets are.
	Mask func(string) string
	// Groups records the process group of a stdio server while it runs.
	Groups *mcp.ProcessGroups
	// OnNotification sees every notification after mcpv has handled it, in
	// order, on the session's dispatcher goroutine; it must not block for
	// long: behind a handler that falls far behind, the session's bounded
	// queue keeps the latest progress and drops log messages (mcp/notes.go).
	OnNotification func(method string, params json.RawMessage)
	// Route, when set, may answer a server request before mcpv's own
	// answers do (a session keeper hands it to the command it belongs
	// to); handled false leaves it to them.
	Route func(ctx context.Context, method string, params json.RawMessage) (res json.RawMessage, handled bool, err error)
	// ReadGate, when set, is the session's (mcp.SessionOptions.ReadGate):
	// a session keeper holds the server back with it while a large result
	// is written to its command.
	ReadGate func(last int)
	// NoteBackPressure is the session's (mcp.SessionOptions.NoteBackPressure):
	// mcpv serve holds the server back while its clients fall behind,
	// rather than drop what they must all get.
	NoteBackPressure bool
	// Capabilities, when set, are the client capabilities the session
	// declares instead of those its own answers give (mcpv serve declares
	// what its clients may answer, through Route).
	Capabilities json.RawMessage
	// AwaitCapabilities, when set, is called once the server is started
	// (or the HTTP connection prepared) and before initialize: its answer
	// is the client capabilities the session declares (mcpv serve waits
	// for its client's, so that the server offers that client what it
	// would offer it directly). Its context ends when the server does.
	AwaitCapabilities func(ctx context.Context) (json.RawMessage, error)
	// Remember keeps what the server allows between runs, and starts
	// from what was kept (internal/serverstate): the era it spoke, the
	// lists it lets be kept. For one-shot commands.
	Remember bool

	// waiting, set by Open, is told when a browser login begins to wait
	// for the user (oauth.Options.Waiting).
	waiting func() (done func())

	// LogsElsewhere: the server's log messages are not shown on Stderr,
	// only passed to OnNotification (mcpv serve relays them to the
	// clients they belong to).
	LogsElsewhere bool
	// Trace, when set, sees every message of the session as it is sent
	// (out) or received, its bytes as on the wire (mcp.SessionOptions.Trace):
	// mcpv check judges what the server sent as it came.
	Trace func(out bool, msg []byte)
	// Tracer, when set, is the run's trace (mcpv --trace): each session
	// opened writes its messages, its transport's events and its server's
	// stderr into it, as a session of its own.
	Tracer *trace.Writer
	// traceSession is this session's part of Tracer, set by traced.
	traceSession *trace.Session
	// Telemetry, when set, is the run's OpenTelemetry export (--otel):
	// each session opened makes a span of each of its requests, a child
	// of the command's, and carries its context to the server.
	Telemetry *otel.Run
	// spans is this session's part of Telemetry, set by traced.
	spans *otel.Session
	// OnDropped, when set, is told of the notifications a session dropped
	// from its full queue instead of a warning on Log
	// (mcp.SessionOptions.OnDropped).
	OnDropped func(logs, other int)
}

// Status is a transient line of progress.
type Status interface {
	Set(text string)
	Clear()
	// Replace shows text only if the line shows old now, and reports
	// whether it did (see output.StatusLine).
	Replace(old, text string) bool
	// Enabled: the line is drawn at all (stderr is a terminal).
	Enabled() bool
}

// withDefaults fills what is missing with things that show nothing.
func (h Hooks) withDefaults() Hooks {
	h.Stderr = cmp.Or(h.Stderr, io.Discard)
	h.ServerStderr = cmp.Or(h.ServerStderr, h.Stderr)
	h.Log = cmp.Or(h.Log, slog.New(slog.DiscardHandler))
	return h
}

func (h Hooks) setStatus(text string) {
	if h.Status != nil {
		h.Status.Set(text)
	}
}
