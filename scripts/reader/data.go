package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// item is one line of the labelled material: a thing the audit reads
// (a tool, prompt, resource, template or a server's instructions; a whole
// server for the red-team sets, which label servers), its text split into
// the fields the audit reads, and its label.
type item struct {
	Hand     string  `json:"hand"`
	Server   string  `json:"server"`
	Kind     string  `json:"kind"` // as the audit names it; "server" for a red-team case
	Name     string  `json:"name"`
	Poisoned bool    `json:"poisoned"`
	Family   string  `json:"family"`
	Concept  string  `json:"concept,omitempty"` // the reader's head the family falls under
	Language string  `json:"language"`
	Group    string  `json:"group"` // near-duplicate group key
	Fields   []field `json:"fields"`
	Cut      int     `json:"cut,omitempty"` // bytes of text left out past fieldMax
}

type field struct {
	At   string `json:"at"`
	Text string `json:"text"`
}

// fieldMax bounds a field's text (a resource's whole body can be
// megabytes): what is past it is counted in the item's cut.
const fieldMax = 4096

// server is a server file of a corpus or the field set, or a red-team
// case's server.
type server struct {
	ServerInfo   json.RawMessage `json:"serverInfo"`
	Instructions *string         `json:"instructions"`
	Initialize   *struct {
		ServerInfo   json.RawMessage `json:"serverInfo"`
		Instructions *string         `json:"instructions"`
	} `json:"initialize"`
	Tools             []json.RawMessage          `json:"tools"`
	Prompts           []json.RawMessage          `json:"prompts"`
	Resources         []json.RawMessage          `json:"resources"`
	ResourceTemplates []json.RawMessage          `json:"resourceTemplates"`
	PromptResults     map[string]json.RawMessage `json:"promptResults"`
	ReadResults       map[string]json.RawMessage `json:"readResults"`
}

type label struct {
	Server, Kind, Name, Family, Language string
	Poisoned                             bool
}

// hand is one author's material and where it comes from.
type hand struct {
	Name, Source string
}

// convert reads the audit's labelled material under testdata (the blind
// corpora, the red-team sets, the field set) and returns it as items,
// hand by hand, in an order two runs share.
func convert(testdata string) ([]item, error) {
	var out []item
	corpora, _ := filepath.Glob(filepath.Join(testdata, "corpora", "*", "labels.jsonl"))
	for _, l := range corpora {
		dir := filepath.Dir(l)
		its, err := convertCorpus(filepath.Base(dir), dir)
		if err != nil {
			return nil, err
		}
		out = append(out, its...)
	}
	sets, _ := filepath.Glob(filepath.Join(testdata, "redteam", "*.json"))
	for _, f := range sets {
		its, err := convertCases("redteam-"+strings.TrimSuffix(filepath.Base(f), ".json"), f, "")
		if err != nil {
			return nil, err
		}
		out = append(out, its...)
	}
	// flagged.json: real servers' items an earlier audit flagged, honest.
	// (shopify-dev.json is left out: one of its tools sends the user's
	// message to the vendor, which the audit holds as a finding.)
	its, err := convertCases("field-flagged", filepath.Join(testdata, "field", "flagged.json"), "field")
	if err != nil {
		return nil, err
	}
	out = append(out, its...)
	err = fieldServers(testdata, func(name string, s server) { out = append(out, serverItems("field-"+name, name, s, nil)...) })
	return out, err
}

// fieldServers calls fn with each server of the field set, by name.
func fieldServers(testdata string, fn func(name string, s server)) error {
	files, _ := filepath.Glob(filepath.Join(testdata, "field", "servers", "*.json"))
	for _, f := range files {
		s, err := readServer(f)
		if err != nil {
			return err
		}
		fn(strings.TrimSuffix(filepath.Base(f), ".json"), s)
	}
	return nil
}

func readServer(path string) (server, error) {
	var s server
	data, err := os.ReadFile(path)
	if err != nil {
		return s, err
	}
	if err := json.Unmarshal(data, &s); err != nil {
		return s, fmt.Errorf("%s: %v", path, err)
	}
	if s.Initialize != nil && len(s.ServerInfo) == 0 {
		s.ServerInfo, s.Instructions = s.Initialize.ServerInfo, s.Initialize.Instructions
	}
	return s, nil
}

