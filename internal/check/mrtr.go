package check

// The 2026-07-28 era's input-required results (multi round-trip
// requests) and what a server of that era alone must no longer serve:
// an input_required result only where the era allows one, with an input
// request or a request state, and never an input request for a
// capability the client did not declare (the run's own connections
// declare none); the initialize era's methods answered as not found; a
// request without the optional clientInfo served.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// inputRequestMethods are the requests a server may answer with an input_required result.
var inputRequestMethods = []string{"prompts/get", "resources/read", "tools/call"}

// inputRequired reports whether s is an input_required result of the 2026-07-28 era.
func inputRequired(s seen) bool {
	if s.era != "modern" || !s.msg.IsResponse() || s.msg.Error != nil || s.msg.Result == nil {
		return false
	}
	rt, _ := str(member(s.msg.Result, "resultType"))
	return rt == "input_required"
}

func mrtrChecks() []*Check {
	return []*Check{
		modernWatch("modern.input-required-methods", spotSaid(func(_ *watchCtx, s seen) bool {
			return inputRequired(s) && s.method != "" && !slices.Contains(inputRequestMethods, s.method)
		}, func(s seen) string {
			return "an input_required result" + ofMethod(s)
		})),
		modernWatch("modern.input-required-shape", spotSaid(func(_ *watchCtx, s seen) bool {
			return inputRequired(s) && member(s.msg.Result, "inputRequests") == nil && member(s.msg.Result, "requestState") == nil
		}, func(s seen) string {
			return "an input_required result" + ofMethod(s) + " with neither inputRequests nor requestState"
		})),
		modernWatch("modern.input-request-kinds", func(_ *watchCtx, s seen) string {
			keys, twice := map[string]bool{}, ""
			rawjson.ForEachMember(member(s.msg.Result, "inputRequests"), func(k string, _ []byte) error {
				if keys[k] && inputRequired(s) {
					twice = k
				}
				keys[k] = true
				return nil
			})
			if twice != "" {
				return fmt.Sprintf("an input_required result%s holds the input request key %q twice", ofMethod(s), clip(twice, 60))
			}
			for _, a := range asksOf(s) {
				if _, ok := clientCapabilities[a.Method]; !ok && inputRequired(s) {
					return fmt.Sprintf("an input_required result%s asks for %q, which is no elicitation, sampling or roots request", ofMethod(s), clip(a.Method, 60))
				}
			}
			return ""
		}),
		modernWatch("modern.input-capabilities", func(w *watchCtx, s seen) string {
			if !inputRequired(s) || s.via == "session" { // the run's own connections declare no capability
				return ""
			}
			for _, a := range asksOf(s) {
				if c := clientCapabilities[a.Method]; c != "" && member(json.RawMessage(s.caps), c) == nil {
					return fmt.Sprintf("an input_required result%s asks for %s, though the client declared no %s", ofMethod(s), a.Method, c)
				}
			}
			return ""
		}),
		// This check holds the initialize era's methods, which the 2026-07-28
		// era has not, to the rule for a method a server does not implement: a
		// server of this era alone may still serve them (a result is no defect);
		// one that does not answers 404 and -32601. An error of another code may
		// be a method served and refusing its params, or one not implemented
		// answered wrongly: the check cannot tell, and says so as a warning.
		modernCheck("modern.removed-methods", needs{transport: "http"}, func(t *T) {
			c := modernAlone(t, "whose methods it serves")
			var unsure []string
			for _, method := range initializeEraMethods {
				m, x, err := c.request(t.ctx, method, nil)
				t.Sent("POST " + method)
				t.must(method, err)
				switch {
				case m.Error == nil:
					t.Note("%s is served (HTTP %d): the era lets a server keep it", method, x.status)
				case m.Error.Code != mcp.CodeMethodNotFound:
					unsure = append(unsure, fmt.Sprintf("%s answered HTTP %d, %s", method, x.status, errText(m.Error)))
				case x.status != http.StatusNotFound:
					t.Got(x.String())
					if other, ox, err := c.request(t.ctx, "mcpv-check/no-such-method", nil); err == nil && other.Error != nil && ox.status != http.StatusNotFound {
						t.Block("modern.method-not-found", "%s is answered -32601 with HTTP %d, as every method the server does not know", method, x.status)
					}
					t.Fail("%s, which the server does not implement (-32601), was answered HTTP %d, not 404", method, x.status)
				}
			}
			if len(unsure) > 0 {
				t.Unsure("not sure whether the server implements it: %s; if it does not, the rule asks for 404 and -32601", strings.Join(unsure, "; "))
			}
		}),
		modernCheck("modern.client-info-optional", needs{}, func(t *T) {
			c := t.connWith(connOptions{era: "modern"})
			params := c.stamp(nil)
			var meta map[string]json.RawMessage
			t.decode(member(params, "_meta"), &meta, "the _meta mcpv stamps")
			delete(meta, mcp.MetaClientInfo)
			params, _ = json.Marshal(map[string]any{"_meta": meta})
			t.Sent("server/discover " + string(params))
			m, x, err := c.requestID(t.ctx, c.newID(), "server/discover", params)
			if err != nil && x == nil {
				t.failErr("server/discover", err)
			}
			if x != nil && x.status/100 != 2 {
				t.FailGot(x.String(), "refused: HTTP %d", x.status)
			}
			t.must("server/discover", err)
			if m.Error != nil {
				t.FailGot(errText(m.Error), "refused without clientInfo")
			}
		}),
	}
}

// initializeEraMethods are the initialize era's methods the 2026-07-28 era has not.
var initializeEraMethods = []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"}
