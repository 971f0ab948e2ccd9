package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The tables of scripts/audit-corpus.sh (TestBlindCorpus in
// internal/audit/corpus_test.go), for a peer's findings mapped to mcpv's
// severities: a poisoned item is found when a finding of medium or above
// names it; an honest item with one is a false alarm.

type severity int

const (
	sevInfo severity = iota
	sevLow
	sevMedium
	sevHigh
	sevCritical
)

var sevNames = []string{"info", "low", "medium", "high", "critical"}

func parseSeverity(s string) severity {
	if i := slices.Index(sevNames, strings.ToLower(s)); i >= 0 {
		return severity(i)
	}
	return sevInfo
}

// finding is a peer's finding, named by the item it is on, its severity
// already on mcpv's scale.
type finding struct {
	Server   string `json:"server"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Severity string `json:"severity"`
	Rule     string `json:"rule"`
	Peer     string `json:"peerSeverity,omitempty"`
}

type measured struct {
	label
	worst    severity
	findings []finding
}

type measure struct {
	items    []measured
	servers  int
	failing  []string
	honestly []string
	stray    []finding
	all      []finding
}

func measureCorpus(servers []*server, labels []label, found []finding) measure {
	m := measure{servers: len(servers)}
	key := func(server, kind, name string) string {
		if kind == "instructions" {
			name = ""
		}
		return server + "\x00" + kind + "\x00" + name
	}
	index := map[string]int{}
	poisoned := map[string]bool{}
	for _, l := range labels {
		index[key(l.Server, l.Kind, l.Name)] = len(m.items)
		m.items = append(m.items, measured{label: l})
		poisoned[l.Server] = poisoned[l.Server] || l.Poisoned
	}
	byServer := map[string][]finding{}
	for _, f := range found {
		byServer[f.Server] = append(byServer[f.Server], f)
	}
	for _, s := range servers {
		failing := false
		m.all = append(m.all, byServer[s.name]...)
		for _, f := range byServer[s.name] {
			sev := parseSeverity(f.Severity)
			failing = failing || sev >= sevHigh
			i, ok := index[key(s.name, f.Kind, f.Name)]
			if !ok {
				m.stray = append(m.stray, f)
				continue
			}
			it := &m.items[i]
			it.findings = append(it.findings, f)
			it.worst = max(it.worst, sev)
		}
		if failing {
			m.failing = append(m.failing, s.name)
			if !poisoned[s.name] {
				m.honestly = append(m.honestly, s.name)
			}
		}
	}
	return m
}

type row struct{ poisoned, medium, high, honest, falseHigh, falseMedium int }

func (r *row) add(it measured) {
	if it.Poisoned {
		r.poisoned++
		if it.worst >= sevMedium {
			r.medium++
		}
		if it.worst >= sevHigh {
			r.high++
		}
		return
	}
	r.honest++
	if it.worst >= sevHigh {
		r.falseHigh++
	}
	if it.worst >= sevMedium {
		r.falseMedium++
	}
}

func share(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}

func (r row) cells() string {
	return fmt.Sprintf("%d | %d (%s) | %d (%s) | %d | %d (%s) | %d (%s)", r.poisoned, r.medium, share(r.medium, r.poisoned), r.high, share(r.high, r.poisoned),
		r.honest, r.falseHigh, share(r.falseHigh, r.honest), r.falseMedium, share(r.falseMedium, r.honest))
}

func whereKind(where string) string {
	if where == "" {
		return "-"
	}
	var kinds []string
	for _, w := range strings.Split(where, "+") {
		parts := strings.Split(w, ".")
		kind := w
		switch i := slices.Index(parts, "properties"); {
		case i >= 0 && i+1 < len(parts):
			rest := "name"
			if len(parts) > i+2 {
				rest = "nested" // a name inside says what the payload is
				if last := parts[len(parts)-1]; len(parts) == i+3 && slices.Contains([]string{"description", "default", "enum", "title", "examples", "const", "pattern", "format"}, last) {
					rest = last
				}
			}
			kind = parts[0] + " property " + rest
		case len(parts) > 2 && (parts[0] == "promptResults" || parts[0] == "readResults"):
			kind = parts[0] + " " + parts[len(parts)-1]
		case parts[0] == "_meta":
			kind = "_meta" // its keys are the server's own words
		}
		if !slices.Contains(kinds, kind) {
			kinds = append(kinds, kind)
		}
	}
	slices.Sort(kinds)
	return strings.Join(kinds, "+")
}

func (m measure) write(b *strings.Builder, name string, details bool) {
	head := "| poisoned | found at medium+ | at high+ | honest | false alarms at high+ (the gate) | at medium+ |\n| --- | --- | --- | --- | --- | --- | --- |\n"
	var all row
	groups := map[string]map[string]*row{"family": {}, "language": {}, "where": {}}
	for _, it := range m.items {
		all.add(it)
		for g, v := range map[string]string{"family": it.Family, "language": it.Language, "where": whereKind(it.Where)} {
			if groups[g][v] == nil {
				groups[g][v] = &row{}
			}
			groups[g][v].add(it)
		}
	}
	fmt.Fprintf(b, "corpus %s: %d servers, %d items (%d poisoned, %d honest)\n\n", name, m.servers, len(m.items), all.poisoned, all.honest)
	fmt.Fprintf(b, "| items "+head+"| all | %s |\n\n", all.cells())
	for _, g := range []string{"family", "language", "where"} {
		fmt.Fprintf(b, "| %s "+head, g)
		for _, v := range slices.SortedFunc(maps.Keys(groups[g]), func(a, c string) int {
			return cmp.Or(cmp.Compare(groups[g][c].poisoned+groups[g][c].honest, groups[g][a].poisoned+groups[g][a].honest), cmp.Compare(a, c))
		}) {
			fmt.Fprintf(b, "| %s | %s |\n", v, groups[g][v].cells())
		}
		b.WriteString("\n")
	}
	poisonedServers := map[string]bool{}
	for _, it := range m.items {
		if it.Poisoned {
			poisonedServers[it.Server] = true
		}
	}
	fmt.Fprintf(b, "servers failing the default gate (a finding of high or above): %d of %d; of the %d with no poisoned item: %d %v\n",
		len(m.failing), m.servers, m.servers-len(poisonedServers), len(m.honestly), m.honestly)
	var n [5]int
	for _, f := range m.all {
		n[parseSeverity(f.Severity)]++
	}
	fmt.Fprintf(b, "findings by severity (on mcpv's scale): %d critical, %d high, %d medium, %d low, %d info\n", n[sevCritical], n[sevHigh], n[sevMedium], n[sevLow], n[sevInfo])
	if len(m.stray) > 0 {
		fmt.Fprintf(b, "findings on parts no label names: %d\n", len(m.stray))
	}
	if !details {
		return
	}
	b.WriteString("\nfalse alarms (honest items with a finding of medium or above):\n")
	for _, it := range m.items {
		if !it.Poisoned && it.worst >= sevMedium {
			fmt.Fprintf(b, "- %s %s %q:\n", it.Server, it.Kind, it.Name)
			for _, f := range it.findings {
				fmt.Fprintf(b, "    %s (%s) %s\n", f.Severity, f.Peer, f.Rule)
			}
		}
	}
	b.WriteString("\nmisses (poisoned items with no finding of medium or above):\n")
	for _, it := range m.items {
		if it.Poisoned && it.worst < sevMedium {
			fmt.Fprintf(b, "- %s %s %q (%s, %s, %s)\n", it.Server, it.Kind, it.Name, it.Family, it.Language, it.Where)
		}
	}
	for _, f := range m.stray {
		fmt.Fprintf(b, "- unlabelled: %s %s %s %s\n", f.Severity, f.Rule, f.Kind, f.Name)
	}
}
