package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGatewayEachEra: behind one endpoint, a server of each era (the
// go-sdk demo server over HTTP, spoken to in the initialize era and in
// the 2026-07-28 one); a client of each era on stdio and HTTP calls each,
// and each server's question mid-call reaches the client that called
// (a server request, or an input_required result); completion,
// prompts, resources and a log level reach the server they belong to.
func TestGatewayEachEra(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t,
		testMember{name: "old", settings: servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil)},
		testMember{name: "new", settings: servetest.Settings(servetest.DemoURL(t, "modern"), "modern", nil)})
	for _, side := range []string{"stdio", "http"} {
		for _, era := range []string{"legacy", "modern"} {
			// One after the other: a server of the initialize era asks its
			// questions outside any request, and serve tells whose they
			// are only while one request is in flight.
			t.Run(side+"/"+era, func(t *testing.T) {
				var c *mcp.Client
				if side == "stdio" {
					c, _ = servetest.StdioClient(t, g.Server(), era)
				} else {
					_, u := gatewayHTTP(t, g, nil)
					c, _ = servetest.HTTPClient(t, u, era, side)
				}
				tools := strings.Join(listAll(t, c, "tools/list", "tools"), " ")
				for _, want := range []string{"old__ask", "new__ask", "old__echo", "new__echo"} {
					if !strings.Contains(tools, want) {
						t.Errorf("tools: %s, want %s", tools, want)
					}
				}
				for _, server := range []string{"old", "new"} {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					res, err := c.Call(ctx, "tools/call", json.RawMessage(`{"name":"`+server+`__ask","arguments":{}}`))
					cancel()
					if err != nil || !strings.Contains(string(res), side) {
						t.Errorf("%s__ask: %s %v, want the answer of %s", server, res, err, side)
					}
					if got := servetest.Call(t, c, "tools/call", `{"name":"`+server+`__echo","arguments":{"message":"to `+server+`"}}`); !strings.Contains(string(got), "to "+server) {
						t.Errorf("%s__echo: %s", server, got)
					}
					if got := servetest.Call(t, c, "prompts/get", `{"name":"`+server+`__greet","arguments":{"name":"Ada"}}`); !strings.Contains(string(got), "Ada") {
						t.Errorf("%s__greet: %s", server, got)
					}
					if got := servetest.Call(t, c, "completion/complete", `{"ref":{"type":"ref/prompt","name":"`+server+`__review"},"argument":{"name":"language","value":"ja"}}`); !strings.Contains(string(got), "java") {
						t.Errorf("%s completion: %s", server, got)
					}
				}
				if got := servetest.Call(t, c, "resources/read", `{"uri":"demo://readme"}`); !strings.Contains(string(got), "demo://readme") {
					t.Errorf("readme: %s", got)
				}
				if got := servetest.Call(t, c, "resources/read", `{"uri":"demo://notes/1"}`); !strings.Contains(string(got), "notes/1") {
					t.Errorf("a note by its template: %s", got)
				}
			})
		}
	}
}

// TestGatewayPagesSpanServers: lists of servers that page span them,
// page by page, in the servers' order; a cursor is the gateway's own
// (not any server's), and one made up, changed, or of another list is
// refused.
func TestGatewayPagesSpanServers(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t, testMember{name: "a", settings: servetest.FakeStdio("pages=3")}, testMember{name: "b", settings: twoTools(t, "b")}, testMember{name: "c", settings: servetest.FakeStdio("pages=2")})
	c, _ := servetest.StdioClient(t, g.Server(), "legacy")
	if got := strings.Join(listAll(t, c, "tools/list", "tools"), " "); got != "a__tool0 a__tool1 a__tool2 a__x b__add b__echo c__tool0 c__tool1 c__x" {
		t.Errorf("tools: %s", got)
	}
	// A page holds the servers' pages one after the other: here all of
	// them, for a client that reads the first page alone.
	if got := strings.Join(itemKeys(t, servetest.Call(t, c, "tools/list", `{}`), "tools"), " "); got != "a__tool0 a__tool1 a__tool2 a__x b__add b__echo c__tool0 c__tool1 c__x" {
		t.Errorf("the first page: %s", got)
	}
	// Past a page's bound, its nextCursor is the gateway's own, signed.
	cursor := g.cursor("tools/list", listPos{M: "b"})
	if got := strings.Join(itemKeys(t, servetest.Call(t, c, "tools/list", `{"cursor":"`+cursor+`"}`), "tools"), " "); got != "b__add b__echo c__tool0 c__tool1 c__x" {
		t.Errorf("from b on: %s", got)
	}
	p := struct{ Next string }{cursor}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, bad := range []string{"x", p.Next[:len(p.Next)-2] + "AA", "eyJtIjoiYiJ9"} {
		_, err := c.Call(ctx, "tools/list", json.RawMessage(`{"cursor":"`+bad+`"}`))
		var ce *mcp.CallError
		if !errors.As(err, &ce) || ce.Err.Code != mcp.CodeInvalidParams {
			t.Errorf("cursor %q: %v", bad, err)
		}
	}
	if _, err := c.Call(ctx, "prompts/list", json.RawMessage(`{"cursor":"`+p.Next+`"}`)); err == nil {
		t.Error("a cursor of tools/list was taken by prompts/list")
	}
}

