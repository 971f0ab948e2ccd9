package serve

import (
	"context"
	"encoding/json"
	"iter"

	"github.com/mcpv/mcpv/internal/connect"
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

// Conn is an upstream session to a real server.
func Conn(c *connect.Conn) Upstream { return connUpstream{c} }

type connUpstream struct{ c *connect.Conn }

func (u connUpstream) State() mcp.State { return u.c.Client.State() }

func (u connUpstream) Forward(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return u.c.Client.Forward(ctx, method, params)
}

func (u connUpstream) Relay(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	return u.c.Client.Relay(ctx, method, params)
}

func (u connUpstream) ForwardNotification(ctx context.Context, method string, params json.RawMessage) error {
	return u.c.Client.ForwardNotification(ctx, method, params)
}

func (u connUpstream) Tool(ctx context.Context, name string) (json.RawMessage, bool) {
	t, err := u.c.Tools.Find(ctx, u.c.Client, name)
	return t.Raw, err == nil
}

// walker is an Upstream that walks the pages of a list.
type walker interface {
	Walk(ctx context.Context, method, key string) iter.Seq2[mcp.Page, error]
}

func (u connUpstream) Walk(ctx context.Context, method, key string) iter.Seq2[mcp.Page, error] {
	return u.c.Client.Walk(ctx, method, key, 0)
}

func (u connUpstream) Done() <-chan struct{} { return u.c.Client.Done() }
func (u connUpstream) Err() error            { return u.c.Client.Err() }
func (u connUpstream) Close()                { u.c.Close() }
