package mcp

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// roundTrips answers each request with the next error of errs (nil: a 200),
// keeping each body it was sent.
type roundTrips struct {
	errs   []error
	bodies []string
}

func (r *roundTrips) RoundTrip(req *http.Request) (*http.Response, error) {
	b, _ := io.ReadAll(req.Body)
	r.bodies = append(r.bodies, string(b))
	err := r.errs[len(r.bodies)-1]
	if err != nil {
		return nil, err
	}
	return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("{}")), Request: req}, nil
}

// A request net/http gave a connection the server had closed while it was
// idle goes once more, body and all, on a new one: the server read none of
// it. Any other failure is the caller's, and a second closed connection too.
func TestDoAgainAfterAConnectionClosedIdle(t *testing.T) {
	closedIdle := errors.New("http: server closed idle connection")
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`
	for _, tc := range []struct {
		name  string
		errs  []error
		sends int
		ok    bool
	}{
		{"closed while idle", []error{closedIdle, nil}, 2, true},
		{"closed while idle twice", []error{closedIdle, closedIdle}, 2, false},
		{"the answer cut short", []error{io.ErrUnexpectedEOF, nil}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := &roundTrips{errs: tc.errs}
			req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:9/mcp", bytes.NewReader([]byte(call)))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := DoAgain(&http.Client{Transport: rt}, req)
			if (err == nil) != tc.ok {
				t.Errorf("err %v", err)
			}
			if resp != nil {
				resp.Body.Close()
			}
			if len(rt.bodies) != tc.sends {
				t.Fatalf("sent %d times, want %d", len(rt.bodies), tc.sends)
			}
			for _, b := range rt.bodies {
				if b != call {
					t.Errorf("sent %q", b)
				}
			}
		})
	}
}
