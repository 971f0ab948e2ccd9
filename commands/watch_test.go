package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/output"
)

// watchLine is one line of watch's output.
type watchLine struct {
	URI      string `json:"uri"`
	List     string `json:"list"`
	Time     string `json:"time"`
	Contents []struct {
		URI      string `json:"uri"`
		MIMEType string `json:"mimeType"`
		Text     string `json:"text"`
	} `json:"contents"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseWatch(t *testing.T, stdout string) []watchLine {
	t.Helper()
	var out []watchLine
	for s := range strings.SplitSeq(strings.TrimSuffix(stdout, "\n"), "\n") {
		if s == "" {
			continue
		}
		var l watchLine
		d := json.NewDecoder(strings.NewReader(s))
		d.DisallowUnknownFields()
		if err := d.Decode(&l); err != nil {
			t.Fatalf("line %q: %v", s, err)
		}
		if _, err := time.Parse(time.RFC3339Nano, l.Time); err != nil {
			t.Errorf("line %q: time: %v", s, err)
		}
		out = append(out, l)
	}
	return out
}

// watchTargets are the demo server over stdio and over Streamable HTTP.
func watchTargets(t *testing.T) map[string][]string {
	return map[string][]string{
		"stdio": demoLegacy(),
		"http":  {"-u", demoHTTP(t, httpModes["sse"])},
	}
}

func TestWatchDemo(t *testing.T) {
	t.Parallel()
	for name, target := range watchTargets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			t.Run("count", func(t *testing.T) {
				t.Parallel()
				r := mcpv(t, "", args([]string{"watch", "demo://clock", "--count", "3"}, target)...)
				if r.code != 0 {
					t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
				}
				lines := parseWatch(t, r.stdout)
				if len(lines) != 3 {
					t.Fatalf("%d lines, want 3:\n%s", len(lines), r.stdout)
				}
				for _, l := range lines {
					if l.URI != "demo://clock" || l.Contents != nil || l.List != "" || l.Error != nil {
						t.Errorf("line %+v", l)
					}
				}
				if !strings.HasPrefix(r.stdout, `{"uri":"demo://clock","time":"`) {
					t.Errorf("stdout %q", r.stdout)
				}
			})
			t.Run("read", func(t *testing.T) {
				t.Parallel()
				r := mcpv(t, "", args([]string{"watch", "demo://clock", "--read", "--count", "2"}, target)...)
				if r.code != 0 {
					t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
				}
				lines := parseWatch(t, r.stdout)
				if len(lines) != 2 {
					t.Fatalf("%d lines, want 2:\n%s", len(lines), r.stdout)
				}
				for _, l := range lines {
					if len(l.Contents) != 1 || l.Contents[0].URI != "demo://clock" {
						t.Fatalf("line %+v", l)
					}
					if _, err := time.Parse(time.RFC3339Nano, l.Contents[0].Text); err != nil {
						t.Errorf("clock text: %v", err)
					}
				}
				if lines[0].Contents[0].Text == lines[1].Contents[0].Text {
					t.Errorf("the clock did not change: %s", r.stdout)
				}
			})
			t.Run("for", func(t *testing.T) {
				t.Parallel()
				start := time.Now()
				r := mcpv(t, "", args([]string{"watch", "demo://clock", "--for", "500ms"}, target)...)
				took := time.Since(start)
				if r.code != 0 {
					t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
				}
				// Whether the clock ticks within the half second is the
				// machine's to say (at load 50 it did not): the lines,
				// if any, are the clock's, and the watch ends, after the
				// half second, by itself. The lines a watch gets are the
				// count subtests'.
				parseWatch(t, r.stdout)
				if took < 500*time.Millisecond || took > time.Minute {
					t.Errorf("took %v", took)
				}
			})
			t.Run("timeout is per request", func(t *testing.T) {
				testkit.SkipLong(t, "watches ten ticks of 200 ms, past a 1 s timeout")
				t.Parallel()
				// Ten ticks take 1.8 s at least, however fast the machine:
				// a timeout of the whole watch would end it.
				r := mcpv(t, "", args([]string{"--timeout", "1s", "watch", "demo://clock", "--count", "10"}, target)...)
				if r.code != 0 || len(parseWatch(t, r.stdout)) != 10 {
					t.Errorf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
				}
			})
			t.Run("jq per line", func(t *testing.T) {
				t.Parallel()
				r := mcpv(t, "", args([]string{"watch", "demo://clock", "--count", "2", "-r", "-q", ".uri"}, target)...)
				if r.code != 0 || r.stdout != "demo://clock\ndemo://clock\n" {
					t.Errorf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
				}
			})
			t.Run("unknown resource", func(t *testing.T) {
				t.Parallel()
				r := mcpv(t, "", args([]string{"watch", "demo://nothing", "--count", "1"}, target)...)
				if r.code != 3 || r.stdout != "" || !strings.Contains(r.stderr, "resources/subscribe") {
					t.Errorf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
				}
			})
		})
	}
}

