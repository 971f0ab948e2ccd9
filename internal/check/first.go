package check

// The first contact: a run whose main session cannot be opened still ends
// in a report. What the server did wrong in its first exchange (a message
// written over several lines, an id echoed as another type, an answer of
// the wrong content type, a session it demands but never gave, a
// discover or initialize result of the wrong shape) is found on a
// connection of the run's own, where every byte is seen as it came, and
// reported by the check that names it; every other check is blocked by
// it. A server that did not answer in time is inconclusive, not broken.
// One that could not be started or reached at all broke no requirement:
// the error stands (the connection doctor says why).

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/doctor"
	"github.com/mcpv/mcpv/mcp"
)

// defect is a requirement the server broke in its first exchange, which
// kept a session from opening.
type defect struct {
	id             string // the check that names it
	message        string
	sent, received string
}

func (d *defect) Error() string { return d.message }

// diagnosis is the first-contact diagnosis, run once: as soon as the
// main session shows a sign of trouble, or when it fails to open.
type diagnosis struct {
	done chan struct{} // closed once d is set
	d    *defect
}

// diagnose starts the diagnosis unless it has started, and returns it;
// found is told the defect when there is one.
func (r *runner) diagnose(ctx context.Context, found func(*defect)) *diagnosis {
	r.diagOnce.Do(func() {
		g := &diagnosis{done: make(chan struct{})}
		r.diag = g
		go func() { // first-contact diagnosis: ends when the diagnosis has its answer, bounded by ctx and firstContact's bounds
			defer close(g.done)
			g.d = r.firstContact(ctx)
			if g.d != nil && found != nil {
				found(g.d)
			}
		}()
	})
	return r.diag
}

// wait is the diagnosis's defect, or nil (none found, or ctx ended).
func (g *diagnosis) wait(ctx context.Context) *defect {
	select {
	case <-g.done:
		return g.d
	case <-ctx.Done():
		return nil
	}
}

// unopened is what a run whose main session did not open reports: the
// defect found, or, when the server did not answer in time, the first
// check inconclusive; nil when neither (the server could not be reached:
// the error stands).
func (r *runner) unopened(ctx context.Context, selected []*Check, err error) *Report {
	var d *defect
	var te *mcp.TimeoutError
	timedOut := errors.As(err, &te) && te.Connect
	switch {
	case errors.As(err, &d):
	case doctor.Authorizing(err):
		return nil
	case timedOut:
		// A server that did not answer in time is not tried again, unless
		// a sign of trouble started the diagnosis already.
		r.diagOnce.Do(func() {})
		if r.diag != nil {
			d = r.diag.wait(ctx)
		}
	default:
		d = r.diagnose(ctx, nil).wait(ctx)
	}
	var head Outcome
	var first, why string // the check that reports it, and why every other is blocked
	switch {
	case d != nil:
		first, why = d.id, "the session could not be opened: "+d.message
		head = Outcome{Status: Failed, Message: d.message, Sent: r.mask(d.sent, 300), Received: r.mask(d.received, 300)}
	case !timedOut:
		return nil
	default:
		first, why = "lifecycle.initialize", "the session could not be opened in time"
		if r.target.Era == "modern" {
			first = "modern.discover"
		}
		head = Outcome{Status: Inconclusive, Message: fmt.Sprintf("no session: %s; a slow server is no violation (give it more time with %s)",
			oneLine(err.Error()), cmp.Or(te.Setting, "--connect-timeout"))}
	}
	head.Message = r.mask(head.Message, 400)
	report := &Report{Server: r.target.Server, Results: []Result{{Check: checkByID(first), Outcome: head}}}
	for _, c := range selected {
		if c.ID == first {
			continue
		}
		report.Results = append(report.Results, Result{Check: c, Outcome: Outcome{Status: Blocked, BlockedBy: first, Message: r.mask(why, 400)}})
	}
	slices.SortStableFunc(report.Results, func(a, b Result) int { return slices.Index(Catalogue(), a.Check) - slices.Index(Catalogue(), b.Check) }) // the catalogue's order
	return report
}

