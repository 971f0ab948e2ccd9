package audit

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testkit"
)

// A blind corpus is servers written by someone who has not read the
// rules, each item labelled poisoned or honest (scripts/audit-corpus.sh
// runs this test on one):
//
//	CORPUS/servers/NAME.json   what a client sees of one server: serverInfo,
//	                           instructions, tools, prompts, resources,
//	                           resourceTemplates, as MCP lists them; and
//	                           promptResults (prompts/get results by
//	                           name) and readResults (resources/read
//	                           results by URI), what a model reads too
//	CORPUS/labels.jsonl        a line per item: {"server", "kind" (tool,
//	                           prompt, resource, resourceTemplate,
//	                           instructions), "name" (its name, URI or
//	                           template; for instructions, anything),
//	                           "poisoned", "family", "where",
//	                           "language"}
//
// A folder of surfaces with no labels.jsonl (servers/*.json, or *.json in
// the folder itself) is a field set: every item honest.
//
// Each server is written as a saved surface that mcpv audit reads (a
// recording: a snapshot and its responses file, with who the server says
// it is, its instructions and its resources) and audited alone by the
// binary MCPV_AUDIT_BINARY names, so that the same harness measures any
// mcpv, an old one too.

// corpusLabel is one line of labels.jsonl.
type corpusLabel struct {
	Server   string `json:"server"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Poisoned bool   `json:"poisoned"`
	Family   string `json:"family"`
	Where    string `json:"where"`
	Language string `json:"language"`
}

// corpusServer is one server file of a corpus: its lists, and who it
// says it is at the top or in the initialize result it kept.
type corpusServer struct {
	ServerInfo   json.RawMessage `json:"serverInfo"`
	Instructions *string         `json:"instructions"`
	Initialize   *struct {
		ServerInfo   json.RawMessage `json:"serverInfo"`
		Instructions *string         `json:"instructions"`
	} `json:"initialize"`
	Tools             []json.RawMessage `json:"tools"`
	Prompts           []json.RawMessage `json:"prompts"`
	Resources         []json.RawMessage `json:"resources"`
	ResourceTemplates []json.RawMessage `json:"resourceTemplates"`
	// What prompts/get and resources/read return, by prompt name and by
	// URI: channels a model reads beyond the lists.
	PromptResults map[string]json.RawMessage `json:"promptResults"`
	ReadResults   map[string]json.RawMessage `json:"readResults"`
}

// corpusFinding is what the harness reads of a finding of mcpv audit
// --format json.
type corpusFinding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Field    string `json:"field"`
	Message  string `json:"message"`
	Excerpt  string `json:"excerpt"`
}

// labelKinds are the kinds of labels.jsonl as the audit names them.
var labelKinds = map[string]string{"tool": "tool", "prompt": "prompt", "resource": "resource",
	"resourceTemplate": "resource template", "resource template": "resource template", "instructions": "instructions"}

func TestBlindCorpus(t *testing.T) {
	dir := os.Getenv("MCPV_AUDIT_CORPUS")
	if dir == "" {
		t.Skip("MCPV_AUDIT_CORPUS names no corpus: scripts/audit-corpus.sh CORPUS runs this test")
	}
	testkit.SkipLong(t, "audits every server of a corpus with a built mcpv")
	bin := os.Getenv("MCPV_AUDIT_BINARY")
	if bin == "" {
		t.Fatal("MCPV_AUDIT_BINARY names no mcpv to measure")
	}
	servers, labels := readCorpus(t, dir)
	found := map[string][]corpusFinding{} // server -> its findings
	work := t.TempDir()
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		found[name] = auditCorpusServer(t, bin, work, name, servers[name])
	}
	m := measureCorpus(servers, labels, found)
	var b strings.Builder
	m.write(&b, filepath.Base(filepath.Clean(dir)), os.Getenv("MCPV_AUDIT_DETAILS") != "")
	if out := os.Getenv("MCPV_AUDIT_REPORT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Log("\n" + b.String())
}

// readCorpus reads a corpus's servers by name and its labels (none: every
// item of a field set is honest, and labelled so here).
func readCorpus(t *testing.T, dir string) (map[string]corpusServer, []corpusLabel) {
	files, _ := filepath.Glob(filepath.Join(dir, "servers", "*.json"))
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(dir, "*.json"))
	}
	if len(files) == 0 {
		t.Fatalf("%s: no servers/*.json nor *.json", dir)
	}
	servers := map[string]corpusServer{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var s corpusServer
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if s.Initialize != nil && len(s.ServerInfo) == 0 {
			s.ServerInfo, s.Instructions = s.Initialize.ServerInfo, s.Initialize.Instructions
		}
		servers[strings.TrimSuffix(filepath.Base(f), ".json")] = s
	}
	data, err := os.ReadFile(filepath.Join(dir, "labels.jsonl"))
	if os.IsNotExist(err) {
		return servers, fieldLabels(servers)
	}
	if err != nil {
		t.Fatal(err)
	}
	var labels []corpusLabel
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l corpusLabel
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("labels.jsonl: %v: %s", err, sc.Text())
		}
		if labelKinds[l.Kind] == "" {
			t.Fatalf("labels.jsonl: a kind of item the harness does not know: %q", l.Kind)
		}
		l.Name = keyOf(servers[l.Server], labelKinds[l.Kind], l.Name)
		labels = append(labels, l)
	}
	return servers, labels
}

// keyOf is the key the audit names a resource or template by (its URI,
// its URI template) when a label names it by its name instead.
func keyOf(s corpusServer, kind, name string) string {
	items, key := s.Resources, "uri"
	switch kind {
	case "resource template":
		items, key = s.ResourceTemplates, "uriTemplate"
	case "resource":
	default:
		return name
	}
	for _, it := range items {
		var m map[string]any
		json.Unmarshal(it, &m)
		if m[key] == name {
			return name
		}
	}
	for _, it := range items {
		var m map[string]any
		json.Unmarshal(it, &m)
		if k, ok := m[key].(string); ok && m["name"] == name {
			return k
		}
	}
	return name
}

// fieldLabels labels every item of real servers honest.
func fieldLabels(servers map[string]corpusServer) []corpusLabel {
	var out []corpusLabel
	add := func(server, kind, name string) {
		out = append(out, corpusLabel{Server: server, Kind: kind, Name: name, Family: "none", Language: "field"})
	}
	for _, name := range slices.Sorted(maps.Keys(servers)) { // in an order that two runs share
		s := servers[name]
		if s.Instructions != nil {
			add(name, "instructions", "")
		}
		for _, l := range []struct {
			kind, key string
			items     []json.RawMessage
		}{{"tool", "name", s.Tools}, {"prompt", "name", s.Prompts}, {"resource", "uri", s.Resources}, {"resourceTemplate", "uriTemplate", s.ResourceTemplates}} {
			for _, raw := range l.items {
				var m map[string]any
				json.Unmarshal(raw, &m)
				n, _ := m[l.key].(string)
				add(name, l.kind, n)
			}
		}
	}
	return out
}

// auditCorpusServer writes a server as a recording and has bin audit it.
func auditCorpusServer(t *testing.T, bin, work, name string, s corpusServer) []corpusFinding {
	snap := filepath.Join(work, name+".json")
	if err := os.WriteFile(snap, surface.Snapshot{Tools: s.Tools, Prompts: s.Prompts, ResourceTemplates: s.ResourceTemplates}.Marshal(), 0o600); err != nil {
		t.Fatal(err)
	}
	type kept struct {
		URI      string          `json:"uri"`
		Resource json.RawMessage `json:"resource,omitempty"`
		Result   json.RawMessage `json:"result,omitempty"`
	}
	type got struct {
		Name   string          `json:"name"`
		Result json.RawMessage `json:"result"`
	}
	var responses struct {
		Server struct {
			ServerInfo   json.RawMessage `json:"serverInfo"`
			Instructions *string         `json:"instructions,omitempty"`
		} `json:"server"`
		Resources []kept `json:"resources"`
		Prompts   []got  `json:"prompts,omitempty"`
	}
	responses.Server.ServerInfo, responses.Server.Instructions = s.ServerInfo, s.Instructions
	if len(responses.Server.ServerInfo) == 0 {
		responses.Server.ServerInfo = json.RawMessage(fmt.Sprintf(`{"name":%q,"version":"0"}`, name))
	}
	for _, r := range s.Resources {
		var m struct{ URI string }
		json.Unmarshal(r, &m)
		responses.Resources = append(responses.Resources, kept{m.URI, r, s.ReadResults[m.URI]})
	}
	for _, name := range slices.Sorted(maps.Keys(s.PromptResults)) {
		responses.Prompts = append(responses.Prompts, got{name, s.PromptResults[name]})
	}
	data, _ := json.Marshal(responses)
	if err := os.WriteFile(surface.ResponsesBeside(snap), data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "audit", "--format", "json", "--fail-on", "none", snap)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s audit %s: %v\n%s", bin, name, err, stderr.String())
	}
	var report struct {
		Findings []corpusFinding `json:"findings"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("%s: the report is no JSON: %v", name, err)
	}
	return report.Findings
}

