package check

// The verifier layer: the shapes the catalogue's checks share. A check
// sends something, records what it sent, lets a barrier request show
// that the server has read it, and compares what came back in the
// meantime; a watch compares each message the run sees.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/mcpv/mcpv/mcp"
)

// sendSeen sends what send writes on c, recording shown as what the
// check sent (doing names the sending when it fails), then a barrier
// request, and gives back every message the server sent from just
// before the sending until the barrier was answered. What send writes
// is no request awaiting its answer (input that is no request, a
// notification, a batch), so an error with a null id that answers it is
// not taken for the barrier's answer.
//
// What the server sent meanwhile is the answer to what send wrote only
// where no other check's request waits on c: an error with a null id
// may answer either. A check that calls it is in a group, whose checks
// take the connection one after another; on the connection the
// ungrouped checks share at once it ends inconclusive, a fault of the
// catalogue's that a test of the whole catalogue finds.
func sendSeen(t *T, c *conn, shown, doing string, send func() error) []seen {
	if t.g != nil && t.g == t.r.shared {
		t.Inconclusive("%s", errSharedUnpaired)
	}
	mark := c.mark()
	t.Sent(shown)
	c.unpaired()
	t.must(doing, send())
	barrier(t, c)
	return c.since(mark)
}

// sendBadSeen is sendSeen for input that is no well-formed request,
// sent as it is and recorded as sent.
func sendBadSeen(t *T, c *conn, bad, doing string) []seen {
	return sendSeen(t, c, bad, doing, func() error {
		_, err := c.send(t.ctx, []byte(bad))
		return err
	})
}

// firstSeen is the first of ss that is wanted, recorded as what the
// check received; ok is false when none is.
func firstSeen(t *T, ss []seen, wanted func(s seen) bool) (s seen, ok bool) {
	if i := slices.IndexFunc(ss, wanted); i >= 0 {
		t.Got(ss[i].raw)
		return ss[i], true
	}
	return seen{}, false
}

// errSharedUnpaired says why a check in no group cannot judge answers to
// what is no request.
const errSharedUnpaired = "mcpv check's own fault: it judges answers to what is no request on a connection other checks share at once"

// spot is a watch that reports what of every message that is.
func spot(what string, is func(w *watchCtx, s seen) bool) func(*watchCtx, seen) string {
	return spotSaid(is, func(seen) string { return what })
}

// spotSaid is a watch that reports every message that is as said says
// it; the others break nothing it knows of ("").
func spotSaid(is func(w *watchCtx, s seen) bool, said func(s seen) string) func(*watchCtx, seen) string {
	return func(w *watchCtx, s seen) string {
		if is(w, s) {
			return said(s)
		}
		return ""
	}
}

// exercised is a watch check of what every server answers (exercise),
// with needs n.
func exercised(id string, n needs, watch func(*watchCtx, seen) string) *Check {
	return &Check{ID: id, needs: n, run: exercise, watch: watch}
}

// modernWatch is a watch check of what every server of the 2026-07-28
// era answers (exerciseModern).
func modernWatch(id string, watch func(*watchCtx, seen) string) *Check {
	return &Check{ID: id, needs: needs{era: "modern"}, run: exerciseModern, watch: watch}
}

// askIn sends method with params on the check's connection opened with
// o, recorded as sent with its params, and gives back the answer; no
// answer at all ends the check (request).
func (t *T) askIn(o connOptions, method string, params json.RawMessage) mcp.Message {
	m, _ := t.ask(t.connWith(o), method+" "+string(params), method, params)
	return m
}

// ask is request, recorded as sent as shown.
func (t *T) ask(c *conn, shown, method string, params json.RawMessage) (mcp.Message, *exchange) {
	t.Sent(shown)
	return t.request(c, method, params)
}

// callShown is call through the main session, recorded as sent with its
// params.
func (t *T) callShown(method string, params json.RawMessage) (json.RawMessage, *mcp.RPCError) {
	t.Sent(method + " " + string(params))
	return t.call(method, params)
}

// wantError fails unless m is an error response with code.
func wantError(t *T, m mcp.Message, x *exchange, code int) {
	wantCode(t, m.Result, m.Error, code, fmt.Sprintf("answered with a result, not error %d", code),
		"answered with error %d, not "+strconv.Itoa(code))
	t.noteIf(x != nil, "over HTTP: %s", x)
}

// wantCode fails t unless the answer (res or rerr) is an error of code:
// a result fails saying served, another code saying refused, a format
// given the code that came.
func wantCode(t *T, res json.RawMessage, rerr *mcp.RPCError, code int, served, refused string) {
	switch {
	case rerr == nil:
		t.FailGot(clipped(res), "%s", served)
	case rerr.Code != code:
		t.FailGot(errText(rerr), refused, rerr.Code)
	}
}
