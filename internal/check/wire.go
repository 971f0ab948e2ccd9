package check

// What a connection reads, as it came: each wire unit (a line of stdout,
// an HTTP body, an event's data) decoded into the messages it holds, and
// the lines of stdout that are no JSON held together until they are known
// to make one message written over several lines (a framing defect, which
// jsonrpc.framing names) or not (stray output, which jsonrpc.stdout-only
// names), so that one defect is reported by one check.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// unitsOf are the messages of one wire unit, as seen; framing marks them
// as written over several lines, and stdio a unit of the main session
// (whose via is "session") that came on a stdio server's stdout.
func unitsOf(data []byte, via, era string, framing, stdio bool) []seen {
	msgs, err := mcp.DecodeMessages(data)
	var out []seen
	if err != nil {
		s := seen{raw: clip(string(data), maxKept), bad: err.Error(), via: via, era: era}
		if s.jsonLog = (via == "stdout" || via == "session" && stdio) && rawjson.IsObject(data) && json.Valid(data) && rawjson.Member(data, "jsonrpc") == nil; s.jsonLog {
			s.bad = junkLine // stdout-only's, read whole before it is clipped
		}
		return append(out, s)
	}
	if !utf8.Valid(data) {
		out = append(out, seen{raw: clip(string(data), maxKept), bad: notUTF8, via: via, era: era})
	}
	batch := rawjson.SkipSpace(data, 0) < len(data) && data[rawjson.SkipSpace(data, 0)] == '['
	for _, m := range msgs {
		s := seen{msg: m, raw: clip(string(data), maxKept), via: via, era: era, framing: framing, batched: batch}
		if batch { // each part said apart
			s.raw = fmt.Sprintf("(in a batch of %d) %s", len(msgs), describe(m))
		} else {
			s.shape = shapeOf(data, m)
			s.nullRequest = m.Method != "" && m.ID == nil && rawjson.IsObject(data) && isNull(rawjson.Member(data, "id"))
			s.oddID = m.IsRequest() && !stringOrInteger(m.ID)
			s.nullCursor = m.IsResponse() && rawjson.IsObject(m.Result) && isNull(rawjson.Member(m.Result, "nextCursor"))
		}
		out = append(out, s)
	}
	return out
}

// isNull reports whether raw is JSON's null.
func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// What a line of stdout that is no JSON on its own may be besides text
// (junkLine): a message behind a byte order mark, or the header of a
// message framed as LSP frames them.
const (
	bomLine    = "it begins with a byte order mark (U+FEFF), which JSON text sent to another program must not"
	headerLine = "it is a Content-Length header: the server frames its messages with headers, not one a line"
)

// Bounds of the lines held as a message that may be written over several.
const (
	maxFragmentBytes = 4 << 20
	maxFragments     = 100000
)

// fragments are lines of stdout that are no JSON on their own, held
// while they may still make one message: a line beginning with { or [
// that is no JSON starts it, and each line after it is added until the
// whole is JSON (the message is complete), or the bounds are passed and
// the lines are given up as what each is alone. The checks' connections
// and the main session read their stdout through one.
type fragments struct {
	mu    sync.Mutex // guards the lines held
	lines [][]byte
	unit  []bool // the line came as a unit (it begins with { or [)
	size  int
	whole func([]byte)   // takes the message the lines make
	give  func(seenLine) // takes a line given up, alone
	held  func()         // told of each line held, or nil
}

// holds reports whether lines are held.
func (f *fragments) holds() bool {
	return locked(&f.mu, func() bool { return len(f.lines) > 0 })
}

// junk takes a line of stdout that is no JSON (mcp.CommandOptions.Junk),
// on the reader goroutine: alone when no line is held, else with them.
func (f *fragments) junk(line []byte) {
	if !f.holds() {
		f.give(seenLine{line, false})
		return
	}
	f.piece(seenLine{line, false})
}

