package mcp

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

func TestExportedWire(t *testing.T) {
	msgs, err := DecodeMessages([]byte(`[{"jsonrpc":"2.0","id":"a","method":"ping"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":0,"result":{}},{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}]`))
	if err != nil {
		t.Fatal(err)
	}
	kinds := ""
	for _, m := range msgs {
		switch {
		case m.IsRequest():
			kinds += "q"
		case m.IsNotification():
			kinds += "n"
		case m.IsResponse():
			kinds += "r"
		}
	}
	if kinds != "qnrr" || string(msgs[2].ID) != "0" || msgs[3].ID != nil || msgs[3].Error.Code != -32700 {
		t.Errorf("kinds %q, messages %+v", kinds, msgs)
	}
	b, err := EncodeRequest([]byte(`"x"`), "ping", nil)
	if err != nil || string(b) != `{"jsonrpc":"2.0","id":"x","method":"ping"}` {
		t.Errorf("EncodeRequest = %s, %v", b, err)
	}
}

func TestHTTPMaxMessage(t *testing.T) {
	t.Parallel()
	big := `{"content":[{"type":"text","text":"` + strings.Repeat("x", 300<<10) + `"}]}`
	for _, sse := range []bool{false, true} {
		name := map[bool]string{false: "JSON", true: "SSE"}[sse]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{SSE: sse, Post: answerTo("tools/call", func(x *mcptest.Exchange) {
				x.Reply(x.Result(big))
			})})
			h := dialHTTP(t, HTTPOptions{URL: srv.URL, MaxMessage: 256 << 10}, SessionOptions{})
			c := h.initialize(t)
			_, err := c.Call(testCtx(t), "tools/call", []byte(`{"name":"x"}`))
			var se *MessageSizeError
			if !errors.As(err, &se) || se.Limit != 256<<10 {
				t.Fatalf("err = %v, want a MessageSizeError of 256 KiB", err)
			}
			if !strings.Contains(err.Error(), "more than 256 KiB") {
				t.Errorf("err = %v", err)
			}
			// The limit is per message: the session goes on.
			if _, err := c.Call(testCtx(t), "ping", nil); err != nil {
				t.Errorf("ping after: %v", err)
			}
		})
	}
}
