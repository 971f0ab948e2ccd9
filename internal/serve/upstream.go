package serve

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/mcpv/mcpv/mcp"
)

// Upstream is what a relay serves its clients from: an upstream session
// to a real server (Conn), or anything else that answers requests as one
// would, such as a mock server read from a file.
type Upstream interface {
	// State is the session as negotiated: its era and initialize result,
	// from which clients of either era are answered.
	State() mcp.State
	// Forward sends a request as it is and returns the result as sent.
	Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// Relay sends the request of a client of the initialize era (see
	// mcp.Client.Relay).
	Relay(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error)
	// ForwardNotification sends a client's notification on.
	ForwardNotification(ctx context.Context, method string, params json.RawMessage) error
	// Tool is the definition of the tool called name, if there is one.
	Tool(ctx context.Context, name string) (json.RawMessage, bool)
	// Done is closed when the upstream ends; Err then says why.
	Done() <-chan struct{}
	Err() error
	Close()
}

// Relay is what serve asks of an upstream session as it opens it: the
// capabilities to declare (or, with AwaitCapabilities, those of the first
// client, once it has spoken), and where the server's notifications, its
// requests and the secrets the session learns go.
type Relay struct {
	Capabilities      json.RawMessage
	AwaitCapabilities func(context.Context) (json.RawMessage, error)
	// OnNotification is told each notification of the server, in order.
	OnNotification func(method string, params json.RawMessage)
	// Route answers a request of the server: the client it belongs to
	// answers it.
	Route func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, bool, error)
	// ReadGate is called before each read of the server's messages: it
	// waits while a client is behind.
	ReadGate func(last int)
	// Secret is told the secrets the session learns (tokens), to mask.
	Secret func(values ...string)
}

// Walker is an Upstream that walks the pages of a list as mcp.Client
// does (the pin's and the recording's walks use it).
type Walker interface {
	Walk(ctx context.Context, method, key string, max int) iter.Seq2[mcp.Page, error]
}

// ClientUpstream is an upstream session to a real server, through its
// client: tool finds a tool's definition (the session's kept list, or a
// listing), end ends the session.
func ClientUpstream(c *mcp.Client, tool func(ctx context.Context, name string) (json.RawMessage, bool), end func()) Upstream {
	return clientUpstream{c, tool, end}
}

type clientUpstream struct {
	*mcp.Client // its State, Forward, Relay, ForwardNotification, Done and Err
	tool        func(ctx context.Context, name string) (json.RawMessage, bool)
	end         func()
}

func (u clientUpstream) Tool(ctx context.Context, name string) (json.RawMessage, bool) {
	return u.tool(ctx, name)
}

func (u clientUpstream) Close() { u.end() }