// piece takes a line that may begin or go on with the lines held: the
// message they make once complete; past the bounds, the lines held and
// it are given up.
func (f *fragments) piece(l seenLine) {
	f.mu.Lock()
	over := f.size+len(l.line) > maxFragmentBytes || len(f.lines) >= maxFragments
	var whole []byte
	if !over {
		f.lines = append(f.lines, bytes.Clone(l.line))
		f.unit = append(f.unit, l.unit)
		f.size += len(l.line) + 1
		if t := bytes.TrimSpace(l.line); len(t) > 0 && (t[0] == '}' || t[0] == ']') {
			if whole = bytes.Join(f.lines, []byte("\n")); json.Valid(whole) {
				f.lines, f.unit, f.size = nil, nil, 0
			} else {
				whole = nil
			}
		}
	}
	f.mu.Unlock()
	if f.held != nil {
		f.held()
	}
	switch {
	case whole != nil:
		f.whole(whole)
	case over:
		f.flush()
		f.give(l)
	}
}

// flush gives up the lines held, as what each is alone.
func (f *fragments) flush() {
	f.mu.Lock()
	lines, unit := f.lines, f.unit
	f.lines, f.unit, f.size = nil, nil, 0
	f.mu.Unlock()
	for i, l := range lines {
		f.give(seenLine{l, unit[i]})
	}
}

// seenLine is a line given up: a unit the transport read as a message,
// or a line it skipped.
type seenLine struct {
	line []byte
	unit bool
}

// seenOf is a line given up, as the watches see it.
func (l seenLine) seenOf(via, era string) []seen {
	if l.unit {
		return unitsOf(l.line, via, era, false, false)
	}
	bad, t := junkLine, bytes.TrimSpace(l.line)
	if rest, ok := bytes.CutPrefix(t, []byte("\uFEFF")); ok && json.Valid(rest) {
		bad = bomLine
	} else if name, value, ok := bytes.Cut(t, []byte(":")); ok && strings.EqualFold(string(bytes.TrimSpace(name)), "Content-Length") && digits(string(bytes.TrimSpace(value))) {
		bad = headerLine
	}
	return []seen{{raw: clip(string(l.line), maxKept), bad: bad, via: via, era: era}}
}

// twinKey is an id's text with a string's quotes taken off: 1 and "1"
// have one.
func twinKey(id json.RawMessage) string { return strings.Trim(strings.TrimSpace(string(id)), `"`) }

// idSet is a set of ids (canonical, idKey) bounded to the last maxIDs,
// each with a value: for an id answered, what its answer said (answerDigest).
type idSet struct {
	ids   map[string]string
	order []string
}

const maxIDs = 4096

func (s *idSet) add(k string) bool { return s.put(k, "") }

// put adds k with v, unless k is there already (with the first value):
// add and put report whether it was not.
func (s *idSet) put(k, v string) bool {
	if s.has(k) {
		return false
	}
	if len(s.order) == maxIDs {
		delete(s.ids, s.order[0])
		s.order = s.order[1:]
	}
	store(&s.ids, k, v)
	s.order = append(s.order, k)
	return true
}

func (s *idSet) has(k string) bool {
	_, ok := s.ids[k]
	return ok
}

