package check

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A first exchange broken in any way a stdio server breaks it is named
// as soon as the server has said it: the start's and the checks' bounds
// are an hour, so a run that waited on either would not end.
func TestBrokenFirstExchangeNamedAtOnce(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		fake     fake
		id, seen string // the check that fails, and what its failure quotes
	}{
		{"a byte order mark before each message", fake{transport: "stdio", change: faults("bom")}, "jsonrpc.messages", `\ufeff{`},
		{"text in place of JSON-RPC", fake{transport: "stdio", change: faults("text-answers")}, "jsonrpc.stdout-only", "OK: "},
		{"a message split across lines", fake{transport: "stdio", change: faults("pretty-json")}, "jsonrpc.framing", "{"},
		{"Content-Length framing", fake{transport: "stdio", behaviours: "content-length=reply"}, "jsonrpc.framing", "Content-Length:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute)) // a hang guard only
			defer cancel()
			report, err := Run(ctx, tc.fake.target(t), Options{CheckTimeout: time.Hour, StartTimeout: time.Hour})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if report.Stopped != nil {
				t.Fatalf("the run stopped: %v", report.Stopped)
			}
			failed := 0
			for _, r := range report.Results {
				if r.Status == Failed {
					failed++
					if r.ID != tc.id {
						t.Errorf("%s failed, want %s alone", describeResult(r), tc.id)
					} else if !strings.Contains(r.Received, tc.seen) {
						t.Errorf("the failure quotes %q, want %q in it", r.Received, tc.seen)
					}
				}
			}
			if failed != 1 {
				t.Errorf("%d failures, want 1 (%s)", failed, tc.id)
			}
		})
	}
}

// A server of the 2026-07-28 era that refuses server/discover, and
// refuses initialize saying it supports that era's versions alone, can be
// opened by no client: its first contact names modern.discover, where
// the run ended with no session. Refused with no such list, it is a
// server that speaks no version in common, as before.
func TestModernServerWithoutDiscoverNamed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, data string
		named      bool // modern.discover fails; else the run ends with no session
	}{
		{"its refusal lists the 2026-07-28 era alone", `{"supported":["2026-07-28"],"requested":"2025-11-25"}`, true},
		{"its refusal lists a version of the initialize era", `{"supported":["2026-07-28","2025-11-25"]}`, false},
		{"its refusal lists nothing", `{}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			change := map[string]string{"methodNotFound": `["server/discover"]`,
				"errors": `{"initialize":{"code":-32601,"message":"Method not found: initialize","data":` + tc.data + `}}`}
			ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
			defer cancel()
			report, err := Run(ctx, fake{transport: "stdio", era: "modern", probe: true, change: change}.target(t), Options{})
			if !tc.named {
				if err == nil || !strings.Contains(err.Error(), "initialize: server error -32601") {
					t.Fatalf("Run: %v, want no session", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			var failed []Result
			for _, r := range report.Results {
				if r.Status == Failed {
					failed = append(failed, r)
				}
			}
			if len(failed) != 1 || failed[0].ID != "modern.discover" || !strings.Contains(failed[0].Message, "supports 2026-07-28 alone") || !strings.Contains(failed[0].Received, "-32601") {
				t.Errorf("failed: %v, want modern.discover alone", failed)
			}
		})
	}
}
