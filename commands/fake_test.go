package commands

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

func TestFakeServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		args      []string
		behaviour string
		wantCode  int
		wantOut   string // exact, when set
		outHas    string
		errHas    string
		// shown is what stderr shows before a --connect-timeout (on the
		// test's clock) runs out.
		shown string
	}{
		{name: "ping", args: []string{"ping"}, behaviour: "plain", wantCode: 0, wantOut: "{}\n"},
		{name: "odd content byte exact", args: []string{"call", "x"}, behaviour: "odd-content", wantCode: 0,
			wantOut: `{"zeta":1.50,"content":[{"type":"hologram","frames":[1e2,-0.0,12345678901234567890],"x-note":"caf\u00e9 \"q\""}],"_meta":{"b":2,"a":1},"alpha":null}` + "\n"},
		{name: "junk lines skipped", args: []string{"call", "x"}, behaviour: "junk", wantCode: 0, outHas: `"text":"ok"`, errHas: "not JSON"},
		{name: "batch", args: []string{"call", "x"}, behaviour: "batch", wantCode: 0, outHas: `"text":"ok"`},
		{name: "stray id ignored", args: []string{"call", "x"}, behaviour: "stray-id", wantCode: 0, outHas: `"text":"ok"`},
		{name: "ping mid call", args: []string{"call", "x"}, behaviour: "ping-first", wantCode: 0, outHas: `\"result\":{}}","arguments"`},
		{name: "unknown server request", args: []string{"call", "x"}, behaviour: "ask=sampling/createMessage", wantCode: 0, outHas: `-32601`},
		{name: "tool error", args: []string{"call", "x"}, behaviour: "tool-error", wantCode: 1, outHas: `"isError":true`},
		{name: "rpc error", args: []string{"call", "x"}, behaviour: "rpc-error", wantCode: 3, errHas: "-32602"},
		{name: "no capability", args: []string{"list-tools"}, behaviour: "no-tools", wantCode: 3, errHas: `"tools" capability`},
		{name: "old version ok", args: []string{"ping"}, behaviour: "version=2024-11-05", wantCode: 0},
		{name: "bad version", args: []string{"ping"}, behaviour: "version=1999-01-01", wantCode: 4, errHas: `"1999-01-01" to our "2025-11-25"`},
		{name: "forced version refused", args: []string{"--protocol-version", "2025-06-18", "ping"}, behaviour: "version=2025-03-26", wantCode: 4, errHas: `"2025-03-26" to our "2025-06-18"`},
		{name: "crash quotes stderr", args: []string{"--quiet", "call", "x"}, behaviour: "crash", wantCode: 4, errHas: "| fake: panic: something broke"},
		{name: "version retry", args: []string{"info", "-q", ".protocolVersion"}, behaviour: "supported=2025-06-18", wantCode: 0, wantOut: `"2025-06-18"` + "\n"},
		{name: "version refused", args: []string{"ping"}, behaviour: "supported=1999-01-01", wantCode: 4, errHas: `refused protocol version "2025-11-25" and supports only 1999-01-01`},
		{name: "pages merged", args: []string{"list-tools", "-q", "[.tools[].name]"}, behaviour: "pages=3", wantCode: 0, wantOut: `["tool0","tool1","tool2","x"]` + "\n"},
		{name: "max pages keeps cursor", args: []string{"list-tools", "--max-pages", "2", "-q", ".nextCursor"}, behaviour: "pages=3", wantCode: 0, wantOut: `"page-2"` + "\n", errHas: "--cursor"},
		{name: "a list past 1,000 pages is followed to its end", args: []string{"list-tools", "-q", ".tools | length"}, behaviour: "pages=1500", wantCode: 0, wantOut: "1501\n"},
		{name: "a call finds a tool listed past page 1,000", args: []string{"call", "x", "-q", ".content[0].text"}, behaviour: "pages=1500", wantCode: 0, wantOut: `"ok"` + "\n"},
		{name: "list-tools finds a tool listed past page 1,000", args: []string{"list-tools", "x", "-q", ".name"}, behaviour: "pages=1500", wantCode: 0, wantOut: `"x"` + "\n"},
		{name: "max pages past 1,000", args: []string{"list-tools", "--max-pages", "1005", "-q", ".tools | length"}, behaviour: "pages=1500", wantCode: 0, wantOut: "1005\n"},
		{name: "cursor one page", args: []string{"list-tools", "--cursor", "page-1"}, behaviour: "pages=3", wantCode: 0,
			wantOut: `{"tools":[{"name":"tool1","inputSchema":{"type":"object"}}],"nextCursor":"page-2"}` + "\n"},
		{name: "answer with a NUL", args: []string{"call", "x"}, behaviour: "bad-answer=nul", wantCode: 4, errHas: "tools/call: the server's answer cannot be read: invalid JSON at byte"},
		{name: "answer with a code that is no integer", args: []string{"call", "x"}, behaviour: "bad-answer=code", wantCode: 4, errHas: "its error is not a JSON-RPC error object"},
		{name: "answer with an error that is no object", args: []string{"call", "x"}, behaviour: "bad-answer=error", wantCode: 4, errHas: "its error is not a JSON-RPC error object"},
		{name: "answer nested too deep", args: []string{"call", "x"}, behaviour: "bad-answer=deep", wantCode: 4, errHas: "exceeded max depth"},
		{name: "content-length framing learnt from an error reply", args: []string{"call", "x", "-q", ".content[0].text"}, behaviour: "content-length", wantCode: 0, wantOut: `"ok"` + "\n",
			errHas: "speaking them back\nmcpv: warning: server reported an error without a request id: server error -32700"},
		{name: "content-length framing learnt from a greeting", args: []string{"call", "x", "-q", ".content[0].text"}, behaviour: "content-length=greet", wantCode: 0, wantOut: `"ok"` + "\n",
			errHas: "server[info]: framed fake ready"},
		{name: "content-length framing given for a server that waits for the client", args: []string{"--framing", "content-length", "call", "x", "-q", ".content[0].text"}, behaviour: "content-length=strict", wantCode: 0, wantOut: `"ok"` + "\n"},
		{name: "content-length framing given, with a large answer", args: []string{"--framing", "content-length", "call", "x", "-q", ".content[0].text | length"}, behaviour: "content-length=strict,big=300000", wantCode: 0, wantOut: "300000\n"},
		{name: "a server that waits for frames, framing auto: the timeout names --framing", args: []string{"--connect-timeout", "1s", "call", "x"}, behaviour: "content-length=strict", wantCode: 124,
			errHas: "it wrote nothing at all: if it is still starting, give it longer with --connect-timeout; if it reads only Content-Length frames, it needs --framing content-length"},
		{name: "lines framing given: a header block is not JSON", args: []string{"--framing", "lines", "--connect-timeout", "2s", "ping"}, behaviour: "content-length=greet", wantCode: 124, errHas: "not JSON", shown: "not JSON"},
		{name: "content-length framing with a large answer", args: []string{"call", "x", "-q", ".content[0].text | length"}, behaviour: "content-length,big=300000", wantCode: 0, wantOut: "300000\n"},
		{name: "single page as sent", args: []string{"list-tools"}, behaviour: "plain", wantCode: 0,
			wantOut: `{"tools":[{"name":"tool0","inputSchema":{"type":"object"}},{"name":"x","inputSchema":{"type":"object"}}]}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if i := slices.Index(tt.args, "--connect-timeout"); i >= 0 {
				// The connect timeout runs out when the test says: once
				// stderr shows what the server caused before it.
				d, _ := time.ParseDuration(tt.args[i+1])
				clock := mcptest.NewClock()
				out, errb, _, wait := backgroundIn(t, onClock(testEnv(t), clock), args(tt.args, fake(tt.behaviour))...)
				if tt.shown != "" {
					errb.waitFor(t, tt.shown)
				}
				clock.WaitUntil(t, "the connect timeout running", func(ts mcptest.Timers) bool { return ts.Running[d] > 0 })
				clock.Fire(d)
				code := wait()
				result{code, out.String(), errb.String()}.expect(t, tt.wantCode, tt.wantOut, tt.outHas, tt.errHas)
				return
			}
			r := mcpv(t, "", args(tt.args, fake(tt.behaviour))...)
			r.expect(t, tt.wantCode, tt.wantOut, tt.outHas, tt.errHas)
		})
	}
}

// Stray output is warned with the line quoted, whatever the line starts
// with, and the warnings are not lost to a server that exits at once (its
// end was once reported before its output was read, in about 1 run of 20).
func TestStrayOutputOfAServerThatExitsAtOnce(t *testing.T) {
	unixOnly(t, "a server written in sh")
	t.Parallel()
	for range 20 {
		r := mcpv(t, "", "ping", "--", "sh", "-c", `echo "[not json"; echo "junk line"; exit 0`)
		if r.code != 4 || !strings.Contains(r.stderr, `not JSON-RPC: "[not json"`) || !strings.Contains(r.stderr, `not JSON: "junk line"`) {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
	}
}
