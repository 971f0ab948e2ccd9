package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// logBuffer is serve's log as an operator sees it (info and above).
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func operatorLog() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelInfo})), b
}

// announcing is an upstream that says something before any client comes:
// the list changes it sends as a server does when it starts.
type announcing struct {
	servetest.Hang
	notify func(string, json.RawMessage)
}

// Nothing is said on serve's stderr of a list that changed before any
// client came: no one has anything to act on.
func TestNoWordOfAListChangeBeforeAnyClient(t *testing.T) {
	t.Parallel()
	log, buf := operatorLog()
	up := &announcing{Hang: servetest.Hang{End: make(chan struct{}), Called: make(chan struct{}, 1)}}
	srv := &Server{Log: log, Open: func(_ context.Context, r Relay) (Upstream, error) {
		up.notify = r.OnNotification
		return up, nil
	}}
	if err := srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		up.notify("notifications/tools/list_changed", nil)
	}
	up.notify("notifications/message", json.RawMessage(`{"level":"info","data":"started"}`))
	if got := buf.String(); got != "" {
		t.Errorf("serve's log: %q, want nothing", got)
	}
}

// slowReader pauses a millisecond every 64 reads: a client that reads all
// it is sent, more slowly than the server writes.
type slowReader struct {
	r     io.Reader
	reads int
}

func (s *slowReader) Read(p []byte) (int, error) {
	if s.reads++; s.reads%64 == 0 {
		time.Sleep(time.Millisecond)
	}
	return s.r.Read(p)
}

// A client that reads all it is sent, however slowly, gets every log
// message of a flood in its call: the server is read no faster than the
// client reads. So does a 2026-07-28 client (bridged, at the logLevel of
// its request). serve's own log (the operator's) holds none of them, and
// no word of a client that does not read.
func TestSlowReaderGetsTheWholeFlood(t *testing.T) {
	testkit.SkipLong(t, "a flood read slowly, in both eras")
	t.Parallel()
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			const n = 30000
			log, buf := operatorLog()
			s := &connect.Settings{Command: []string{os.Args[0]}, Env: append(os.Environ(), mcptest.EnvVar+"=log-flood=30000"),
				ProtocolEra: "legacy", ConnectTimeout: 30 * time.Second}
			srv := serverFor(t, s)
			srv.Log = log
			// However long the client's reader is kept from the CPU, it
			// does not count as not reading.
			srv.NoteStall = time.Hour
			if err := srv.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			upR, upW := io.Pipe()
			downR, downW := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			served := make(chan error, 1)
			go func() { served <- srv.ServeStream(ctx, upR, downW, upR.Close); downW.Close() }()
			var count atomic.Int64 // log messages the client got
			sess := mcp.NewSession(mcp.NewStreamTransport(&slowReader{r: downR}, upW, func() error { upW.Close(); return downR.Close() }, nil),
				mcp.SessionOptions{OnNotification: func(method string, _ json.RawMessage) {
					if method == "notifications/message" {
						count.Add(1)
					}
				}})
			t.Cleanup(func() { sess.Close(context.Background()); cancel(); <-served })
			opts := mcp.ClientOptions{Info: mcp.Implementation{Name: "downstream", Version: "1"}}
			if era == "modern" {
				opts.ProtocolVersion, opts.LogLevel = mcp.ModernVersion, "info"
			}
			c, err := mcp.Initialize(t.Context(), sess, opts)
			if err != nil {
				t.Fatal(err)
			}
			servetest.Call(t, c, "tools/call", `{"name":"x","arguments":{}}`)
			// A message dropped never comes, and serve's log says so at
			// the first: the count stops short. A slow machine (the race
			// detector, a busy one) only takes longer; a minute without a
			// message is a hang.
			last, guard := count.Load(), time.Now().Add(time.Minute)
			for got := last; got < n; got = count.Load() {
				if got != last {
					last, guard = got, time.Now().Add(time.Minute)
				}
				if strings.Contains(buf.String(), "has not read") || time.Now().After(guard) {
					t.Fatalf("the client got %d of the %d log messages; serve's log:\n%s", got, n, buf.String())
				}
				time.Sleep(100 * time.Millisecond)
			}
			if got := buf.String(); strings.Contains(got, "read") || strings.Contains(got, "flood") {
				t.Errorf("serve's log: %.500s", got)
			}
		})
	}
}

// Each client of a shared upstream gets the server's log at the level it
// asked for: the server is asked for the lowest, and each client given
// its own (the last client to ask no longer sets it for all). A
// 2026-07-28 client, bridged, gets it at its requests' own level: none
// when they name none, whatever the others asked.
func TestLogLevelPerClient(t *testing.T) {
	t.Parallel()
	srv := startServer(t, servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil), nil, false)
	a, arec := servetest.StdioClient(t, srv, "legacy")
	b, brec := servetest.StdioClient(t, srv, "legacy")
	m, mrec := servetest.StdioClient(t, srv, "modern")
	servetest.Call(t, a, "logging/setLevel", `{"level":"debug"}`)
	servetest.Call(t, b, "logging/setLevel", `{"level":"error"}`)
	servetest.Call(t, a, "tools/call", `{"name":"log","arguments":{"level":"debug","message":"A's debug detail"}}`)
	servetest.Call(t, b, "tools/call", `{"name":"log","arguments":{"level":"info","message":"B's mere info"}}`)
	servetest.Call(t, b, "tools/call", `{"name":"log","arguments":{"level":"error","message":"B's error"}}`)
	if !arec.Saw("A's debug detail") {
		t.Error("A did not get the debug message it asked for")
	}
	if brec.Saw("B's mere info") {
		t.Error("B got an info message below the level it asked for")
	}
	if !brec.Saw("B's error") {
		t.Error("B did not get its error message")
	}
	servetest.Call(t, m, "tools/call", `{"name":"log","arguments":{"level":"error","message":"M's error"}}`)
	if mrec.Saw("M's error") {
		t.Error("a modern client whose request asked for no log got a log message")
	}
}