func TestWatchUsage(t *testing.T) {
	t.Parallel()
	for _, argv := range [][]string{
		{"watch"},
		{"watch", "a", "a"},
		{"watch", "a", "--count=-1"},
		{"watch", "a", "--for=-1s"},
	} {
		r := mcpv(t, "", args(argv, demo())...)
		if r.code != 2 {
			t.Errorf("%q: exit %d, want 2; stderr:\n%s", argv, r.code, r.stderr)
		}
	}
}

func TestWatchNoSubscribeCapability(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"-v", "watch", "x://y"}, fake("plain"))...)
	if r.code != 3 || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, `"resources.subscribe" capability`) || strings.Contains(r.stderr, `"method":"resources/subscribe"`) {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

// syncBuffer is an io.Writer safe for the goroutines of a running mcpv that
// signals each write.
type syncBuffer struct {
	mu    sync.Mutex // guards b
	b     bytes.Buffer
	wrote chan struct{} // 1-buffered: something was written
}

func newSyncBuffer() *syncBuffer { return &syncBuffer{wrote: make(chan struct{}, 1)} }

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, err := s.b.Write(p)
	select {
	case s.wrote <- struct{}{}:
	default:
	}
	return n, err
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits until the buffer holds want.
func (s *syncBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(time.Minute) // a hang guard: a busy machine may take seconds to start a server
	for !strings.Contains(s.String(), want) {
		select {
		case <-s.wrote:
		case <-timeout:
			t.Fatalf("never saw %q in %q", want, s.String())
		}
	}
}

// background runs mcpv on its own goroutine; cancel(cause) plays Ctrl-C.
func background(t *testing.T, argv ...string) (stdout, stderr *syncBuffer, cancel context.CancelCauseFunc, wait func() int) {
	t.Helper()
	return backgroundIn(t, testEnv(t), argv...)
}

// backgroundIn is background in the world env.
func backgroundIn(t *testing.T, env connect.Env, argv ...string) (stdout, stderr *syncBuffer, cancel context.CancelCauseFunc, wait func() int) {
	t.Helper()
	stdout, stderr = newSyncBuffer(), newSyncBuffer()
	ctx, cancel := context.WithCancelCause(context.Background())
	t.Cleanup(func() { cancel(nil) })
	code := make(chan int, 1)
	go func() { // ends when mcpv returns; cancel ends it
		code <- run(ctx, argv, output.NewStreams(strings.NewReader(""), stdout, stderr), env)
	}()
	return stdout, stderr, cancel, func() int {
		select {
		case c := <-code:
			return c
		case <-time.After(time.Minute): // a hang guard
			t.Fatal("mcpv did not return")
			return -1
		}
	}
}

func TestWatchInterrupted(t *testing.T) {
	t.Parallel()
	for name, target := range watchTargets(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, cancel, wait := background(t, args([]string{"-v", "watch", "demo://clock", "demo://readme"}, target)...)
			stdout.waitFor(t, "\n")
			cancel(ErrInterrupted) // watch, left alone, runs for ever: wait is the bound
			if code := wait(); code != 130 {
				t.Fatalf("exit %d; stderr:\n%s", code, stderr)
			}
			for _, uri := range []string{"demo://clock", "demo://readme"} {
				sent := `"method":"resources/unsubscribe","params":{"uri":"` + uri + `"}}`
				if !strings.Contains(stderr.String(), sent) {
					t.Errorf("no unsubscribe for %s in the trace:\n%s", uri, stderr)
				}
			}
			if !strings.Contains(stderr.String(), "\nmcpv: interrupted\n") {
				t.Errorf("stderr does not report the interruption:\n%s", stderr)
			}
			for _, l := range parseWatch(t, stdout.String()) {
				if l.URI != "demo://clock" {
					t.Errorf("line %+v", l)
				}
			}
		})
	}
}