// firstContact replays, on a connection of the run's own, the first
// exchange the main session makes (server/discover where the era is not
// pinned to initialize, then initialize where it is not pinned to the
// 2026-07-28 era, then the initialized notification and a ping), and
// names the first requirement the server breaks in it that would keep a
// client from a session. nil: none found.
func (r *runner) firstContact(ctx context.Context) *defect {
	ctx, cancel := context.WithTimeoutCause(ctx, r.opts.StartTimeout+3*r.opts.CheckTimeout, &outOfTime{d: r.opts.StartTimeout})
	defer cancel()
	c, err := r.dial(ctx, connOptions{era: "legacy", version: mcp.LatestVersion, bare: true})
	if err != nil {
		return nil
	}
	defer c.close()
	era := r.target.Era
	var discoverBad, refused *defect
	if era != "legacy" {
		c.setEra("modern", mcp.ModernVersion)
		m, d := r.contact(ctx, c, "server/discover", c.stamp(nil), `1`)
		c.setEra("legacy", mcp.LatestVersion)
		if d != nil {
			return d
		}
		if m != nil {
			discoverBad = discoverShape(*m, era == "modern")
			if era == "modern" || discoverBad == nil && m.Error == nil {
				return discoverBad
			}
			if m.Error != nil && m.Error.Code == mcp.CodeMethodNotFound {
				refused = discoverShape(*m, true) // a defect once the server says it is of the 2026-07-28 era alone
			}
		}
	}
	m, d := r.contact(ctx, c, "initialize", c.initializeParams(mcp.LatestVersion), `2`)
	switch {
	case d != nil:
		return d
	case m == nil:
		return discoverBad
	case m.Error != nil:
		if discoverBad != nil {
			return discoverBad
		}
		// A server of the 2026-07-28 era alone, or one that speaks no version
		// in common; the first when its refusal lists only that era's versions
		// as the ones it supports.
		var data struct{ Supported []string }
		if refused != nil && json.Unmarshal(m.Error.Data, &data) == nil && len(data.Supported) > 0 && !slices.ContainsFunc(data.Supported, func(v string) bool { return !mcp.IsModern(v) }) {
			refused.message += ", and initialize was refused by a server that supports " + strings.Join(data.Supported, ", ") + " alone: no client can open a session"
			return refused
		}
		return nil
	}
	if p := initializeShape(m.Result); p != "" {
		return &defect{id: "lifecycle.initialize", message: p, sent: "initialize offering " + mcp.LatestVersion, received: clipped(m.Result)}
	}
	v, _ := str(member(m.Result, "protocolVersion"))
	c.setVersion(v)
	c.notify(ctx, "notifications/initialized", nil)
	if c.http == nil {
		return nil
	}
	// Over HTTP, the next request shows whether the server demands a session it never gave.
	msg, _ := mcp.EncodeRequest(json.RawMessage(`3`), "ping", nil)
	x, err := c.post(ctx, httpReq{body: msg}, json.RawMessage(`3`))
	if err != nil && x == nil {
		return nil
	}
	if x.status/100 == 2 {
		if ct := x.contentType(); ct != "application/json" && ct != "text/event-stream" {
			return &defect{id: "http.answer-type", message: "a request was answered with " + ct, sent: "POST ping", received: x.String()}
		}
		return nil
	}
	if c.sessionID() == "" && (x.status == http.StatusBadRequest || x.status == http.StatusNotFound) && strings.Contains(strings.ToLower(x.body), "session") {
		return &defect{id: "http.session-assigned", message: fmt.Sprintf("a request without a session id is refused (HTTP %d), though initialize's answer assigned none", x.status),
			sent: "POST initialize (answered with no Mcp-Session-Id), then POST ping", received: x.String()}
	}
	return nil
}

