//go:build e2e

package audit

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/mcpv/mcpv/internal/testkit"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/mcpv/mcpv/internal/surface"
)

// The field set's saved surfaces (testdata/field/servers/NAME.json: real
// MCP servers from npm as they showed themselves, every channel, kept by
// `bash scripts/field.sh save`), audited offline. Every item of them is
// honest. The goal: the default gate fails none of them, and at most 0.5%
// of their items get a finding of medium or above. Where the audit is not
// there, testdata/field/known.txt records how far it is: the servers the
// gate fails, each by name with the finding that fails it, and the items
// at medium or above. A server newly failing or one listed that passes
// now, and a count that moved either way, fail the test, so that the file
// says the state of the audit as it is.
func TestFieldSetPassesTheGate(t *testing.T) {
	if testkit.Race {
		// A verdict over 367 saved servers, no concurrency of its own: under
		// the race detector it took most of the package's 20 minutes. CI
		// runs it in the guards' stage, without the detector.
		t.Skip("judged without the race detector (.ci/run's guards' stage)")
	}
	servers, labels := readCorpus(t, "testdata/field")
	if len(servers) < 10 {
		t.Fatalf("%d saved surfaces in testdata/field/servers", len(servers))
	}
	found := map[string][]corpusFinding{}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		for _, f := range Audit([]Target{{Surface: servers[name].surface(name)}}) {
			found[name] = append(found[name], corpusFinding{Rule: f.Rule, Severity: f.Severity.String(), Kind: f.Kind, Name: f.Name,
				Field: f.Field, Message: f.Message, Excerpt: f.Excerpt})
		}
	}
	m := measureCorpus(servers, labels, found)
	medium := 0
	for _, it := range m.items {
		if it.worst >= Medium {
			medium++
		}
	}
	foreign, docs := 0, 0
	for _, s := range servers {
		if !englishMostly(s) {
			foreign++
		}
		if servesDocuments(s) {
			docs++
		}
	}
	t.Logf("%d servers (%d mostly not English, %d serving documentation as resources or prompts), %d items; "+
		"failing the default gate: %d %v; honest items at medium or above: %d of %d (%.2f%%)",
		len(servers), foreign, docs, len(m.items), len(m.failing), m.failing, medium, len(m.items), 100*float64(medium)/float64(len(m.items)))

	known, knownMedium := readKnown(t, "testdata/field/known.txt")
	for _, name := range m.failing {
		if _, ok := known[name]; !ok {
			t.Errorf("%s fails the default gate, and did not:\n%s", name, gateFindings(found[name]))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(known)) {
		if _, ok := servers[name]; !ok {
			t.Errorf("testdata/field/known.txt lists %s, which has no saved surface", name)
		} else if !slices.Contains(m.failing, name) {
			t.Errorf("%s passes the default gate now: take it off testdata/field/known.txt", name)
		}
	}
	if medium != knownMedium {
		var b strings.Builder
		for _, it := range m.items {
			if it.worst < Medium {
				continue
			}
			fmt.Fprintf(&b, "    %s %s %q:\n", it.Server, it.Kind, it.Name)
			for _, f := range it.findings {
				if sev, _ := ParseSeverity(f.Severity); sev >= Medium {
					fmt.Fprintf(&b, "        %s %s %s: %s: %s\n", f.Severity, f.Rule, f.Field, f.Message, f.Excerpt)
				}
			}
		}
		t.Errorf("honest items at medium or above: %d, where testdata/field/known.txt records %d: the audit changed; say so there\n%s", medium, knownMedium, b.String())
	}
}

// surface is a saved server as the audit reads it: its lists, who it says
// it is, and what prompts/get and resources/read answered.
func (s corpusServer) surface(name string) surface.Server {
	info := s.ServerInfo
	if len(info) == 0 {
		info = json.RawMessage(fmt.Sprintf(`{"name":%q,"version":"0"}`, name))
	}
	return surface.Server{Name: name, HasIdentity: true, HasResources: true, Info: info, Instructions: s.Instructions, Resources: s.Resources,
		Snapshot: surface.Snapshot{Tools: s.Tools, Prompts: s.Prompts, ResourceTemplates: s.ResourceTemplates},
		Reads:    surface.Reads{Prompts: s.PromptResults, Resources: s.ReadResults}}
}