// TestGatewayRoutesEachToItsServer: behind one endpoint, a task (made,
// listed, got, its result), a resource subscription and its update, a
// log level, progress and a cancellation each reach the server they
// belong to, and come back to the client under its own ids and tokens;
// two clients' tasks stay apart.
func TestGatewayRoutesEachToItsServer(t *testing.T) {
	t.Parallel()
	// Both fakes list fake://a: feed's is served, as the first's.
	g, _ := startGateway(t,
		testMember{name: "feed", settings: servetest.FakeStdio("updates=1")},
		testMember{name: "jobs", settings: servetest.FakeStdio("tasks=working/completed")},
		testMember{name: "demo", settings: servetest.DemoStdio()})
	_, u := gatewayHTTP(t, g, nil)
	a, arec := servetest.HTTPClient(t, u, "legacy", "a")
	b, _ := servetest.HTTPClient(t, u, "legacy", "b")

	// A task: made by a's call, reached by its id, a's alone.
	created := servetest.Call(t, a, "tools/call", `{"name":"jobs__job","arguments":{},"task":{"ttl":60000}}`)
	var made struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	json.Unmarshal(created, &made)
	id := made.Task.TaskID
	if !strings.HasPrefix(id, "mcpv-task-") {
		t.Fatalf("the task: %s", created)
	}
	if list := servetest.Call(t, a, "tasks/list", `{}`); !strings.Contains(string(list), id) {
		t.Errorf("a's tasks/list: %s", list)
	}
	if list := servetest.Call(t, b, "tasks/list", `{}`); strings.Contains(string(list), id) {
		t.Errorf("b's tasks/list holds a's task: %s", list)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := b.Call(ctx, "tasks/get", mcp.TaskParams(id)); err == nil {
		t.Error("b got a's task")
	}
	for range 3 {
		servetest.Call(t, a, "tasks/get", string(mcp.TaskParams(id)))
	}
	if res := servetest.Call(t, a, "tasks/result", string(mcp.TaskParams(id))); !strings.Contains(string(res), "content") {
		t.Errorf("the task's result: %s", res)
	}

	// A subscription: the update comes to the client that subscribed.
	servetest.Call(t, a, "resources/subscribe", `{"uri":"fake://a"}`)
	servetest.WaitFor(t, "a's update", func() bool { return arec.Saw(`"notifications/resources/updated"`) })

	// A log level: messages below it stay away, the rest come.
	servetest.Call(t, a, "logging/setLevel", `{"level":"error"}`)
	servetest.Call(t, a, "tools/call", `{"name":"demo__log","arguments":{"level":"info","message":"quiet please"}}`)
	servetest.Call(t, a, "tools/call", `{"name":"demo__log","arguments":{"level":"error","message":"loud and clear"}}`)
	if arec.Saw("quiet please") || !arec.Saw("loud and clear") {
		t.Errorf("the log level was not the server's to keep")
	}

	// Progress, under the client's own token.
	servetest.Call(t, a, "tools/call", `{"name":"demo__slow","arguments":{"seconds":0.2,"steps":2},"_meta":{"progressToken":"mine-7"}}`)
	servetest.WaitFor(t, "a's progress", func() bool { return arec.Saw(`"progressToken":"mine-7"`) })

	// A cancellation: the call ends at once, and the server answers on.
	cctx, ccancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := a.Call(cctx, "tools/call", json.RawMessage(`{"name":"demo__slow","arguments":{"seconds":60,"steps":2}}`))
		done <- err
	}()
	time.AfterFunc(200*time.Millisecond, ccancel)
	select {
	case err := <-done:
		if err == nil {
			t.Error("a cancelled call succeeded")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a cancelled call did not end")
	}
	if got := servetest.Call(t, a, "tools/call", `{"name":"demo__echo","arguments":{"message":"on"}}`); !strings.Contains(string(got), "on") {
		t.Errorf("after the cancellation: %s", got)
	}
}

// TestGatewayListen: a modern client's subscriptions/listen at the
// endpoint, in front of two servers of either era, gets one
// acknowledgement (the list changes it asked for, the resource the server
// that lists it took), then each server's news for it under its one
// subscription id, and a server going down as a list change; nothing it
// did not ask for.
func TestGatewayListen(t *testing.T) {
	t.Parallel()
	for _, upEra := range []string{"legacy", "modern"} {
		for _, side := range []string{"stdio", "http"} {
			t.Run(upEra+"/"+side, func(t *testing.T) {
				t.Parallel()
				s, url := servetest.ListenServer(t, upEra, nil)
				g, _ := startGateway(t, testMember{name: "files", settings: servetest.Settings(url, upEra, nil), eager: true},
					testMember{name: "bad", settings: servetest.FakeStdio("crash"), eager: true})
				servetest.WaitFor(t, "both up", func() bool { return g.member("files").upNow() != nil && g.member("bad").upNow() != nil })
				var c *mcp.Client
				var rec *servetest.Recorder
				if side == "stdio" {
					c, rec = servetest.StdioClient(t, g.Server(), "modern")
				} else {
					_, u := gatewayHTTP(t, g, nil)
					c, rec = servetest.HTTPClient(t, u, "modern", "x")
				}
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				ended := make(chan error, 1)
				go func() {
					_, err := c.Stream(ctx, "subscriptions/listen", json.RawMessage(`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a","file:///nowhere"]}}`))
					ended <- err
				}()
				ack := rec.WaitMessage(t, "notifications/subscriptions/acknowledged")
				if !strings.Contains(ack, `"resourceSubscriptions":["file:///a"]`) || !strings.Contains(ack, `"toolsListChanged":true`) {
					t.Errorf("acknowledgement %s", ack)
				}
				id := servetest.SubscriptionID(t, ack)
				s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///b"}) // not asked for
				s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///a"})
				if upd := rec.WaitMessage(t, "notifications/resources/updated"); !strings.Contains(upd, `"file:///a"`) || servetest.SubscriptionID(t, upd) != id {
					t.Errorf("update %s, want file:///a under %s", upd, id)
				}
				// A server going down changes the list.
				g.member("bad").life.fail(g.member("bad").upNow(), errors.New("taken down by the test"))
				if changed := rec.WaitMessage(t, "notifications/tools/list_changed"); servetest.SubscriptionID(t, changed) != id {
					t.Errorf("list change %s, want it under %s", changed, id)
				}
				for _, m := range rec.All() {
					if strings.Contains(string(m), `file:///b`) {
						t.Errorf("the listener got %s, which it did not ask for", m)
					}
				}
				cancel()
				<-ended
			})
		}
	}
}

// TestGatewayListenEndedStartsNone: a member that comes up as a client's
// listen ends (memberChanged read the listens before the listen left
// them) starts no listen at it: one would begin while the listen's end
// waited for its members' (a WaitGroup's Add racing its Wait) or after,
// and pass news under a subscription that is gone.
func TestGatewayListenEndedStartsNone(t *testing.T) {
	t.Parallel()
	l := &frontListen{started: map[*Member]bool{}, waiting: map[*Member]bool{}, all: make(chan struct{})}
	l.end()
	late := &Member{Name: "late"}
	l.start(late, nil)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.started[late] || l.waiting[late] {
		t.Error("a listen that ended started one at a member come up")
	}
}

// TestGatewayTwoListensOfOneClient: a modern client holding two listens
// at once on one connection (one per resource) gets each its own
// acknowledgement and each resource's updates under the listen that asked
// for them: the second listen does not take over what the first hears.
func TestGatewayTwoListensOfOneClient(t *testing.T) {
	t.Parallel()
	for _, upEra := range []string{"legacy", "modern"} {
		t.Run(upEra, func(t *testing.T) {
			t.Parallel()
			s, url := servetest.ListenServer(t, upEra, nil)
			g, _ := startGateway(t, testMember{name: "files", settings: servetest.Settings(url, upEra, nil), eager: true})
			servetest.WaitFor(t, "files up", func() bool { return g.member("files").upNow() != nil })
			c, rec := servetest.StdioClient(t, g.Server(), "modern")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ended := make(chan error, 2)
			acks := func() []string {
				var out []string
				for _, m := range rec.All() {
					if strings.Contains(string(m), `"method":"notifications/subscriptions/acknowledged"`) {
						out = append(out, string(m))
					}
				}
				return out
			}
			idOf := map[string]string{} // URI -> its listen's subscription id
			for i, uri := range []string{"file:///a", "file:///b"} {
				go func() {
					_, err := c.Stream(ctx, "subscriptions/listen", json.RawMessage(`{"notifications":{"resourceSubscriptions":["`+uri+`"]}}`))
					ended <- err
				}()
				servetest.WaitFor(t, "the acknowledgement of "+uri, func() bool { return len(acks()) == i+1 })
				ack := acks()[i]
				if !strings.Contains(ack, `"resourceSubscriptions":["`+uri+`"]`) {
					t.Fatalf("acknowledgement of %s: %s", uri, ack)
				}
				idOf[uri] = servetest.SubscriptionID(t, ack)
			}
			if idOf["file:///a"] == idOf["file:///b"] {
				t.Fatalf("two listens under one id %s", idOf["file:///a"])
			}
			s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///a"})
			s.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: "file:///b"})
			updates := func() map[string]string {
				got := map[string]string{}
				for _, m := range rec.All() {
					if msg := string(m); strings.Contains(msg, `"method":"notifications/resources/updated"`) {
						for uri := range idOf {
							if strings.Contains(msg, `"`+uri+`"`) {
								got[uri] += servetest.SubscriptionID(t, msg) + " "
							}
						}
					}
				}
				return got
			}
			servetest.WaitFor(t, "both updates", func() bool { return len(updates()) == 2 })
			for uri, ids := range updates() {
				if ids != idOf[uri]+" " {
					t.Errorf("%s's updates came under %s, want once under %s", uri, ids, idOf[uri])
				}
			}
			cancel()
			<-ended
			<-ended
		})
	}
}

