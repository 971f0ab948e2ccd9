package keeper

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// next is the command's next notification.
func (c *command) next(t *testing.T) string {
	t.Helper()
	select {
	case n := <-c.notes:
		return n
	case <-time.After(30 * time.Second):
		t.Fatal("no notification came")
		return ""
	}
}

const (
	logNote     = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%s"}}`
	listChanged = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
)

func logMsg(data string) string { return strings.Replace(logNote, "%s", data, 1) }

// Each command gets the notifications that belong to it: a log message
// sent while only its request is in flight, its progress, the updates of
// what it subscribed to; a list's change goes to every command; what
// belongs to no one command goes to none.
func TestNotificationsGoToTheirCommand(t *testing.T) {
	r := startKeeper(t, func(f *fakeServer, m wire) {
		if m.Method == "resources/subscribe" {
			f.reply(m, `{}`)
		}
	})
	a, b := r.attach(t), r.attach(t)
	if _, err := a.call("resources/subscribe", `{"uri":"demo://a"}`); err != nil {
		t.Fatal(err)
	}
	a.goCall("tools/call", `{"name":"slow","_meta":{"progressToken":"pa"}}`)
	callA := r.srv.waitFor(t, "tools/call")
	r.srv.send(logMsg("for a"))
	r.srv.send(listChanged)
	if got := a.next(t); !strings.Contains(got, `"data":"for a"`) {
		t.Errorf("a got %s", got)
	}
	if got := a.next(t); got != "notifications/tools/list_changed " {
		t.Errorf("a got %s", got)
	}
	if got := b.next(t); got != "notifications/tools/list_changed " {
		t.Errorf("b got %s, before the list's change", got)
	}

	b.goCall("tools/call", `{"name":"slow","_meta":{"progressToken":"pb"}}`)
	callB := r.srv.waitFor(t, "tools/call")
	var p struct {
		Meta struct {
			Token json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	json.Unmarshal(callB.Params, &p)
	r.srv.send(logMsg("for no one"))
	r.srv.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + string(p.Meta.Token) + `,"progress":1}}`)
	r.srv.send(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"demo://a"}}`)
	r.srv.send(listChanged)
	if got := b.next(t); got != `notifications/progress {"progress":1,"progressToken":"pb"}` {
		t.Errorf("b got %s, before its progress", got)
	}
	if got := a.next(t); got != `notifications/resources/updated {"uri":"demo://a"}` {
		t.Errorf("a got %s, before its update", got)
	}
	for name, c := range map[string]*command{"a": a, "b": b} {
		if got := c.next(t); got != "notifications/tools/list_changed " {
			t.Errorf("%s got %s, before the list's change", name, got)
		}
	}
	r.srv.reply(callA, `{}`)
	r.srv.reply(callB, `{}`)
}

// A command that does not read is let go, with a line that says why, once
// the notifications waiting for it pass the bound; the keeper does not
// wait for it, and another command goes on meanwhile.
func TestStalledCommandLetGo(t *testing.T) {
	r := startKeeper(t, func(f *fakeServer, m wire) {
		if m.Method == "ping" {
			f.reply(m, `{}`)
		}
	})
	nc, err := net.Dial("unix", filepath.Join(r.dir, r.name+".sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.Write([]byte(`{"attach":{}}` + "\n" + `{"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}}` + "\n"))
	other := r.attach(t) // with no request in flight: the flood is not its
	r.srv.waitFor(t, "tools/call")
	// The session drops log messages that wait too long for its
	// dispatcher, so the flood goes on until the command is let go; a few
	// at a time, so that little of it is left for the other command once
	// it stops.
	chunk := readItem{data: []byte(logMsg(strings.Repeat("z", 64<<10)))}
	flooded, stop := make(chan struct{}), make(chan struct{})
	go func() { // ends when the test has seen the command let go
		defer close(flooded)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if len(r.srv.out) < 4 {
				r.srv.out <- chunk
			} else {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	r.waitLog(t, "a command was disconnected")
	close(stop)
	<-flooded
	if _, err := other.call("ping", `{}`); err != nil {
		t.Errorf("another command meanwhile: %v", err)
	}
	br := bufio.NewReaderSize(nc, 1<<20)
	var last string
	for {
		line, err := readLine(br)
		if err != nil {
			break
		}
		last = string(line)
	}
	if !strings.Contains(last, `{"closed":"the command read too slowly: 8 MiB of the server's notifications waited for it, and the session let it go"}`) {
		t.Errorf("the last line: %.200s", last)
	}
}

// A subscription is the session's, shared by its commands: the server is
// asked to subscribe by the first command only, and to unsubscribe when
// the last one unsubscribes or leaves, so that one command's unsubscribe
// does not end another's updates.
func TestSubscriptionsShared(t *testing.T) {
	r := startKeeper(t, echo)
	a, b := r.attach(t), r.attach(t)
	if _, err := a.call("resources/subscribe", `{"uri":"demo://a"}`); err != nil {
		t.Fatal(err)
	}
	r.srv.waitFor(t, "resources/subscribe")
	for _, step := range []struct {
		c              *command
		method, params string
	}{{b, "resources/subscribe", `{"uri":"demo://a"}`}, {a, "resources/unsubscribe", `{"uri":"demo://a"}`}, {b, "ping", `{}`}} {
		if _, err := step.c.call(step.method, step.params); err != nil {
			t.Errorf("%s: %v", step.method, err)
		}
	}
	if m := r.srv.next(t); m.Method != "ping" {
		t.Errorf("the server got %s while a command still subscribes", m.raw)
	}
	r.srv.send(`{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"demo://a"}}`)
	r.srv.send(listChanged)
	if got := b.next(t); got != `notifications/resources/updated {"uri":"demo://a"}` {
		t.Errorf("b got %s, before its update", got)
	}
	if got := a.next(t); got != "notifications/tools/list_changed " {
		t.Errorf("a got %s, after it unsubscribed", got)
	}
	b.client.Close(context.Background())
	if m := r.srv.next(t); m.Method != "resources/unsubscribe" || string(m.Params) != `{"uri":"demo://a"}` {
		t.Errorf("the server got %s once the last subscriber left", m.raw)
	}
}

// An open subscriptions/listen stream is not a request in flight: a log
// message of another command's call goes to that command, and one that
// belongs to no call goes to no one, the watch included.
func TestListenIsNotBusy(t *testing.T) {
	r := startKeeper(t, nil)
	watcher, b := r.attach(t), r.attach(t)
	watcher.goCall("subscriptions/listen", `{"notifications":{"resourceSubscriptions":["demo://clock"]}}`)
	r.srv.waitFor(t, "subscriptions/listen")
	r.srv.send(logMsg("for no one"))
	r.srv.send(listChanged)
	for name, c := range map[string]*command{"the watcher": watcher, "b": b} {
		if got := c.next(t); got != "notifications/tools/list_changed " {
			t.Errorf("%s got %s, before the list's change", name, got)
		}
	}
	b.goCall("tools/call", `{"name":"log"}`)
	call := r.srv.waitFor(t, "tools/call")
	r.srv.send(logMsg("for b"))
	if got := b.next(t); !strings.Contains(got, `"data":"for b"`) {
		t.Errorf("b got %s", got)
	}
	r.srv.reply(call, `{}`)
}
