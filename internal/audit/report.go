package audit

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/testreport"
)

// Report is an audit's outcome, for the writers: the servers audited,
// their findings, and the severity from which a finding fails the run.
type Report struct {
	Servers  []ServerInfo
	Findings []Finding
	FailOn   Severity
	Version  string // mcpv's, for SARIF's tool
	Took     time.Duration
	// Unaudited counts the servers that could not be audited (not
	// started, not trusted): a run with one has not passed, whatever the
	// others' findings.
	Unaudited int
	// Stopped says why the run ended before its end (Ctrl-C while the
	// judge was asked): a stopped run has not passed either.
	Stopped string
}

// ServerInfo is a server audited: its name, where its surface was read,
// and what of it there was to read.
type ServerInfo struct {
	Name   string `json:"name"`
	Source string `json:"source,omitempty"` // a file, or "" for a live server
	Items  int    `json:"items"`            // tools, prompts, resources and templates
}

// masked is r with every secret shape redact knows masked wherever a
// server's words show: its name, an item's name, a field's path (a
// property's name), the message, the excerpt and the decoded text. (The
// rules mask what they quote already; a name is masked here, as it is
// written, so that the rules match items by their names as sent.)
func (r Report) masked() Report {
	servers := slices.Clone(r.Servers)
	for i := range servers {
		servers[i].Name = redact.MaskSecrets(servers[i].Name)
	}
	findings := slices.Clone(r.Findings)
	for i := range findings {
		f := &findings[i]
		for _, p := range []*string{&f.Server, &f.Name, &f.Field, &f.Message, &f.Excerpt, &f.Decoded} {
			*p = redact.MaskSecrets(*p)
		}
		f.Evidence = slices.Clone(f.Evidence)
		for j := range f.Evidence {
			f.Evidence[j].Field = redact.MaskSecrets(f.Evidence[j].Field)
		}
	}
	r.Servers, r.Findings = servers, findings
	return r
}

// Failed reports whether a finding is at or above FailOn.
// A run where a server could not be audited has failed too.
func (r Report) Failed() bool {
	return Failing(r.Findings, r.FailOn) || r.Unaudited > 0 || r.Stopped != ""
}

// Text writes the report for people: each server and its findings, the
// most severe first, then a line of counts.
func (r Report) Text(w io.Writer, color bool) error {
	r = r.masked()
	b := bufio.NewWriter(w)
	paint := func(sev Severity, s string) string {
		if !color {
			return s
		}
		code := map[Severity]string{Critical: "1;31", High: "31", Medium: "33", Low: "36", Info: "2"}[sev]
		return "\x1b[" + code + "m" + s + "\x1b[0m"
	}
	for _, s := range r.Servers {
		var mine []Finding
		for _, f := range r.Findings {
			if f.Server == s.Name && f.Source == s.Source {
				mine = append(mine, f)
			}
		}
		head := fmt.Sprintf("server %q", safetext.Line(s.Name))
		if s.Source != "" {
			head += " (" + safetext.Line(s.Source) + ")"
		}
		if len(mine) == 0 {
			fmt.Fprintf(b, "%s: no findings in %d items\n", head, s.Items)
			continue
		}
		fmt.Fprintf(b, "%s:\n", head)
		for _, f := range mine {
			fmt.Fprintf(b, "  %s %s: %s %s\n", paint(f.Severity, fmt.Sprintf("%-8s", strings.ToUpper(f.Severity.String()))), f.Rule, safetext.Line(f.Item()), safetext.Line(f.Field))
			fmt.Fprintf(b, "           %s\n", safetext.Line(f.Message))
			if f.Excerpt != "" {
				fmt.Fprintf(b, "           text: %s\n", f.Excerpt)
			}
			if f.Decoded != "" {
				fmt.Fprintf(b, "           decoded: %s\n", f.Decoded)
			}
			for _, e := range f.Evidence {
				fmt.Fprintf(b, "           with: %s %s: %s\n", e.Rule, safetext.Line(e.Field), safetext.Line(e.Message))
			}
		}
	}
	fmt.Fprintln(b, r.summary())
	return b.Flush()
}

