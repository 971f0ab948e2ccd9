package serverstate

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/listcache"
)

// TestManyPagesEncodedAtOnce: a walk of a list that never ends keeps
// tens of thousands of small pages, more than a file holds; the file is
// cut to the smallest that fit, each measured once, not encoded again for
// each page cut (which took hours).
func TestManyPagesEncodedAtOnce(t *testing.T) {
	t.Parallel()
	const pages = 60_000
	f := file{Version: fileVersion, Server: server.Server}
	expires := time.Unix(2_000_000, 0).UTC()
	for i := range pages {
		f.Lists = append(f.Lists, listcache.Kept{
			Key:     fmt.Sprintf("tools/list\x00\x01s%d", i),
			List:    "tools",
			Result:  json.RawMessage(fmt.Sprintf(`{"tools":[{"name":"endless-%d","inputSchema":{"type":"object"}}],"nextCursor":"%d"}`, i, i+1)),
			Expires: expires,
		})
	}
	type encoded struct {
		data []byte
		err  error
	}
	done := make(chan encoded, 1)
	go func() { // the encoding: ends with encode
		data, err := encode(f)
		done <- encoded{data, err}
	}()
	var e encoded
	select {
	case e = <-done:
	case <-time.After(2 * time.Minute): // seconds at most, even on a busy machine
		t.Fatalf("%d pages: still encoding after 2 minutes", pages)
	}
	if e.err != nil || len(e.data) > MaxFileBytes {
		t.Fatalf("encode: %v, %d bytes (at most %d)", e.err, len(e.data), MaxFileBytes)
	}
	var back file
	if err := json.Unmarshal(e.data, &back); err != nil {
		t.Fatal(err)
	}
	one, _ := json.Marshal(f.Lists[0])
	if n := len(back.Lists); n == 0 || n == pages || len(e.data)+2*(len(one)+1) <= MaxFileBytes {
		t.Errorf("%d of %d pages kept in %d bytes: want as many as fit in %d", n, pages, len(e.data), MaxFileBytes)
	}
}
