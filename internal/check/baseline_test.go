package check

import (
	"slices"
	"strings"
	"testing"
)

// A baseline is read as the suite reads its own: scenarios, and
// scenario:check entries; a mistake says where and what.
func TestParseBaseline(t *testing.T) {
	for _, tc := range []struct {
		name, file, err string
	}{
		{"scenarios, areas, checks", "server:\n  - dns-rebinding-protection\n  - lists\n  - jsonrpc.notification\nclient:\n  - initialize\n", ""},
		{"per check", "server:\n  - server-session-lifecycle:http.session-deleted\n  - tools-list:some-suite-check-id\n", ""},
		{"empty", "", ""},
		{"a space after the colon", "server:\n  - ping: lifecycle.ping\n", "Take the space after the colon out: '- ping:lifecycle.ping'"},
		{"misspelt", "server:\n  - dns-rebinding-protectoin\n", `did you mean "dns-rebinding-protection"?`},
		{"both sides", "server:\n  - \":lifecycle.ping\"\n", "both sides of the colon are needed"},
		{"a colon and nothing after", "server:\n  - ping:\n", "no space after the colon"},
		{"redundant", "server:\n  - ping\n  - ping:lifecycle.ping\n", "is redundant"},
		{"not a list", "server: ping\n", "want a list of scenarios"},
		{"another key", "servers:\n  - ping\n", "server and client lists alone"},
		{"a number", "server:\n  - 7\n", "not a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseBaseline([]byte(tc.file))
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// A failure the baseline lists is expected, one it does not is not, and
// an entry whose checks pass is stale; skipped and blocked checks say
// nothing.
func TestBaselineJudge(t *testing.T) {
	byID := map[string]*Check{}
	for _, c := range Catalogue() {
		byID[c.ID] = c
	}
	report := &Report{Results: []Result{
		{Check: byID["http.origin"], Outcome: Outcome{Status: Failed}},
		{Check: byID["http.dns-rebinding"], Outcome: Outcome{Status: Passed}},
		{Check: byID["lifecycle.ping"], Outcome: Outcome{Status: Failed}},
		{Check: byID["http.session-deleted"], Outcome: Outcome{Status: Passed}},
		{Check: byID["lists.shape"], Outcome: Outcome{Status: Blocked}},
	}}
	_, err := ParseBaseline([]byte("server:\n  - dns-rebinding-protection\n  - server-session-lifecycle:http.session-deleted\n  - lists-never-run-here:x\n  - tools-list\n"))
	if err == nil {
		t.Fatal("an unknown scenario was taken")
	}
	b, err := ParseBaseline([]byte("server:\n  - dns-rebinding-protection\n  - server-session-lifecycle:http.session-deleted\n  - tools-list\n"))
	if err != nil {
		t.Fatal(err)
	}
	v := b.Judge(report)
	if !slices.Equal(v.Expected, []string{"dns-rebinding-protection"}) || !slices.Equal(v.Unexpected, []string{"lifecycle.ping"}) ||
		!slices.Equal(v.Stale, []string{"server-session-lifecycle:http.session-deleted"}) || !v.Failed() {
		t.Errorf("%+v", v)
	}
	if n := report.Results[0].Notes; len(n) != 1 || !strings.Contains(n[0], "expected to fail") {
		t.Errorf("notes %v", n)
	}
}

// Both embedded schemas load, and compile the definitions the checks use.
func TestSchemasLoad(t *testing.T) {
	for _, rev := range schemaRevisions {
		s := schemaOf(rev)
		if s == nil {
			t.Fatalf("the %s schema does not load", rev)
		}
		for _, def := range []string{"InitializeResult", "ListToolsResult", "LoggingMessageNotification", "ElicitRequest", "EmptyResult"} {
			if _, ok := s.names[def]; !ok && def == "InitializeResult" && rev != "2025-11-25" {
				continue // the 2026-07-28 era has no initialize
			}
			if _, err := s.compile(def); err != nil {
				t.Errorf("%s %s: %v", rev, def, err)
			}
		}
		if s.resultDef("tools/list") != "ListToolsResult" || s.resultDef("mcpv-check/none") != "" {
			t.Errorf("%s: result definitions %q %q", rev, s.resultDef("tools/list"), s.resultDef("mcpv-check/none"))
		}
	}
	if s := schemaOf("2025-11-25"); s.resultDef("ping") != "EmptyResult" || s.notes["notifications/message"] != "LoggingMessageNotification" {
		t.Errorf("ping %q, notifications/message %q", s.resultDef("ping"), s.notes["notifications/message"])
	}
}