// listsServer is a go-sdk server whose changes the test makes by hand: it
// reports each completed resources/subscribe on subscribed.
func listsServer(t *testing.T) (url string, s *sdk.Server, subscribed chan string) {
	t.Helper()
	ok := func(context.Context, *sdk.SubscribeRequest) error { return nil }
	s = sdk.NewServer(&sdk.Implementation{Name: "watch-test", Version: "0"}, &sdk.ServerOptions{
		SubscribeHandler:   ok,
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
	})
	s.AddResource(&sdk.Resource{URI: "test://a", Name: "a"}, func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "a <&> b"}}}, nil
	})
	subscribed = make(chan string, 10)
	s.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			res, err := next(ctx, method, req)
			if p, isSub := req.GetParams().(*sdk.SubscribeParams); isSub && err == nil {
				subscribed <- p.URI // the server now knows the subscription
			}
			return res, err
		}
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(ts.Close)
	return ts.URL, s, subscribed
}

func TestWatchListsAndReadErrors(t *testing.T) {
	t.Parallel()
	url, s, subscribed := listsServer(t)
	stdout, stderr, _, wait := background(t, "-u", url, "watch", "test://a", "test://gone", "--lists", "--read", "--count", "5")
	for range 2 {
		select {
		case <-subscribed:
		case <-time.After(10 * time.Second):
			t.Fatalf("no subscription; stderr:\n%s", stderr)
		}
	}
	s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "test://a"})
	stdout.waitFor(t, "\n")
	s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "test://gone"})
	stdout.waitFor(t, `"error"`)
	sdk.AddTool(s, &sdk.Tool{Name: "new"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{}, nil, nil
	})
	s.AddPrompt(&sdk.Prompt{Name: "new"}, func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{}, nil
	})
	s.AddResource(&sdk.Resource{URI: "test://b", Name: "b"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{}, nil
	})
	if code := wait(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	out := stdout.String()
	lines := parseWatch(t, out)
	if len(lines) != 5 {
		t.Fatalf("%d lines, want 5:\n%s", len(lines), out)
	}
	if !strings.HasPrefix(out, `{"uri":"test://a","time":"`) || !strings.Contains(out, `"contents":[{"uri":"test://a","text":"a \u003c\u0026\u003e b"}]}`+"\n") {
		t.Errorf("first line: %s", out)
	}
	if l := lines[1]; l.URI != "test://gone" || l.Error == nil || l.Error.Code == 0 || l.Error.Message == "" || l.Contents != nil {
		t.Errorf("second line: %+v", l)
	}
	if !strings.Contains(stderr.String(), "mcpv: resources/read: server error") {
		t.Errorf("the read error is not on stderr:\n%s", stderr)
	}
	var lists []string
	for _, l := range lines[2:] {
		lists = append(lists, l.List)
	}
	slices.Sort(lists)
	if d := cmp.Diff([]string{"prompts", "resources", "tools"}, lists); d != "" {
		t.Errorf("list changes (-want +got):\n%s", d)
	}
}

// A server that sends thousands of updates before each answer to
// resources/read: every read is answered, in time, and every update becomes
// a line (the first, after the subscription, and then 3000 per read).
func TestWatchReadAmidABurstOfUpdates(t *testing.T) {
	testkit.SkipLong(t, "a burst of 3,000 updates, then bursts of 100")
	t.Parallel()
	const burst = 3000
	r := mcpv(t, "", args([]string{"--timeout", "20s", "watch", "fake://a", "--read", "--count", "4", "-r", "-q", ".contents[0].text"}, fake(fmt.Sprintf("updates=%d", burst)))...)
	if r.code != 0 || r.stdout != "A\nA\nA\nA\n" {
		t.Fatalf("exit %d, stdout %q; stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// Past two bursts of a hundred: reads go on amid them (each read is
	// preceded by its burst, so a thousand would send a million).
	r = mcpv(t, "", args([]string{"--timeout", "20s", "watch", "fake://a", "--read", "--count", "202", "-q", "length"}, fake(fmt.Sprintf("updates=%d", 100)))...)
	if r.code != 0 || strings.Count(r.stdout, "\n") != 202 {
		t.Errorf("exit %d, %d lines; stderr:\n%s", r.code, strings.Count(r.stdout, "\n"), r.stderr)
	}
}