// summary is the line of counts: "3 findings in 2 servers: 1 critical,
// 2 high; failing at high".
func (r Report) summary() string {
	n := Counts(r.Findings)
	var parts []string
	for sev := Critical; sev >= Info; sev-- {
		if n[sev] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[sev], sev))
		}
	}
	s := fmt.Sprintf("%d %s in %d %s", len(r.Findings), plural(len(r.Findings), "finding"), len(r.Servers), plural(len(r.Servers), "server"))
	if len(parts) > 0 {
		s += ": " + strings.Join(parts, ", ")
	}
	if why := r.unfinished(); why != "" {
		return s + "; " + why
	}
	return s + fmt.Sprintf("; %s (--fail-on %s)", map[bool]string{true: "failed", false: "passed"}[r.Failed()], r.FailOn)
}

// sarifInvocation is the run's SARIF invocation: a run not whole is no
// successful execution, and says why, so that code scanning does not take
// what was never judged as fixed.
func (r Report) sarifInvocation() map[string]any {
	if why := r.unfinished(); why != "" {
		return map[string]any{"executionSuccessful": false, "toolExecutionNotifications": []map[string]any{{"level": "error", "message": map[string]string{"text": why}}}}
	}
	return map[string]any{"executionSuccessful": true}
}

// unfinished says why the run is not whole ("" when it is): servers not
// audited, a stop before its end, or both.
func (r Report) unfinished() string {
	var why []string
	if r.Unaudited > 0 {
		why = append(why, fmt.Sprintf("failed: %d %s could not be audited", r.Unaudited, plural(r.Unaudited, "server")))
	}
	if r.Stopped != "" {
		why = append(why, "stopped: "+r.Stopped)
	}
	return strings.Join(why, "; ")
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// JSONVersion is the version of the JSON report's format.
const JSONVersion = 1

// JSON writes the report as one JSON document:
//
//	{"mcpvAudit": 1, "failOn": "high", "failed": true, "stopped": why (when it was),
//	 "counts": {"critical": 1, "high": 2, ...},
//	 "servers": [{"name": ..., "source": ..., "items": N}],
//	 "findings": [{"rule", "severity", "server", "kind", "name", "field",
//	               "message", "excerpt", "decoded", "source", "line",
//	               "evidence": [{"rule", "field", "message"}]}]}
func (r Report) JSON(w io.Writer) error {
	r = r.masked()
	counts := map[string]int{}
	n := Counts(r.Findings)
	for sev := Info; sev <= Critical; sev++ {
		counts[sev.String()] = n[sev]
	}
	out := struct {
		Version  int            `json:"mcpvAudit"`
		FailOn   string         `json:"failOn"`
		Failed   bool           `json:"failed"`
		Stopped  string         `json:"stopped,omitempty"`
		Counts   map[string]int `json:"counts"`
		Servers  []ServerInfo   `json:"servers"`
		Findings []Finding      `json:"findings"`
	}{JSONVersion, r.FailOn.String(), r.Failed(), r.Stopped, counts, append([]ServerInfo{}, r.Servers...), append([]Finding{}, r.Findings...)}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// SARIF writes the report as SARIF 2.1.0, for GitHub code scanning and
// the other readers of static analysis: a run of "mcpv audit" with every
// rule, each finding a result at the file its server was read from (its
// line, where known), with a fingerprint that does not move with the
// file's lines. A finding of a server with no file (one given by its
// command line or URL) is placed at the name the audit gives it.
func (r Report) SARIF(w io.Writer) error {
	r = r.masked()
	text := func(s string) map[string]string { return map[string]string{"text": s} }
	var rules []map[string]any
	index := map[string]int{}
	for i, ru := range Rules {
		index[ru.ID] = i
		rules = append(rules, map[string]any{
			"id": ru.ID, "name": camel(ru.ID), "shortDescription": text(ru.Title), "fullDescription": text(ru.Help),
			"help":                 text(ru.Help + " Example: " + ru.Example),
			"defaultConfiguration": map[string]any{"level": level(ru.Severity)},
			"properties": map[string]any{"tags": append([]string{"security", "mcp"}, ru.Tags...),
				"precision": "high", "security-severity": securitySeverity(ru.Severity), "problem.severity": problem(ru.Severity)},
		})
	}
	results := []map[string]any{}
	for _, f := range r.Findings {
		uri, line := cmp.Or(f.Source, f.Server), max(f.Line, 1)
		msg := fmt.Sprintf("%s %s of server %q %s.", f.Item(), f.Field, f.Server, f.Message)
		if f.Excerpt != "" {
			msg += " Text: " + f.Excerpt
		}
		if f.Decoded != "" {
			msg += " Decoded: " + f.Decoded
		}
		results = append(results, map[string]any{
			"ruleId": f.Rule, "ruleIndex": index[f.Rule], "level": level(f.Severity), "message": text(safetext.Line(msg)),
			"locations": []map[string]any{{
				"physicalLocation": map[string]any{"artifactLocation": map[string]any{"uri": artifactURI(uri)}, "region": map[string]any{"startLine": line}},
				"logicalLocations": []map[string]any{{"fullyQualifiedName": f.Server + "/" + f.Item() + "/" + f.Field, "kind": "member"}},
			}},
			"partialFingerprints": map[string]string{"primaryLocationLineHash": fingerprint(f)},
			"properties":          map[string]any{"severity": f.Severity.String(), "server": f.Server, "item": f.Item(), "field": f.Field},
		})
	}
	log := map[string]any{"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0",
		"runs": []map[string]any{{
			"tool": map[string]any{"driver": map[string]any{
				"name": "mcpv audit", "informationUri": "https://github.com/mcpv/mcpv", "semanticVersion": semver(r.Version), "rules": rules,
			}},
			"results": results, "columnKind": "unicodeCodePoints", "invocations": []map[string]any{r.sarifInvocation()},
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// artifactURI is a path as a URI reference: slashes, with what a URI
// cannot hold escaped.
func artifactURI(path string) string {
	return (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath()
}

// fingerprint identifies a finding apart from where its lines are:
// rule, server, item, field and the text found.
func fingerprint(f Finding) string {
	sum := sha256.Sum256([]byte(strings.Join([]string{f.Rule, f.Server, f.Kind, f.Name, f.Field, f.Excerpt}, "\x00")))
	return hex.EncodeToString(sum[:16])
}

// semver is a version SARIF takes as semantic ("dev" is 0.0.0-dev).
func semver(v string) string {
	v = strings.TrimPrefix(v, "v")
	if v == "" || v[0] < '0' || v[0] > '9' {
		return "0.0.0-" + strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
				return r
			}
			return '-'
		}, cmp.Or(v, "dev"))
	}
	return v
}

// camel is a rule's id as SARIF's rule names are written: UnicodeTag.
func camel(id string) string {
	var b strings.Builder
	for _, w := range strings.Split(id, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

func level(s Severity) string {
	switch {
	case s >= High:
		return "error"
	case s == Medium:
		return "warning"
	}
	return "note"
}

func problem(s Severity) string {
	if s < Medium {
		return "recommendation"
	}
	return level(s)
}

// securitySeverity is GitHub's score of a severity (9.0 and up critical,
// 7.0 high, 4.0 medium, below low).
func securitySeverity(s Severity) string {
	return [...]string{"1.0", "3.0", "5.5", "8.0", "9.5"}[s]
}

// JUnit writes the report as JUnit XML: a suite per server, a test case
// per rule, failed when the rule found something at or above FailOn
// (each finding a line of the failure), passed otherwise, with what it
// found below FailOn as a warning.
func (r Report) JUnit(w io.Writer) error {
	r = r.masked()
	suite := testreport.Suite{Name: "mcpv audit", Group: "server", Groups: "servers", Item: "rule", Items: "rules",
		Header: [][2]string{{"failOn", r.FailOn.String()}}}
	var files []testreport.File
	for _, s := range r.Servers {
		file := testreport.File{Path: cmp.Or(s.Source, s.Name), Name: s.Name}
		for i, ru := range Rules {
			st := testreport.Step{Index: i + 1, Name: ru.ID + ": " + ru.Title, ID: ru.ID, Tag: ru.Severity.String()}
			for _, f := range r.Findings {
				if f.Server != s.Name || f.Source != s.Source || f.Rule != ru.ID {
					continue
				}
				line := fmt.Sprintf("%s: %s %s %s", f.Severity, f.Item(), f.Field, f.Message)
				if f.Excerpt != "" {
					line += ": " + f.Excerpt
				}
				st.Failures = append(st.Failures, testreport.Failure{Kind: f.Severity.String(), Message: safetext.Line(line)})
				switch {
				case f.Severity >= r.FailOn:
					st.Status = testreport.Failed
				case st.Status != testreport.Failed:
					st.Status = testreport.Warned
				}
			}
			file.Steps = append(file.Steps, st)
		}
		files = append(files, file)
	}
	return suite.JUnit(w, files, r.Took)
}
