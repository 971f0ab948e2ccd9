package check

// An expected-failures baseline in the conformance suite's format, so that
// a server's CI that runs the suite with --expected-failures can run mcpv
// check with the same file: under `server:`, entries `NAME` (whatever
// NAME covers may fail) or `NAME:CHECK` (only that check may). NAME is a
// suite scenario (its checks: Scenarios), an area, or a check; CHECK a
// check's id (the suite's own check ids name nothing of mcpv's, and are
// let be, as the suite lets an absent check be). `client:` is the suite's
// alone.
//
// The verdict is the suite's: a failure the baseline expects is no
// failure; one it does not is; an entry whose checks now pass is stale,
// and fails the run until it is taken out. Checks skipped, blocked or
// inconclusive say nothing either way.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// Baseline is an expected-failures file, read.
type Baseline struct {
	entries []baselineEntry
}

type baselineEntry struct {
	text   string   // as written
	checks []string // the checks it lets fail
	whole  bool     // NAME alone: it is stale only when none of its checks failed
}

// maxBaseline bounds the file read.
const maxBaseline = 1 << 20

// ParseBaseline reads an expected-failures file; the error says what is
// wrong and where, for a usage error.
func ParseBaseline(data []byte) (*Baseline, error) {
	if len(data) > maxBaseline {
		return nil, fmt.Errorf("more than %d bytes", maxBaseline)
	}
	doc, err := yamlnode.Parse(data, yamlnode.Options{What: "an expected-failures file", MaxNodes: 100000})
	if err != nil {
		return nil, err
	}
	if doc.Kind != yamlnode.Object {
		return nil, fmt.Errorf("%d:%d: want an object with a server list (and a client one, which is the suite's alone)", doc.Line, doc.Col)
	}
	b := &Baseline{}
	for i, k := range doc.Keys {
		switch k.Text {
		case "client":
			continue
		case "server":
		default:
			return nil, fmt.Errorf("%d:%d: %q: the file has server and client lists alone", k.Line, k.Col, k.Text)
		}
		list := doc.Vals[i]
		if list.Kind == yamlnode.Null {
			continue
		}
		if list.Kind != yamlnode.Array {
			return nil, fmt.Errorf("%d:%d: server: want a list of scenarios, found %s", list.Line, list.Col, list.Kind.Noun())
		}
		for _, it := range list.Items {
			at := fmt.Sprintf("%d:%d", it.Line, it.Col)
			switch it.Kind {
			case yamlnode.String:
			case yamlnode.Object:
				if len(it.Keys) == 1 && it.Vals[0].Kind == yamlnode.String && it.Vals[0].Text != "" {
					return nil, fmt.Errorf("%s: did you write '- %s: %s'? Take the space after the colon out: '- %s:%s'", at, it.Keys[0].Text, it.Vals[0].Text, it.Keys[0].Text, it.Vals[0].Text)
				}
				return nil, fmt.Errorf("%s: an entry is '<scenario>' or '<scenario>:<check>', with no space after the colon", at)
			default:
				return nil, fmt.Errorf("%s: an entry is '<scenario>' or '<scenario>:<check>', not %s", at, it.Kind.Noun())
			}
			e := baselineEntry{text: it.Text}
			name, check, per := strings.Cut(it.Text, ":")
			if name == "" || per && check == "" {
				return nil, fmt.Errorf("%s: %q: both sides of the colon are needed", at, it.Text)
			}
			covered, known := coveredBy(name)
			if !known {
				return nil, fmt.Errorf("%s: %q is no scenario of the suite %s, area or check of mcpv check%s", at, name, SuiteVersion, suggest.DidYouMean(name, baselineNames()))
			}
			switch {
			case !per:
				e.checks, e.whole = covered, true
			case Known(check) && !slices.ContainsFunc(Areas, func(a Area) bool { return a.ID == check }):
				e.checks = []string{check}
			default:
				// One of the suite's own check ids: nothing of mcpv's, let be.
			}
			b.entries = append(b.entries, e)
		}
	}
	// NAME and NAME:CHECK both: the second says nothing more.
	for _, e := range b.entries {
		if name, _, ok := strings.Cut(e.text, ":"); ok && slices.ContainsFunc(b.entries, func(o baselineEntry) bool { return o.whole && o.text == name }) {
			return nil, fmt.Errorf("%q expects the whole of %s to fail, so %q is redundant: take one or the other out", name, name, e.text)
		}
	}
	return b, nil
}

// coveredBy are the checks a baseline name covers: a scenario's, an
// area's, or a check; known false when it is none of them.
func coveredBy(name string) (checks []string, known bool) {
	for _, s := range Scenarios {
		if s.Name == name {
			return s.Checks, true
		}
	}
	for _, c := range Catalogue() {
		if c.ID == name || c.Area == name {
			checks = append(checks, c.ID)
		}
	}
	return checks, len(checks) > 0
}

// baselineNames are the names an entry may begin with, for suggestions.
func baselineNames() []string {
	names := Names()
	for _, s := range Scenarios {
		names = append(names, s.Name)
	}
	return names
}

// BaselineVerdict is a report held to a baseline.
type BaselineVerdict struct {
	Expected   []string // failures the baseline expects (as its entries are written)
	Unexpected []string // failures it does not: their check ids
	Stale      []string // entries whose checks now pass
}

// Failed reports whether the run fails held to the baseline.
func (v *BaselineVerdict) Failed() bool { return len(v.Unexpected) > 0 || len(v.Stale) > 0 }

// Judge holds the report to the baseline: the failures it expects are
// marked as such on the report (their notes).
func (b *Baseline) Judge(r *Report) *BaselineVerdict {
	v := &BaselineVerdict{}
	status := map[string]Status{}
	for _, res := range r.Results {
		status[res.ID] = res.Status
	}
	expected := map[string]string{} // check → the entry that expects it
	for _, e := range b.entries {
		failed, passed := false, false
		for _, id := range e.checks {
			if _, seen := expected[id]; !seen {
				expected[id] = e.text
			}
			switch s, ran := status[id]; {
			case !ran:
			case s == Failed:
				failed = true
			case s == Passed || s == Warned:
				passed = true
			}
		}
		switch {
		case failed:
			v.Expected = append(v.Expected, e.text)
		case passed && (e.whole || len(e.checks) == 1):
			v.Stale = append(v.Stale, e.text)
		}
	}
	for i := range r.Results {
		res := &r.Results[i]
		if res.Status != Failed {
			continue
		}
		if by, ok := expected[res.ID]; ok {
			res.Notes = append(res.Notes, "expected to fail (--expected-failures: "+by+")")
			continue
		}
		v.Unexpected = append(v.Unexpected, res.ID)
	}
	return v
}