// corpusItem is a labelled item and the worst of its findings.
type corpusItem struct {
	corpusLabel
	worst    Severity // Info when it has none
	findings []corpusFinding
}

// corpusMeasure is what a corpus run found.
type corpusMeasure struct {
	items    []corpusItem
	servers  int
	failing  []string // servers with a finding at or above high
	honestly []string // of them, the servers with no poisoned item
	stray    []corpusFinding
	all      []corpusFinding // every finding, of every server
}

func measureCorpus(servers map[string]corpusServer, labels []corpusLabel, found map[string][]corpusFinding) corpusMeasure {
	m := corpusMeasure{servers: len(servers)}
	index := map[string]int{}
	key := func(server, kind, name string) string {
		if kind == "instructions" {
			name = "" // a server has one: whatever name its label gives them
		}
		return server + "\x00" + kind + "\x00" + name
	}
	poisonedServer := map[string]bool{}
	for _, l := range labels {
		index[key(l.Server, labelKinds[l.Kind], l.Name)] = len(m.items)
		m.items = append(m.items, corpusItem{corpusLabel: l})
		poisonedServer[l.Server] = poisonedServer[l.Server] || l.Poisoned
	}
	for _, server := range slices.Sorted(maps.Keys(servers)) {
		failing := false
		m.all = append(m.all, found[server]...)
		for _, f := range found[server] {
			sev, _ := ParseSeverity(f.Severity)
			failing = failing || sev >= High
			i, ok := index[key(server, f.Kind, f.Name)]
			if !ok {
				m.stray = append(m.stray, f)
				continue
			}
			it := &m.items[i]
			it.findings = append(it.findings, f)
			it.worst = max(it.worst, sev)
		}
		if failing {
			m.failing = append(m.failing, server)
			if !poisonedServer[server] {
				m.honestly = append(m.honestly, server)
			}
		}
	}
	return m
}

