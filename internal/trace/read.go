package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Line is one line of a trace, as Read decodes it: the members of every
// type of line in one struct.
type Line struct {
	Type    string          `json:"type"`
	T       float64         `json:"t"`
	Session int64           `json:"session,omitempty"`
	Version int             `json:"version,omitempty"`
	Message json.RawMessage `json:"message,omitempty"`
	// A message kept as its head (Cut) or as text: what it was.
	Cut    bool            `json:"cut,omitempty"`
	Size   int64           `json:"size,omitempty"`
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Event  string          `json:"event,omitempty"`
	Line   string          `json:"line,omitempty"`
	Code   *int            `json:"code,omitempty"`
	Error  string          `json:"error,omitempty"`
	Reason string          `json:"reason,omitempty"`
	// ProtocolVersion is a session event's: the version it spoke.
	ProtocolVersion string `json:"protocolVersion,omitempty"`
}

// Read decodes a trace: its first line must be of type "trace" in a
// version this mcpv reads. A last line cut short (a trace whose writer
// was killed mid-write, or copied while written) is left out.
func Read(data []byte) ([]Line, error) {
	if !IsTrace(data) {
		return nil, errors.New(`not a trace of mcpv: its first line is not of type "trace"`)
	}
	var lines []Line
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, MaxFile+MaxMessage)
	n := 0
	for sc.Scan() {
		n++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var l Line
		if err := json.Unmarshal(raw, &l); err != nil {
			if n > 1 && !bytes.Contains(data[len(data)-1:], []byte("\n")) && bytes.HasSuffix(data, raw) {
				break // the last line, cut short
			}
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		if n == 1 && l.Version != Version {
			return nil, fmt.Errorf("a trace of version %d, which this mcpv does not read (it reads version %d)", l.Version, Version)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return lines, nil
}

// Exchange is a request of the client's in a trace and what answered
// it, with what the server said meanwhile.
type Exchange struct {
	Session int64
	Method  string
	Params  json.RawMessage
	// Result or Error is the answer; neither when none came (the run
	// ended first, or the request was cancelled) or it was cut (Cut).
	Result json.RawMessage
	Error  json.RawMessage
	Cut    bool
	// Between are the server's notifications and requests that came
	// while it was open, in order, each a whole message.
	Between []json.RawMessage
}

// wire is the part of a JSON-RPC message Exchanges reads.
type wire struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// Exchanges are the client's requests in lines, in the order they were
// sent, each with its answer. A batch the client sent is taken apart.
func Exchanges(lines []Line) []*Exchange {
	var all []*Exchange
	open := map[string]*Exchange{} // session and id of each request not answered yet
	key := func(session int64, id json.RawMessage) string {
		var b bytes.Buffer
		if json.Compact(&b, id) != nil {
			return fmt.Sprint(session) + "\x00" + string(id)
		}
		return fmt.Sprint(session) + "\x00" + b.String()
	}
	for _, l := range lines {
		if l.Type != "send" && l.Type != "receive" {
			continue
		}
		if l.Message == nil { // kept as its head: what it answered is known
			if l.Type == "receive" && l.ID != nil {
				if e := open[key(l.Session, l.ID)]; e != nil && l.Method == "" {
					e.Cut = true
					delete(open, key(l.Session, l.ID))
				}
			}
			continue
		}
		for _, m := range messages(l.Message) {
			var w wire
			if json.Unmarshal(m, &w) != nil {
				continue
			}
			switch {
			case l.Type == "send" && w.Method != "" && w.ID != nil:
				e := &Exchange{Session: l.Session, Method: w.Method, Params: w.Params}
				all = append(all, e)
				open[key(l.Session, w.ID)] = e
			case l.Type == "receive" && w.Method == "" && w.ID != nil:
				if e := open[key(l.Session, w.ID)]; e != nil {
					e.Result, e.Error = w.Result, w.Error
					delete(open, key(l.Session, w.ID))
				}
			case l.Type == "receive" && w.Method != "":
				// What the server says while requests are open belongs,
				// as far as a trace can tell, to the last one asked.
				for i := len(all) - 1; i >= 0; i-- {
					if e := all[i]; e.Session == l.Session && e.open(open) {
						e.Between = append(e.Between, m)
						break
					}
				}
			}
		}
	}
	return all
}

// messages are the messages of a line: one, or each of a batch (a batch
// that does not decode is one message that does not, skipped as one).
func messages(raw json.RawMessage) []json.RawMessage {
	var batch []json.RawMessage
	if len(raw) > 0 && raw[0] == '[' && json.Unmarshal(raw, &batch) == nil {
		return batch
	}
	return []json.RawMessage{raw}
}

// open says whether e is among the requests not answered yet.
func (e *Exchange) open(open map[string]*Exchange) bool {
	for _, o := range open {
		if o == e {
			return true
		}
	}
	return false
}