// contact sends one request of the first exchange with id and waits for
// its answer; a defect is a requirement broken on the way. m is nil when
// no answer came.
func (r *runner) contact(ctx context.Context, c *conn, method string, params json.RawMessage, id string) (*mcp.Message, *defect) {
	mark := c.mark()
	msg, _ := mcp.EncodeRequest(json.RawMessage(id), method, params)
	sent := string(msg)
	wctx, cancel := context.WithTimeoutCause(ctx, r.opts.CheckTimeout, &outOfTime{checkTime: true, d: r.opts.CheckTimeout})
	defer cancel()
	var m mcp.Message
	var x *exchange
	var err error
	if c.stdio == nil {
		m, x, err = c.roundTrip(wctx, json.RawMessage(id), msg, httpReq{})
	} else {
		var d *defect
		if m, d, err = r.awaitStdio(wctx, c, json.RawMessage(id), msg, mark, sent); d != nil {
			return nil, d
		}
		if c.frags.holds() || err != nil {
			c.frags.flush() // the server has said what it will: the lines held made no message
		}
	}
	if twin := (*twinError)(nil); errors.As(err, &twin) {
		return nil, &defect{id: twin.by(), message: twin.Error(), sent: sent, received: lastOf(c.since(mark)).raw}
	}
	if d := firstDefect(c.since(mark), method, sent); d != nil {
		return nil, d
	}
	if x != nil && x.status/100 == 2 && x.response == nil {
		if ct := x.contentType(); ct != "application/json" && ct != "text/event-stream" {
			return nil, &defect{id: "http.answer-type", message: method + " was answered with " + ct, sent: "POST " + method, received: x.String()}
		}
	}
	if err != nil {
		return nil, nil
	}
	return &m, nil
}

// firstDefect is the first requirement what came breaks, or nil.
func firstDefect(ss []seen, method, sent string) *defect {
	for _, s := range ss {
		switch {
		case s.twin != "":
			tw := &twinError{sent: s.twin, got: string(s.msg.ID)}
			return &defect{id: tw.by(), message: tw.Error(), sent: sent, received: s.raw}
		case s.framing:
			return &defect{id: "jsonrpc.framing", message: "a message is written over several lines", sent: sent, received: s.raw}
		case s.bad == headerLine:
			return &defect{id: "jsonrpc.framing", message: "a message is framed with a Content-Length header, not written as one line", sent: sent, received: s.raw}
		case s.bad == notUTF8:
			return &defect{id: "jsonrpc.utf8", message: "a message that is not valid UTF-8", sent: sent, received: s.raw}
		case s.bad != "" && s.bad != junkLine:
			return &defect{id: "jsonrpc.messages", message: "a message that is not JSON-RPC: " + s.bad, sent: sent, received: s.raw}
		case s.shape == bothShape:
			return &defect{id: "jsonrpc.result-or-error", message: "a response with both a result and an error", sent: sent, received: s.raw}
		case s.shape == objectShape:
			return &defect{id: "jsonrpc.schema", message: "a result that is no JSON object, as every result of the schema is", sent: sent, received: s.raw}
		case s.shape != "":
			return &defect{id: "jsonrpc.messages", message: "a message that breaks JSON-RPC 2.0: " + s.shape, sent: sent, received: s.raw}
		case s.nullFor != "":
			return &defect{id: errorID, message: fmt.Sprintf("%s was answered with an error whose id is null", method), sent: sent, received: s.raw}
		}
	}
	return nil
}

// textProbes is how many pings the first contact sends to a stdio server
// that answered with a line of text, each once the one before it was
// answered with text too, before it names the server as one that answers
// with text: lines that only came before the server read anything (a
// banner) do not keep pace with the pings.
const textProbes = 3

