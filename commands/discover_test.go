package commands

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/servercard"
	"github.com/mcpv/mcpv/output"
)

// cardSite serves a catalog and its cards on loopback (plain http is
// allowed there), by path.
func cardSite(t *testing.T, pages map[string]string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, strings.ReplaceAll(body, "SITE", "http://"+r.Host))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func testCard(name, version, remote string) string {
	card := `{"$schema":"` + servercard.SchemaURL + `","name":"` + name + `","version":"` + version + `","description":"A server."`
	if remote != "" {
		card += `,"remotes":[{"type":"streamable-http","url":"` + remote + `"}]`
	}
	return card + `}`
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	demo := demoHTTP(t, nil)
	catalog := `{"specVersion":"1.0","entries":[
		{"identifier":"urn:air:local:mcp:demo","type":"application/mcp-server-card+json","url":"SITE/demo/server-card"},
		{"identifier":"urn:air:local:mcp:liar","type":"application/mcp-server-card+json","url":"SITE/liar/server-card"},
		{"identifier":"urn:air:local:mcp:tools","type":"application/mcp-server-card+json","url":"SITE/tools/server-card"}]}`
	// A card of the demo server that lists a tool it does not have, and
	// leaves out the others.
	tooled := strings.Replace(testCard("local.mcpv/tooled", "1.0.0", demo), `"description"`, `"tools":[{"name":"echo"},{"name":"delete_all"}],"description"`, 1)
	site := cardSite(t, map[string]string{
		"/.well-known/ai-catalog.json":     catalog,
		"/demo/server-card":                testCard("local.mcpv/mcpv-demo", "1.0.0", demo),
		"/liar/server-card":                testCard("com.example/other", "9.9.9", demo),
		"/tools/server-card":               tooled,
		"/bad/.well-known/ai-catalog.json": "",
	})
	badSite := cardSite(t, map[string]string{
		"/.well-known/mcp/catalog.json": `{"specVersion":"draft","entries":[{"identifier":"x","type":"application/mcp-server-card+json","url":"SITE/c"}]}`,
		"/c":                            testCard("no-slash", "1", ""),
	})
	host := strings.TrimPrefix(site, "http://")
	// A site that sends every request back to itself: nothing answers
	// there (where nothing listens is testdata/cli.yaml's).
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path, http.StatusFound)
	}))
	t.Cleanup(loop.Close)
	tests := []struct {
		name   string
		args   []string
		code   int
		outHas []string
		errHas []string
	}{
		{"a domain's catalog", []string{"discover", host, "-c", "-q", "[.catalog, (.servers[] | .card.name, .valid)]"}, 0,
			[]string{`"` + site + `/.well-known/ai-catalog.json","local.mcpv/mcpv-demo",true,"com.example/other",true`}, nil},
		{"the drafts' catalog, and an invalid card", []string{"discover", badSite, "-c", "-q", ".servers[0].problems[0].field"}, 1,
			[]string{`"name"`}, []string{"1 of 1 server cards are invalid", "discover: x: name"}},
		{"nothing there", []string{"discover", site + "/nothing"}, 3, nil, []string{"no catalog or server card found for " + site + "/nothing"}},
		{"a redirect loop", []string{"discover", loop.URL + "/x"}, 4, nil, []string{"mcpv: discover: nothing answered at " + loop.URL + "/x", "redirects"}},
		{"a card's problems are a list", []string{"discover", site + "/demo/server-card", "-c", "-q", ".servers[0].problems, .problems"}, 0, []string{"[]\n[]\n"}, nil},
		{"a card that agrees", []string{"discover", host, "--connect", "mcpv-demo", "-c", "-q", "[.agrees, .server.serverInfo.name]"}, 0,
			[]string{`[true,"mcpv-demo"]`}, nil},
		{"a card that does not", []string{"discover", host, "--connect", "other", "-c", "-q", "[.agrees, (.disagreements[] | .field)]"}, 0,
			[]string{`[false,"name","version"]`}, []string{`the card disagrees with the server: name: the card says "com.example/other", the server "mcpv-demo"`}},
		{"a card whose tools are not the server's", []string{"discover", host, "--connect", "tooled", "-c", "-q", "[.agrees, (.disagreements[] | select(.field == \"tools\") | .card)]"}, 0,
			[]string{`[false,"\"delete_all\" is listed","\"add\" is not listed","\"ask\" is not listed"`}, []string{`tools: the card says "delete_all" is listed, the server does not list it`}},
		{"no such card", []string{"discover", host, "--connect", "nope"}, 3, nil, []string{`no server card found is "nope"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, "", tt.args...)
			r.expectHas(t, tt.code, tt.outHas, tt.errHas)
		})
	}
}

// Ctrl-C while a catalog or its cards are being fetched ends discover at
// once with 130 and nothing printed, and the fetch on the wire is given
// up, not left to the server.
func TestDiscoverInterrupted(t *testing.T) {
	t.Parallel()
	for _, stall := range []string{"/.well-known/ai-catalog.json", "/card"} {
		t.Run(stall, func(t *testing.T) {
			t.Parallel()
			reached, left := make(chan struct{}, 1), make(chan struct{}, 1)
			var srv *httptest.Server
			srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == stall {
					reached <- struct{}{}
					<-r.Context().Done() // held until the client gives up
					left <- struct{}{}
					return
				}
				if r.URL.Path != "/.well-known/ai-catalog.json" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprint(w, `{"specVersion":"1.0","entries":[{"identifier":"a","type":"application/mcp-server-card+json","url":"`+srv.URL+`/card"}]}`)
			}))
			t.Cleanup(srv.Close)
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			var stdout strings.Builder
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, []string{"discover", strings.TrimPrefix(srv.URL, "http://")}, output.NewStreams(strings.NewReader(""), &stdout, io.Discard), testEnv(t))
			}()
			select {
			case <-reached:
			case code := <-done:
				t.Fatalf("discover ended (exit %d) before it fetched %s", code, stall)
			case <-time.After(20 * time.Second):
				t.Fatalf("%s was never fetched", stall)
			}
			cancel(ErrInterrupted)
			select {
			case code := <-done:
				if code != 130 {
					t.Errorf("exit %d, want 130", code)
				}
			case <-time.After(20 * time.Second):
				t.Fatal("discover did not stop")
			}
			select {
			case <-left:
			case <-time.After(20 * time.Second):
				t.Error("the fetch was left open on the server")
			}
			if stdout.Len() != 0 {
				t.Errorf("printed: %s", stdout.String())
			}
		})
	}
}