// answerDigest is what a response says (its result or error), hashed: the
// same response again says the same, another under the same id not.
func answerDigest(m mcp.Message) string {
	h := fnv.New64a()
	h.Write(bytes.TrimSpace(m.Result))
	if m.Error != nil {
		fmt.Fprintf(h, "\x00%d\x00%s\x00%s", m.Error.Code, m.Error.Message, m.Error.Data)
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

// responseID is the check that names a response under an id no request
// waiting had.
const responseID = "jsonrpc.response-id"

// unpending says what a response under k, which no request waiting had
// (no twin), is: "" for the same answer again (jsonrpc.one-response's) or
// a late one (k sent, not answered); else whether k answered another
// request before or none, and the requests waiting it may be meant for.
func unpending(sent, answered *idSet, k string, m mcp.Message, waits []string) string {
	before, was := answered.ids[k]
	if was && before == answerDigest(m) || !was && sent.has(k) {
		return ""
	}
	said := "which no request had"
	if was {
		said = "which answered another request before"
	}
	if len(waits) > 0 {
		said += "; it may be the answer to " + strings.Join(waits, " or ")
	}
	return said
}

// strayAnswer ends the wait of the one request waiting when a response
// came under an id no request had: most likely its answer.
type strayAnswer struct{ raw, said string }

func (e *strayAnswer) Error() string {
	return "the server answered under an id no request waiting had, " + e.said + ": " + clip(e.raw, 200)
}

// strayIn says how err is an answer under an id no request waiting had
// (a wait it ended, an HTTP answer that held it and not its request's).
func strayIn(err error) string {
	var sa *strayAnswer
	var na *noAnswer
	switch {
	case errors.As(err, &sa):
		return sa.Error()
	case errors.As(err, &na):
		for _, s := range na.x.msgs {
			if s.unpending != "" {
				return (&strayAnswer{raw: s.raw, said: s.unpending}).Error()
			}
		}
	}
	return ""
}

// stringOrInteger reports whether an id is a JSON string or an integer.
func stringOrInteger(id json.RawMessage) bool {
	_, err := rawjson.String(id)
	return err == nil || digits(strings.TrimPrefix(strings.TrimSpace(string(id)), "-"))
}

// given are the progress tokens the client's requests carried on one
// connection or session, for progress that comes once its request has
// completed (utilities.unknown-progress). A stream is where messages come
// in the order the server wrote them: stdout, or over HTTP one request's
// event stream (its idKey); "" is one of no known order (a GET stream),
// where nothing is judged.
type given struct {
	tokens map[string]*givenToken // by the token's idKey
	reqs   map[string]string      // the token of each request, by the request's idKey
}

type givenToken struct {
	req, said string // the request given the token last: its idKey, and "tools/call (id 3)"
	done      string // the stream its response came on, once that completed it
}

// sent notes a request: its token is its own from now on, and active.
func (g *given) sent(m mcp.Message) {
	tok := member(member(m.Params, "_meta"), "progressToken")
	if !m.IsRequest() || tok == nil || len(g.tokens) >= maxIDs {
		return
	}
	if old := g.tokens[idKey(tok)]; old != nil {
		delete(g.reqs, old.req)
	}
	store(&g.tokens, idKey(tok), &givenToken{req: idKey(m.ID), said: fmt.Sprintf("%s (id %s)", m.Method, clip(string(m.ID), 60))})
	store(&g.reqs, idKey(m.ID), idKey(tok))
}

// answered notes a response that came on stream. A task's creation
// completes nothing (its token is the task's until it ends, 2025-11-25
// basic/utilities/progress), nor an input_required result (2026-07-28).
func (g *given) answered(m mcp.Message, stream string) {
	rt, _ := str(member(m.Result, "resultType"))
	if !m.IsResponse() || m.ID == nil || stream == "" || m.Error == nil && (member(m.Result, "task") != nil || rt != "" && rt != "complete") {
		return
	}
	if t := g.tokens[g.reqs[idKey(m.ID)]]; t != nil && t.req == idKey(m.ID) && t.done == "" {
		t.done = stream
	}
}

// late names the request of a progress notification's token when its
// response came before it on the same stream, else "".
func (g *given) late(m mcp.Message, stream string) string {
	if t := g.tokens[idKey(member(m.Params, "progressToken"))]; m.Method == "notifications/progress" && stream != "" && t != nil && t.done == stream {
		return t.said
	}
	return ""
}

// reuse notes id, of a request of the server's, as asked, and says
// whether the server used id before: "" not, "answered" for a request
// the client had answered, "unanswered" for one it had not. 2025-11-25
// has no exception for a request sent again unanswered (its redelivery is
// an event replayed on a resumed HTTP stream, read once): both are a
// second use.
func reuse(asked, replied *idSet, id json.RawMessage) string {
	switch k := idKey(id); {
	case asked.add(k):
		return ""
	case replied.has(k):
		return "answered"
	}
	return "unanswered"
}
