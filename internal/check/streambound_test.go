package check

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An event stream that floods before its response: the exchange keeps as
// many of its messages as a connection's log, says how many more came,
// and keeps the response, which the checks read.
func TestStreamFloodKeepsItsResponse(t *testing.T) {
	const flood = maxLog + 500
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.NewDecoder(req.Body).Decode(&m); err != nil || m.ID == nil {
			w.WriteHeader(http.StatusAccepted) // notifications/initialized
			return
		}
		if m.Method == "initialize" {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"flood","version":"1"}}}`, m.ID)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		var b strings.Builder
		for i := range flood {
			fmt.Fprintf(&b, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":%d}}\n\n", i)
		}
		fmt.Fprintf(&b, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n\n", m.ID)
		w.Write([]byte(b.String()))
	}))
	defer srv.Close()
	r := newRunner(t.Context(), &Target{URL: srv.URL, Client: srv.Client(), Plain: srv.Client()}, Options{}.withDefaults())
	defer r.closeAll()
	c, err := r.dial(t.Context(), connOptions{era: "legacy"})
	if err != nil {
		t.Fatal(err)
	}
	x, err := c.post(t.Context(), httpReq{body: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}, json.RawMessage("1"))
	if err != nil {
		t.Fatal(err)
	}
	if x.response == nil || len(x.msgs) != maxLog+1 || !x.msgs[len(x.msgs)-1].msg.IsResponse() || x.dropped != flood-maxLog {
		t.Errorf("kept %d messages (the last a response: %v), dropped %d, response %v; want %d, the response last, %d dropped",
			len(x.msgs), len(x.msgs) > 0 && x.msgs[len(x.msgs)-1].msg.IsResponse(), x.dropped, x.response != nil, maxLog+1, flood-maxLog)
	}
	if !strings.Contains(x.String(), fmt.Sprintf("(%d more messages on its stream, not kept)", flood-maxLog)) {
		t.Errorf("the exchange's line does not say what was not kept: %s", x)
	}
}
