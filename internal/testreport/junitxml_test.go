package testreport

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

// The hand-written report is what encoding/xml writes of the same
// suites, byte for byte, hostile text included: quotes, markup, white
// space, a CDATA end inside CDATA, characters XML cannot hold, bytes that
// are no UTF-8.
func TestJUnitWriterIsEncodingXML(t *testing.T) {
	hostile := "a \"b\" 'c' <d> & e\tf\ng\rh ]]> i \x00 \x1b[31m \xff\xfe \uFFFD \U0001F600 \uFFFE"
	cases := map[string]junitSuites{
		"empty": {Name: "mcpv test", Time: "0.000"},
		"whole": {Name: hostile, Tests: 3, Failures: 1, Errors: 1, Time: "1.500", Suites: []junitSuite{
			{Name: hostile, Tests: 3, Failures: 1, Errors: 1, Skipped: 1, Time: "1.000", Timestamp: "2026-11-25T00:00:00", File: hostile,
				Properties: []junitProperty{{"server", hostile}, {"b", ""}},
				Cases: []junitCase{
					{Name: "ok", Classname: "c", Time: "0.001"},
					{Name: hostile, Classname: hostile, Time: "0.002", File: "f.yaml", Line: 7, Failure: &junitProblem{Message: hostile, Type: "expect", Text: hostile}},
					{Name: "err", Classname: "c", Time: "0.003", Error: &junitProblem{Message: "m", Type: "exit 4", Text: ""}, SystemOut: &junitText{Text: hostile}},
					{Name: "skip", Classname: "c", Time: "0.000", Skipped: &junitSkipped{Message: hostile}, SystemOut: &junitText{}},
				},
				SystemErr: &junitText{Text: "]]>]]>"}},
			{Name: "second", Time: "0.000"},
		}},
	}
	for name, all := range cases {
		var want bytes.Buffer
		want.WriteString(xml.Header)
		enc := xml.NewEncoder(&want)
		enc.Indent("", "  ")
		if err := enc.Encode(struct {
			XMLName xml.Name `xml:"testsuites"`
			junitSuites
		}{junitSuites: all}); err != nil {
			t.Fatal(err)
		}
		want.WriteString("\n")
		var got bytes.Buffer
		b := bufio.NewWriter(&got)
		writeJUnit(b, all)
		b.Flush()
		if got.String() != want.String() {
			g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
			for i := range max(len(g), len(w)) {
				if i >= len(g) || i >= len(w) || g[i] != w[i] {
					t.Errorf("%s: line %d differs:\n got %q\nwant %q", name, i+1, strings.Join(g[i:min(i+1, len(g))], ""), strings.Join(w[i:min(i+1, len(w))], ""))
					break
				}
			}
		}
	}
}