// TestGatewayServerListChanged: a server whose tools change tells the
// gateway (tools/list_changed): a client of the endpoint on stdio that
// has only listed (it has met no member: the gateway keeps the lists)
// hears its list of the whole changed, and lists the new tool under the
// server's prefix. Both members are up before it comes, so the news it
// hears is the server's, not of a member coming up.
func TestGatewayServerListChanged(t *testing.T) {
	t.Parallel()
	s, url := servetest.ListenServer(t, "legacy", nil)
	g, _ := startGateway(t, testMember{name: "files", settings: servetest.Settings(url, "legacy", nil), eager: true},
		testMember{name: "other", settings: twoTools(t, "other"), eager: true})
	servetest.WaitFor(t, "both members up", func() bool { return g.member("files").upNow() != nil && g.member("other").upNow() != nil })
	c, rec := servetest.StdioClient(t, g.Server(), "legacy")
	if got := strings.Join(listAll(t, c, "tools/list", "tools"), " "); got != "files__t other__add other__echo" {
		t.Fatalf("tools before: %s", got)
	}
	sdk.AddTool(s, &sdk.Tool{Name: "t2"}, func(context.Context, *sdk.CallToolRequest, struct{}) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{}, nil, nil
	})
	servetest.WaitFor(t, "the client to hear its list changed", func() bool { return rec.Saw("notifications/tools/list_changed") })
	if got := strings.Join(listAll(t, c, "tools/list", "tools"), " "); got != "files__t files__t2 other__add other__echo" {
		t.Errorf("tools after: %s", got)
	}
}