// awaitStdio waits for the answer to the first contact's request over
// stdio, judging at once what comes that is no message: a defect of
// framing or JSON-RPC is named as soon as it is seen, and a line of text
// where an answer belongs is asked about with pings: a server that
// answers each with text and never with a JSON-RPC message breaks
// jsonrpc.stdout-only, which is said without waiting out its time.
func (r *runner) awaitStdio(ctx context.Context, c *conn, id json.RawMessage, msg []byte, mark int, sent string) (mcp.Message, *defect, error) {
	ch := c.expect(id, methodOf(msg))
	defer c.unexpect(id)
	if err := c.write(ctx, msg); err != nil {
		return mcp.Message{}, nil, err
	}
	probes, asked := 0, 0 // pings sent; lines of text when the last was
	for {
		select {
		case rp := <-ch:
			return rp.m, nil, rp.err
		case <-ctx.Done():
			return mcp.Message{}, nil, context.Cause(ctx)
		case <-c.gone:
			select {
			case rp := <-ch:
				return rp.m, nil, rp.err
			default:
			}
			return mcp.Message{}, nil, c.err()
		case <-c.signs:
		}
		ss := c.since(mark)
		if d := firstDefect(ss, methodOf(msg), sent); d != nil {
			return mcp.Message{}, d, nil
		}
		var text []string // the lines of text that came
		for _, s := range ss {
			if s.bad == junkLine {
				text = append(text, s.raw)
			}
		}
		if slices.ContainsFunc(ss, func(s seen) bool { return s.bad == "" }) || len(text) <= asked {
			continue // it speaks JSON-RPC: its answer may yet come
		}
		if probes == textProbes {
			return mcp.Message{}, &defect{id: "jsonrpc.stdout-only",
				message: fmt.Sprintf("%s and %d pings were answered with %d lines of text, and no JSON-RPC message", methodOf(msg), probes, len(text)),
				sent:    sent, received: strings.Join(text[:min(len(text), 3)], " | ")}, nil
		}
		probes, asked = probes+1, len(text)
		ping, _ := mcp.EncodeRequest(json.RawMessage(fmt.Sprintf(`"mcpv-check-probe-%d"`, probes)), "ping", nil)
		if err := c.write(ctx, ping); err != nil {
			return mcp.Message{}, nil, err
		}
	}
}

// discoverShape is the defect of a server/discover result that breaks
// DiscoverResult, or nil. An error is no defect unless the era is pinned
// to 2026-07-28 (modern): a server of the initialize era refuses it.
func discoverShape(m mcp.Message, modern bool) *defect {
	const sent = "server/discover"
	if m.Error != nil {
		if modern {
			return &defect{id: "modern.discover", message: "server/discover was refused", sent: sent, received: errText(m.Error)}
		}
		return nil
	}
	supported := member(m.Result, "supportedVersions")
	var versions []string
	switch {
	case supported == nil:
		return &defect{id: "modern.discover", message: "the result has no supportedVersions", sent: sent, received: clipped(m.Result)}
	case json.Unmarshal(supported, &versions) != nil || len(versions) == 0:
		return &defect{id: "modern.discover", message: "the result's supportedVersions is no array of versions", sent: sent, received: clipped(m.Result)}
	case !isObject(member(m.Result, "capabilities")):
		return &defect{id: "modern.discover", message: "the result has no capabilities object", sent: sent, received: clipped(m.Result)}
	}
	return nil
}

// initializeShape says how an initialize result breaks InitializeResult.
func initializeShape(res json.RawMessage) string {
	if v, ok := str(member(res, "protocolVersion")); !ok || v == "" {
		return "the result has no protocolVersion string"
	}
	if !isObject(member(res, "capabilities")) {
		return "the result has no capabilities object"
	}
	info := member(res, "serverInfo")
	if !isObject(info) {
		return "the result has no serverInfo object"
	}
	for _, k := range []string{"name", "version"} {
		if _, ok := str(member(info, k)); !ok {
			return "serverInfo has no " + k + " string"
		}
	}
	return ""
}