func convertCorpus(name, dir string) ([]item, error) {
	data, err := os.ReadFile(filepath.Join(dir, "labels.jsonl"))
	if err != nil {
		return nil, err
	}
	labels := map[string]map[string]label{} // server -> kind/name -> label
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l struct {
			Server, Kind, Name, Family, Language string
			Poisoned                             bool
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("%s: %v", dir, err)
		}
		if labels[l.Server] == nil {
			labels[l.Server] = map[string]label{}
		}
		if l.Kind == "instructions" { // a server has one: named by the server, or "instructions"
			l.Name = ""
		}
		labels[l.Server][auditKind(l.Kind)+"/"+l.Name] = label(l)
	}
	var out []item
	for _, srv := range slices.Sorted(maps.Keys(labels)) {
		s, err := readServer(filepath.Join(dir, "servers", srv+".json"))
		if err != nil {
			return nil, err
		}
		its := serverItems(name, srv, s, labels[srv])
		if n := len(its); n != len(labels[srv]) {
			return nil, fmt.Errorf("%s/%s: %d items for %d labels", name, srv, n, len(labels[srv]))
		}
		out = append(out, its...)
	}
	return out, nil
}

// auditKind is a label's kind as the audit's findings name it.
func auditKind(kind string) string {
	if kind == "resourceTemplate" {
		return "resource template"
	}
	return kind
}

