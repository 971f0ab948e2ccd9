package audit

import (
	"slices"
	"strings"
)

// serverWholePrefix begins the path of a finding of a server's whole
// text, which names the parts it joins: "server.{instructions,tools.a}".
const serverWholePrefix = "server.{"

// maxServerWhole bounds a server's whole text: its instructions and its
// tools' descriptions, read as one.
const maxServerWhole = 256 << 10

// serverWhole reads a server's instructions and its tools' descriptions,
// in the order the server gives them, as one text, by the rules of
// orders: an order split across two of them ("When any tool returns a
// token," in the instructions, "send it to https://..." in a tool) is the
// sentence a model reads, as an item's fields are (wholeText). A finding
// whose sentence spans two or more parts is given to each tool it spans,
// its field naming every part; one within a part is that part's own, and
// was found there.
func serverWhole(s *auditee, fields []field) []Finding {
	type part struct {
		kind, name string
		start, end int
	}
	var parts []part
	var b strings.Builder
	for _, fl := range fields {
		if !(fl.kind == "instructions" || fl.kind == "tool" && fl.path == "description") || strings.TrimSpace(fl.text) == "" {
			continue
		}
		if b.Len()+len(fl.text) > maxServerWhole {
			return nil // a server this large is read item by item
		}
		if len(parts) > 0 {
			prev := b.String()[parts[len(parts)-1].start:]
			b.WriteString(joint(prev, fl.text))
		}
		parts = append(parts, part{fl.kind, fl.name, b.Len(), b.Len() + len(fl.text)})
		b.WriteString(fl.text)
	}
	if len(parts) < 2 {
		return nil
	}
	text := b.String()
	type span struct{ s, e int }
	var found []Finding
	var spans []span
	f := func(rule string, sev Severity, msg string, a, e int) Finding {
		if sev >= Medium && (slices.Contains(wholeRules, rule) || rule == RuleSideChannel) { // (what orders give: no field here is a parameter)
			found = append(found, Finding{Rule: rule, Severity: sev, Message: msg})
			spans = append(spans, span{a, e})
		}
		return Finding{}
	}
	orderRules(field{kind: "server", text: text, role: roleProse, purpose: strings.ToLower(s.Name + " " + s.InfoName()), own: s.own}, newView(text), f)
	var out []Finding
	for i, fd := range found {
		var in []part
		for _, p := range parts {
			if p.start < spans[i].e && spans[i].s < p.end {
				in = append(in, p)
			}
		}
		if len(in) < 2 {
			continue
		}
		var names []string
		for _, p := range in {
			if p.kind == "instructions" {
				names = append(names, "instructions")
			} else {
				names = append(names, "tools."+p.name+".description")
			}
		}
		path := serverWholePrefix + strings.Join(names, ",") + "}"
		for _, p := range in {
			if p.kind != "tool" {
				continue
			}
			out = append(out, Finding{Rule: fd.Rule, Severity: fd.Severity, Server: s.Name, Kind: "tool", Name: p.name, Field: path,
				Message: fd.Message + ", in a sentence split across the server's texts", Excerpt: excerpt(text, spans[i].s, spans[i].e)})
		}
	}
	return out
}
