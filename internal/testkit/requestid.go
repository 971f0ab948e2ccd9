package testkit

import (
	"encoding/json"
	"strings"
)

// RequestID is the id of the first request of method in log, JSON-RPC
// messages a line each (what a fake server logs it read), or "" when there
// is none. Tests find a request's id so rather than count: a slow server
// is pinged before initialize, which moves every id after it.
func RequestID(log, method string) string {
	for line := range strings.Lines(log) {
		var m struct {
			ID     json.RawMessage
			Method string
		}
		if json.Unmarshal([]byte(line), &m) == nil && m.Method == method && m.ID != nil {
			return string(m.ID)
		}
	}
	return ""
}
