package keeper

import (
	"bufio"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// While one command's large result is being written to it, the keeper
// reads no more of the server: the next result waits in the server until
// the command has read the large one. The hand-off and the hold are an
// hour, not the moments a busy machine may take to route the result.
func TestLargeResultHoldsServerBack(t *testing.T) {
	calls := make(chan wire, 2)
	r := startKeeper(t, func(f *fakeServer, m wire) {
		if m.Method == "tools/call" {
			calls <- m
		}
	}, func(k *Keeper) { k.HoldLarge, k.handoff = time.Hour, time.Hour })
	nc, err := net.Dial("unix", filepath.Join(r.dir, r.name+".sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReaderSize(nc, 1<<20)
	nc.Write([]byte(attachLine))
	if _, err := readControl(br); err != nil { // hello; then the command reads nothing for a while
		t.Fatal(err)
	}
	nc.Write([]byte(`{"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"large"}}}` + "\n"))
	large := <-calls
	b := r.attach(t)
	done := make(chan string, 1)
	go func() { res, _ := b.call("tools/call", `{"name":"small"}`); done <- res }()
	small := <-calls

	text := strings.Repeat("x", bigMessage+1)
	r.srv.reply(large, `{"content":[{"type":"text","text":"`+text+`"}]}`)
	r.srv.reply(small, `{"content":[]}`)
	for deadline := time.Now().Add(time.Minute); len(r.srv.out) > 1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond) // the large result read
	}
	select {
	case res := <-done:
		t.Fatalf("the small result came while the large one was unread: %s", res)
	case <-time.After(500 * time.Millisecond):
	}
	if n := len(r.srv.out); n != 1 {
		t.Errorf("%d messages wait in the server, want the small result's", n)
	}
	line, err := readLine(br)
	if err != nil || !strings.Contains(string(line), text) {
		t.Fatalf("the large result: %d bytes, %v", len(line), err)
	}
	select {
	case res := <-done:
		if res != `{"content":[]}` {
			t.Errorf("the small result: %s", res)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the small result never came once the large one was read")
	}
}

// A command that does not read its large result holds the others up for
// HoldLarge only: then the session reads on, and once more only for the
// next large result.
func TestUnreadLargeResultHoldsOthersBriefly(t *testing.T) {
	calls := make(chan wire, 8)
	r := startKeeper(t, func(f *fakeServer, m wire) {
		if m.Method == "tools/call" {
			calls <- m
		}
	}, func(k *Keeper) { k.HoldLarge, k.handoff = 100*time.Millisecond, time.Hour })
	nc, err := net.Dial("unix", filepath.Join(r.dir, r.name+".sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.Write([]byte(attachLine))
	nc.Write([]byte(`{"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"large"}}}` + "\n"))
	large := <-calls
	b := r.attach(t)
	r.srv.reply(large, `{"content":[{"type":"text","text":"`+strings.Repeat("x", bigMessage+1)+`"}]}`)
	for i := range 3 { // the first waits out the hold; the others do not wait again
		done := make(chan string, 1)
		go func() { res, _ := b.call("tools/call", `{"name":"small"}`); done <- res }()
		r.srv.reply(<-calls, `{"content":[]}`)
		select {
		case res := <-done:
			if res != `{"content":[]}` {
				t.Errorf("small result %d: %s", i, res)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("small result %d never came while the large one was unread", i)
		}
	}
	if n := pending(r.k); n != 1 {
		t.Errorf("%d large results waiting, want the unread one", n)
	}
	held := 0
	for more := true; more; {
		select {
		case line := <-r.logs:
			if strings.Contains(line, "slow to read a large result") {
				held++
			}
		default:
			more = false
		}
	}
	if held != 1 {
		t.Errorf("the server was held back for the unread result %d times, want once", held)
	}
}

// A large message that reaches no command holds the server back a moment
// only (handoffWait), not the hold of a large result, an hour here; and the
// accounting of large results ends at zero once every command has had its
// own, read or not.
func TestLargeMessageForNoOne(t *testing.T) {
	const hold = time.Hour
	r := startKeeper(t, echo, func(k *Keeper) { k.HoldLarge = hold })
	c := r.attach(t)
	text := strings.Repeat("y", bigMessage+1)
	r.srv.send(`{"jsonrpc":"2.0","id":"nobody","result":{"text":"` + text + `"}}`)
	start := time.Now()
	if res, err := c.call("ping", `{}`); err != nil || res != `{}` {
		t.Fatalf("ping after a large message for no one: %s, %v", res, err)
	}
	if waited := time.Since(start); waited >= hold/2 {
		t.Errorf("ping waited %v", waited)
	}
	// A command that leaves with its large result unread.
	nc, err := net.Dial("unix", filepath.Join(r.dir, r.name+".sock"))
	if err != nil {
		t.Fatal(err)
	}
	nc.Write([]byte(attachLine))
	nc.Write([]byte(`{"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + `{"text":"` + text + `"}` + `}}` + "\n"))
	r.srv.waitFor(t, "tools/call")
	deadline := time.Now().Add(30 * time.Second)
	for pending(r.k) == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	nc.Close()
	for pending(r.k) != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := pending(r.k); n != 0 {
		t.Errorf("%d large results still counted after their command left", n)
	}
	if res, err := c.call("ping", `{}`); err != nil || res != `{}` {
		t.Errorf("ping after the command left: %s, %v", res, err)
	}
}

func pending(k *Keeper) int {
	k.large.mu.Lock()
	defer k.large.mu.Unlock()
	return k.large.pending
}