// TestGatewayPromptQuestionsReachTheirCallers: a server's prompt that asks
// its client's name, got by two clients of the endpoint at once (one on
// stdio, one over HTTP): each question reaches the client whose prompts/get
// caused it, though both are in flight at the server.
func TestGatewayPromptQuestionsReachTheirCallers(t *testing.T) {
	t.Parallel()
	g, _ := startGateway(t,
		testMember{name: "m", settings: servetest.Settings(servetest.PairServer(t, 2), "legacy", nil)},
		testMember{name: "demo", settings: servetest.Settings(servetest.DemoURL(t, "legacy"), "legacy", nil)})
	_, u := gatewayHTTP(t, g, nil)
	stdio, _ := servetest.StdioClient(t, g.Server(), "legacy")
	web, _ := servetest.HTTPClient(t, u, "legacy", "http")
	var wg sync.WaitGroup
	for who, c := range map[string]*mcp.Client{"stdio": stdio, "http": web} {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := c.Call(ctx, "prompts/get", json.RawMessage(`{"name":"m__pair"}`))
			if err != nil || !strings.Contains(string(res), `"hello `+who+`"`) {
				t.Errorf("%s's prompt: %s %v, want the answer of %s alone", who, res, err, who)
			}
		})
	}
	wg.Wait()
}
