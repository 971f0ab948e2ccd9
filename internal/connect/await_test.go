package connect

import (
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// TestAwaitCapabilities: with AwaitCapabilities, initialize goes out only
// once it has answered, declaring what it answered; an error it returns
// fails the open, and nothing is sent.
func TestAwaitCapabilities(t *testing.T) {
	fake := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{})
	s := &Settings{URL: fake.URL, Mode: mcp.ModeStreamable, ProtocolEra: "legacy", ConnectTimeout: 30 * time.Second, Auth: Auth{Mode: "none"}}
	env := Env{Cwd: t.TempDir(), GOOS: runtime.GOOS}
	caps := make(chan json.RawMessage, 1)
	opened := make(chan error, 1)
	go func() {
		c, err := Open(context.Background(), s, env, Hooks{AwaitCapabilities: func(ctx context.Context) (json.RawMessage, error) {
			select {
			case c := <-caps:
				return c, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}})
		if err == nil {
			c.Close()
		}
		opened <- err
	}()
	caps <- json.RawMessage(`{"sampling":{}}`)
	if err := <-opened; err != nil {
		t.Fatal(err)
	}
	reqs := fake.Requests()
	if len(reqs) == 0 || reqs[0].RPCMethod != "initialize" {
		t.Fatalf("requests %v, want initialize first", reqs)
	}
	var init struct {
		Params struct {
			Capabilities json.RawMessage `json:"capabilities"`
		} `json:"params"`
	}
	json.Unmarshal(reqs[0].Body, &init)
	if string(init.Params.Capabilities) != `{"sampling":{}}` {
		t.Errorf("initialize declared %s, want what the wait answered", init.Params.Capabilities)
	}

	refused := errors.New("no client came")
	_, err := Open(context.Background(), s, env, Hooks{AwaitCapabilities: func(context.Context) (json.RawMessage, error) { return nil, refused }})
	if !errors.Is(err, refused) {
		t.Errorf("open: %v, want the wait's error", err)
	}
	// The first session's GET stream and DELETE may still reach the fake
	// after its Close; a session opened after the failed wait would
	// begin with a handshake of its own.
	handshakes := 0
	for _, r := range fake.Requests() {
		if r.RPCMethod == "initialize" || r.RPCMethod == "server/discover" {
			handshakes++
		}
	}
	if handshakes != 1 {
		t.Errorf("%d handshakes, want only the first session's: the failed wait sent one", handshakes)
	}
}
