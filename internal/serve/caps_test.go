package serve

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// capsServer serves a go-sdk server whose tool caps tells the
// capabilities its session's client declared.
func capsServer(t *testing.T) string {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "caps", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "caps"}, func(_ context.Context, req *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
		b, _ := json.Marshal(req.Session.InitializeParams().Capabilities)
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil, nil
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestStdioClientsCapabilities: on stdio (one client) the server is told
// the capabilities that client declared, in either era, so that it
// offers the client what it would offer it directly; and Start returns
// before the client speaks.
func TestStdioClientsCapabilities(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		era, caps string
		want      []string // capabilities the server sees
	}{
		{"legacy", `{}`, nil},
		{"legacy", `{"sampling":{},"experimental":{"x":{}}}`, []string{"sampling"}},
		{"modern", `{"elicitation":{"form":{}}}`, []string{"elicitation"}},
	} {
		srv := serverFor(t, servetest.Settings(capsServer(t), "legacy", nil))
		srv.ClientCaps = true
		if err := srv.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(srv.Close)
		c, _ := servetest.StdioClientDeclaring(t, srv, tc.era, tc.caps)
		res := servetest.Call(t, c, "tools/call", `{"name":"caps","arguments":{}}`)
		var got struct {
			Content []struct{ Text string } `json:"content"`
		}
		json.Unmarshal(res, &got)
		var seen map[string]json.RawMessage
		if len(got.Content) == 1 {
			json.Unmarshal([]byte(got.Content[0].Text), &seen)
		}
		for _, k := range []string{"sampling", "elicitation"} { // (the go-sdk shows roots always)
			if want := strings.Contains(strings.Join(tc.want, ","), k); (seen[k] != nil) != want {
				t.Errorf("%s client declaring %s: the server sees %s", tc.era, tc.caps, res)
			}
		}
	}
}

// TestClientCapsWithoutAWait: an upstream that opens without asking for
// the client's capabilities (a session negotiated elsewhere) does not
// hold Start up.
func TestClientCapsWithoutAWait(t *testing.T) {
	t.Parallel()
	up := &servetest.Hang{End: make(chan struct{}), Called: make(chan struct{}, 1)}
	srv := &Server{Open: func(context.Context, Relay) (Upstream, error) { return up, nil }, ClientCaps: true}
	started := make(chan error, 1)
	go func() { started <- srv.Start(context.Background()) }()
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Start waits for a client its upstream never asked for")
	}
	srv.Close()
}

// TestCloseEndsTheHandshake: Close, while the upstream's initialize
// still waits for the first client (serve ends before any client asked
// anything), returns only once the start-up has been given up and its
// server stopped, never leaving it behind.
func TestCloseEndsTheHandshake(t *testing.T) {
	t.Parallel()
	ending, release, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	srv := &Server{ClientCaps: true, Open: func(ctx context.Context, r Relay) (Upstream, error) {
		_, err := r.AwaitCapabilities(ctx)
		close(ending)
		<-release // the server's stop takes a while
		close(ended)
		return nil, err
	}}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	closed := make(chan struct{})
	go func() { srv.Close(); close(closed) }()
	<-ending
	close(release)
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return")
	}
	select {
	case <-ended:
	default:
		t.Error("Close returned before the start-up it gave up had ended")
	}
}