// corpusRow counts a group of items.
type corpusRow struct {
	poisoned, medium, high, honest, falseHigh, falseMedium int
}

func (r *corpusRow) add(it corpusItem) {
	switch {
	case it.Poisoned:
		r.poisoned++
		if it.worst >= Medium {
			r.medium++
		}
		if it.worst >= High {
			r.high++
		}
	default:
		r.honest++
		if it.worst >= High {
			r.falseHigh++
		}
		if it.worst >= Medium {
			r.falseMedium++
		}
	}
}

func share(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(of))
}

func (r corpusRow) cells() string {
	return fmt.Sprintf("%d | %d (%s) | %d (%s) | %d | %d (%s) | %d (%s)", r.poisoned, r.medium, share(r.medium, r.poisoned), r.high, share(r.high, r.poisoned),
		r.honest, r.falseHigh, share(r.falseHigh, r.honest), r.falseMedium, share(r.falseMedium, r.honest))
}

// write writes the tables: detection (a finding of medium or above on a
// poisoned item) and false alarms (a finding of high or above, the
// default gate, and of medium or above, on an honest item), in all, by
// family, by language and by where the poisoned text is; then the
// servers the default gate fails; with details, every miss and every
// false alarm.
func (m corpusMeasure) write(b *strings.Builder, name string, details bool) {
	head := "| poisoned | found at medium+ | at high+ | honest | false alarms at high+ (the gate) | at medium+ |\n| --- | --- | --- | --- | --- | --- | --- |\n"
	var all corpusRow
	groups := map[string]map[string]*corpusRow{"family": {}, "language": {}, "where": {}}
	for _, it := range m.items {
		all.add(it)
		for g, v := range map[string]string{"family": it.Family, "language": it.Language, "where": whereKind(it.Where)} {
			if groups[g][v] == nil {
				groups[g][v] = &corpusRow{}
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
	fmt.Fprintf(b, "servers failing the default gate (a finding of high or above): %d of %d; of the %d with no poisoned item: %d %v\n",
		len(m.failing), m.servers, m.servers-m.poisonedServers(), len(m.honestly), m.honestly)
	var n [Never]int
	for _, f := range m.all {
		sev, _ := ParseSeverity(f.Severity)
		n[sev]++
	}
	fmt.Fprintf(b, "findings by severity: %d critical, %d high, %d medium, %d low, %d info\n", n[Critical], n[High], n[Medium], n[Low], n[Info])
	if len(m.stray) > 0 {
		fmt.Fprintf(b, "findings on parts no label names (the server's identity): %d\n", len(m.stray))
	}
	if !details {
		return
	}
	b.WriteString("\nfalse alarms (honest items with a finding of medium or above):\n")
	for _, it := range m.items {
		if !it.Poisoned && it.worst >= Medium {
			fmt.Fprintf(b, "- %s %s %q:\n", it.Server, it.Kind, it.Name)
			for _, f := range it.findings {
				fmt.Fprintf(b, "    %s %s %s: %s: %s\n", f.Severity, f.Rule, f.Field, f.Message, f.Excerpt)
			}
		}
	}
	b.WriteString("\nmisses (poisoned items with no finding of medium or above):\n")
	for _, it := range m.items {
		if it.Poisoned && it.worst < Medium {
			fmt.Fprintf(b, "- %s %s %q (%s, %s, %s)\n", it.Server, it.Kind, it.Name, it.Family, it.Language, it.Where)
		}
	}
	for _, f := range m.stray {
		fmt.Fprintf(b, "- unlabelled: %s %s %s: %s\n", f.Severity, f.Rule, f.Kind, f.Message)
	}
}

// poisonedServers counts the servers with a poisoned item.
func (m corpusMeasure) poisonedServers() int {
	seen := map[string]bool{}
	for _, it := range m.items {
		if it.Poisoned {
			seen[it.Server] = true
		}
	}
	return len(seen)
}

// whereKind is where a poisoned text is, in kind: a description, a
// parameter's name, a default...; the names of parameters, prompts and
// resources left out (a held-out corpus's report names no item), each
// kind of a text split over several places once.
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