// readKnown reads the known state: "NAME<TAB>the finding that fails it" a
// line for each server the gate fails, and "medium<TAB>N", the honest
// items at medium or above; # begins a comment.
func readKnown(t *testing.T, file string) (map[string]string, int) {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known, medium := map[string]string{}, -1
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		name, why, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("%s: a line with no tab: %q", file, line)
		}
		if name == "medium" {
			if medium, err = strconv.Atoi(why); err != nil {
				t.Fatalf("%s: %q", file, line)
			}
			continue
		}
		known[name] = why
	}
	if medium < 0 {
		t.Fatalf("%s records no medium count", file)
	}
	return known, medium
}

// gateFindings are a server's findings at high or above, a line each.
func gateFindings(fs []corpusFinding) string {
	var b strings.Builder
	for _, f := range fs {
		if sev, _ := ParseSeverity(f.Severity); sev >= High {
			fmt.Fprintf(&b, "    %s %s %s %q %s: %s: %s\n", f.Severity, f.Rule, f.Kind, f.Name, f.Field, f.Message, f.Excerpt)
		}
	}
	return b.String()
}

// serverTexts are the texts of a server a model reads, raw JSON values
// included as they are (their strings are what counts).
func serverTexts(s corpusServer) []string {
	var out []string
	if s.Instructions != nil {
		out = append(out, *s.Instructions)
	}
	for _, l := range [][]json.RawMessage{s.Tools, s.Prompts, s.Resources, s.ResourceTemplates, slices.Collect(maps.Values(s.PromptResults)), slices.Collect(maps.Values(s.ReadResults))} {
		for _, raw := range l {
			out = append(out, jsonStrings(raw)...)
		}
	}
	return out
}

// jsonStrings are the string values in a JSON value.
func jsonStrings(raw json.RawMessage) []string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// Words that mark a text's language: English's commonest, and those of the
// European languages the field set speaks.
var (
	englishWords  = strings.Fields("the and of to in is for with on this that from by be or are it as an your you can will")
	europeanWords = strings.Fields("der die das und ist nicht mit für von zu den ein eine le la les et des est pour une dans du que el los las y para con por una del se il di che per gli della sono het een van en voor niet och att är för som på av não uma com")
)

// englishMostly says whether a server's prose is mostly English: less than
// a third of its letters outside the Latin script, and more English words
// than words of other European languages. Prose is what is written for a
// reader: a text of one word in Latin letters (a schema's type, format or
// enum, a name, a URI) is the protocol's, not the server's language.
func englishMostly(s corpusServer) bool {
	latin, other, en, eu := 0, 0, 0, 0
	for _, text := range serverTexts(s) {
		if !strings.ContainsFunc(text, unicode.IsSpace) && !strings.ContainsFunc(text, func(r rune) bool { return unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) }) {
			continue
		}
		for _, r := range text {
			switch {
			case unicode.Is(unicode.Latin, r):
				latin++
			case unicode.IsLetter(r):
				other++
			}
		}
		for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
			switch {
			case slices.Contains(englishWords, w):
				en++
			case slices.Contains(europeanWords, w):
				eu++
			}
		}
	}
	return 3*other < latin+other && en >= eu
}

// servesDocuments says whether a server serves documentation as resources
// or prompts: a resource read or a prompt got that answers with a text of
// a page or more (300 words: a blob is no text).
func servesDocuments(s corpusServer) bool {
	for _, raw := range slices.Concat(slices.Collect(maps.Values(s.PromptResults)), slices.Collect(maps.Values(s.ReadResults))) {
		for _, text := range jsonStrings(raw) {
			if words(text) >= 300 {
				return true
			}
		}
	}
	return false
}

// words counts a text's words as word processors do: runs between spaces
// that hold more than punctuation, where each Han, Hiragana and Katakana
// character is a word of its own (Chinese and Japanese put no space
// between words).
func words(text string) int {
	n, in := 0, false
	for _, r := range text {
		switch {
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana):
			n++
			in = false
		case unicode.IsSpace(r):
			in = false
		case unicode.IsPunct(r):
		case !in:
			n++
			in = true
		}
	}
	return n
}

