package serve

import (
	"encoding/json"
	"sync/atomic"
)

// logRank ranks the log levels (RFC 5424's, as MCP names them).
var logRank = map[string]int32{"debug": 1, "info": 2, "notice": 3, "warning": 4, "error": 5, "critical": 6, "alert": 7, "emergency": 8}

// logLevel is the level a client asked for with logging/setLevel (its
// rank; 0 until it asks): it is given the server's log messages at that
// level or above.
type logLevel struct{ rank atomic.Int32 }

// LogLevelKnown reports whether logging/setLevel's params name a level.
func LogLevelKnown(params json.RawMessage) bool { return levelOf(params) != 0 }

func levelOf(params json.RawMessage) int32 {
	var p struct {
		Level string `json:"level"`
	}
	if json.Unmarshal(params, &p) != nil {
		return 0 // no level's name: refused as an unknown one (LogLevelKnown), ranked lowest in a message
	}
	return logRank[p.Level]
}

// wantsLog reports whether the client of r asked for a log message
// (notifications/message params): a modern request at its own level (its
// _meta logLevel), a client of the initialize era at the level it set.
func (r *relayed) wantsLog(params json.RawMessage) bool {
	if r.c.isModern() {
		// "" takes none
		// (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging).
		return r.level != "" && levelOf(params) >= logRank[r.level]
	}
	asked := r.c.level.rank.Load()
	return asked == 0 || levelOf(params) >= asked
}

// sharedLevel notes the level a client of a shared upstream session of
// the initialize era asks for, and gives the params to send upstream: the
// lowest level any of its clients has asked for, so that one client's
// level never takes from another the messages it asked for (each is then
// given its own level's).
func (u *upstream) sharedLevel(c *client, params json.RawMessage) json.RawMessage {
	rank := levelOf(params)
	if rank == 0 {
		return params // a level the server is to judge
	}
	c.level.rank.Store(rank)
	lowest := rank
	for _, o := range u.clientsWhere(func(*client) bool { return true }) {
		if r := o.level.rank.Load(); r != 0 && r < lowest {
			lowest = r
		}
	}
	if lowest == rank {
		return params
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return params
	}
	for name, r := range logRank {
		if r == lowest {
			p["level"] = mustJSON(name)
		}
	}
	return mustJSON(p)
}