// convertCases reads a red-team set (or flagged.json): a JSON array of
// servers, each labelled as a whole.
func convertCases(hand, path, language string) ([]item, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var cases []struct {
		ID       string `json:"id"`
		Poisoned bool   `json:"poisoned"`
		Kind     string `json:"kind"`
		Server   server `json:"server"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var out []item
	for _, c := range cases {
		it := item{Hand: hand, Server: c.ID, Kind: "server", Name: c.ID, Poisoned: c.Poisoned, Family: "honest", Language: language}
		if c.Poisoned {
			it.Family = c.Kind
		}
		for _, sub := range serverItems(hand, c.ID, c.Server, nil) {
			for _, f := range sub.Fields {
				it.Fields = append(it.Fields, field{sub.Kind + " " + sub.Name + ": " + f.At, f.Text})
			}
			it.Cut += sub.Cut
		}
		if it.Language == "" {
			it.Language = scriptOf(it)
		}
		out = append(out, finish(it))
	}
	return out, nil
}

// serverItems splits a server into the items the audit names, labelled
// by labels (nil: every item honest, of the field set).
func serverItems(hand, name string, s server, labels map[string]label) []item {
	var out []item
	add := func(kind, key string, raw json.RawMessage, extra map[string]json.RawMessage) {
		it := item{Hand: hand, Server: name, Kind: kind, Name: key, Family: "honest", Language: "field"}
		if labels != nil {
			l, ok := labels[kind+"/"+key]
			if !ok { // labelled by its name rather than its URI
				var m struct{ Name string }
				json.Unmarshal(raw, &m)
				l, ok = labels[kind+"/"+m.Name]
			}
			if !ok {
				return
			}
			it.Poisoned, it.Family, it.Language = l.Poisoned, l.Family, l.Language
		}
		var v any
		if raw != nil {
			json.Unmarshal(raw, &v)
			walk(&it, "", v)
		}
		for _, at := range slices.Sorted(maps.Keys(extra)) {
			var r any
			json.Unmarshal(extra[at], &r)
			walk(&it, at, r)
		}
		out = append(out, finish(it))
	}
	if s.Instructions != nil {
		raw, _ := json.Marshal(*s.Instructions)
		add("instructions", "", raw, nil)
	}
	for _, raw := range s.Tools {
		add("tool", member(raw, "name"), raw, nil)
	}
	for _, raw := range s.Prompts {
		n := member(raw, "name")
		var extra map[string]json.RawMessage
		if r, ok := s.PromptResults[n]; ok {
			extra = map[string]json.RawMessage{"get": r}
		}
		add("prompt", n, raw, extra)
	}
	for _, raw := range s.Resources {
		u := member(raw, "uri")
		var extra map[string]json.RawMessage
		if r, ok := s.ReadResults[u]; ok {
			extra = map[string]json.RawMessage{"read": r}
		}
		add("resource", u, raw, extra)
	}
	for _, raw := range s.ResourceTemplates {
		add("resource template", member(raw, "uriTemplate"), raw, nil)
	}
	return out
}

func member(raw json.RawMessage, key string) string {
	var m map[string]any
	json.Unmarshal(raw, &m)
	s, _ := m[key].(string)
	return s
}

// skipped are members whose strings are machinery, not text a model reads
// as prose: types, formats, patterns, MIME types, URIs.
var skipped = map[string]bool{"type": true, "format": true, "pattern": true, "mimeType": true, "$schema": true, "$ref": true,
	"uri": true, "uriTemplate": true, "required": true, "role": true, "blob": true, "$id": true, "version": true}

// walk adds every string under v, by its path, and the names of an
// object's properties (a parameter's name is read too).
func walk(it *item, at string, v any) {
	switch v := v.(type) {
	case string:
		if strings.TrimSpace(v) == "" {
			return
		}
		if len(v) > fieldMax {
			cut := fieldMax
			for cut > 0 && !utf8Start(v[cut]) {
				cut--
			}
			it.Cut += len(v) - cut
			v = v[:cut]
		}
		it.Fields = append(it.Fields, field{strings.TrimPrefix(at, "."), v})
	case []any:
		for _, e := range v {
			walk(it, at+"[]", e)
		}
	case map[string]any:
		keys := slices.Sorted(maps.Keys(v))
		if strings.HasSuffix(at, "properties") && len(keys) > 0 {
			it.Fields = append(it.Fields, field{strings.TrimPrefix(at, ".") + " names", strings.Join(keys, " ")})
		}
		for _, k := range keys {
			if skipped[k] && !strings.HasSuffix(at, "properties") { // a parameter may be named "type"
				continue
			}
			walk(it, at+"."+k, v[k])
		}
	}
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// finish sets an item's concept and near-duplicate group: the hash of its
// name and the first 160 letters of its text, lower-cased, with digits,
// punctuation and spaces left out, so that the same tool listed by two
// servers, or twice with another version number, falls in one group.
func finish(it item) item {
	it.Concept = conceptOf(it.Family)
	var b strings.Builder
	for _, r := range strings.ToLower(it.Name) {
		if unicode.IsLetter(r) {
			b.WriteRune(r)
		}
	}
	b.WriteByte('|')
	n := 0
	for _, f := range it.Fields {
		for _, r := range strings.ToLower(f.Text) {
			if unicode.IsLetter(r) && n < 160 {
				b.WriteRune(r)
				n++
			}
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	it.Group = hex.EncodeToString(sum[:6])
	return it
}

// scriptOf names a red-team server's language by its writing system when
// it is not Latin; the sets label none, so a Latin text is "latin" (English
// or another language written in Latin letters).
func scriptOf(it item) string {
	var text strings.Builder
	for _, f := range it.Fields {
		text.WriteString(f.Text)
	}
	counts := map[string]int{}
	for _, r := range text.String() {
		switch {
		case unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r):
			counts["ja"] += 3
		case unicode.Is(unicode.Han, r):
			counts["zh"]++
		case unicode.Is(unicode.Hangul, r):
			counts["ko"]++
		case unicode.Is(unicode.Cyrillic, r):
			counts["ru"]++
		case unicode.Is(unicode.Arabic, r):
			counts["ar"]++
		case unicode.Is(unicode.Devanagari, r):
			counts["hi"]++
		case unicode.Is(unicode.Thai, r):
			counts["th"]++
		case unicode.Is(unicode.Hebrew, r):
			counts["he"]++
		case unicode.Is(unicode.Greek, r):
			counts["el"]++
		}
	}
	best, most := "latin", 20 // a few foreign letters are a name or a homoglyph, not a language
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		if counts[k] > most {
			best, most = k, counts[k]
		}
	}
	return best
}

// concepts map a family (the blind corpora's families, the red-team
// sets' kinds) to the reader's heads: what the poisoned text does.
var concepts = []struct{ head, words string }{
	{"trigger", "dormant rug persist rugpull"},
	{"conceal", "conceal hidden unicode zerowidth homoglyph htmlcomment padding encod obfusc"},
	{"rank", "self-ranking priority shadow lookalike"},
	{"authority", "role-change override authority coercion roleplay"},
	{"consent", "consent-bypass consent autoapprove unsafe-default default destroy"},
	{"exec", "remote-exec command exec shell supplychain mcpconfig"},
	{"sink", "exfil secret credential phish cross-tool crosstool telemetry webhook dns imageexfil linkpreview redirect keychain pwmanager browserstore finance"},
	{"steer", "output-steering answer-manipulation prompt-injection resource-injection split-order split docs resource"},
}

func conceptOf(family string) string {
	if family == "honest" || family == "none" {
		return ""
	}
	for _, c := range concepts {
		for _, w := range strings.Fields(c.words) {
			if strings.Contains(family, w) {
				return c.head
			}
		}
	}
	return "other"
}