// A documentation page in Chinese or Japanese, which puts no space between
// its words, serves documentation as one in English does: the word floor
// counts each Han, Hiragana and Katakana character as a word, as word
// processors count them.
// A server described in Chinese is not English for its schemas' words
// (types, formats, enum values), nor one described in French for its
// parameters' names; one described in English is.
func TestEnglishMostlyReadsProse(t *testing.T) {
	tool := func(desc string) corpusServer {
		return corpusServer{Tools: []json.RawMessage{json.RawMessage(`{"name":"get_stock_quote","description":` + strconv.Quote(desc) +
			`,"inputSchema":{"type":"object","properties":{"symbol":{"type":"string","format":"uri","description":` + strconv.Quote(desc) +
			`},"market":{"type":"string","enum":["shanghai","shenzhen","hongkong","nasdaq","newyork"]},"order":{"type":"string","enum":["ascending","descending"]}}}}`)}}
	}
	for _, c := range []struct {
		desc string
		want bool
	}{
		{"获取股票行情", false},
		{"Renvoie le cours de une action pour le marché donné", false},
		{"Returns the quote of a stock on the given market", true},
	} {
		if got := englishMostly(tool(c.desc)); got != c.want {
			t.Errorf("%q: englishMostly = %v, want %v", c.desc, got, c.want)
		}
	}
}

func TestServesDocumentsCountsWordsOfEveryScript(t *testing.T) {
	page := func(sentence string, n int) corpusServer {
		text, _ := json.Marshal(map[string]any{"contents": []any{map[string]string{"uri": "docs://guide", "text": strings.Repeat(sentence, n)}}})
		return corpusServer{ReadResults: map[string]json.RawMessage{"docs://guide": text}}
	}
	for _, c := range []struct {
		name     string
		sentence string
		n        int
		want     bool
	}{
		{"English, 300 words", "Install the package and run it. ", 50, true},
		{"English, 294 words", "Install the package and run it. ", 49, false},
		{"Chinese, 300 characters", "安装软件包后运行。", 38, true},
		{"Japanese, 300 characters", "パッケージを入れて実行します。", 22, true},
		{"Korean, 300 words", "패키지를 설치하고 실행합니다. ", 100, true},
		{"Chinese, 296 characters", "安装软件包后运行。", 37, false},
		{"punctuation alone", "。、 - — ", 400, false},
	} {
		if got := servesDocuments(page(c.sentence, c.n)); got != c.want {
			t.Errorf("%s: servesDocuments = %v, want %v", c.name, got, c.want)
		}
	}
}

// scripts/field.sh installs a package of the field set alone when the set's
// install does not hold it whole (an install cut short or half extracted
// while its lockfile matches): `summary.mjs incomplete` names the packages
// whose package.json, or a needed dependency's, is missing, looked for as
// Node.js looks, from the package's directory up.
func TestFieldScriptFindsAnIncompleteInstall(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node")
	}
	modules := filepath.Join(t.TempDir(), "node_modules")
	put := func(dir, manifest string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(modules, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if manifest != "" {
			if err := os.WriteFile(filepath.Join(modules, dir, "package.json"), []byte(manifest), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	put("whole", `{"dependencies":{"dep":"1","@s/nested":"1"},"optionalDependencies":{"gone":"1"}}`)
	put("dep", `{"dependencies":{"whole":"1"}}`) // a cycle is whole
	put("@s/nested", `{"dependencies":{"inner":"1"}}`)
	put("@s/nested/node_modules/inner", `{}`)
	put("depless", `{"dependencies":{"gone":"1"}}`)
	put("deep", `{"dependencies":{"depless":"1"}}`)
	put("extracted", "") // its directory, without its package.json
	out, err := exec.Command(node, filepath.Join("..", "..", "scripts", "field", "summary.mjs"), "incomplete", modules,
		"whole", "@s/nested", "depless", "deep", "extracted", "absent").CombinedOutput()
	if err != nil {
		t.Fatalf("summary.mjs incomplete: %v\n%s", err, out)
	}
	if got, want := strings.Fields(string(out)), []string{"depless", "deep", "extracted", "absent"}; !slices.Equal(got, want) {
		t.Errorf("incomplete named %q, want %q", got, want)
	}
}
