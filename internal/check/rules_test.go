package check

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
)

// The rules table, rules.tsv: every sentence of the 2025-11-25 and
// 2026-07-28 revisions (their pages and schema.ts, as kept in
// testdata/spec) that says MUST, MUST NOT, SHOULD, SHOULD NOT, REQUIRED or
// SHALL, each with the checks that probe it or the reason a client cannot
// observe it. go test -run TestRules -update writes it again from the
// pages, keeping what was written by hand (whom a rule binds, its probes,
// its reason) by the sentence; the checks whose quotes hold a sentence are
// its probes without a hand to name them.

// ruleVersions are the revisions whose every rule the table accounts for.
var ruleVersions = []string{"2025-11-25", "2026-07-28"}

const (
	rulesFile = "rules.tsv"
	gapFile   = "rules_gap.tsv" // the ids of the rules a client can observe that no check probes yet
	noProbe   = "no probe yet"
)

// reasons are why a client cannot observe a rule, each said once: a rule
// that no check probes carries one of them.
var reasons = []struct{ reason, meaning string }{
	{"binds the client", "it says what a client (or its host) does; nothing a server does breaks it"},
	{"binds the authorization server", "it binds the authorization server, a party other than the MCP server mcpv check talks to"},
	{"a server's internal state: not observable", "what the server keeps, decides or does inside shows in no message a client receives"},
	{"needs a human user", "it is about what a person sees, understands or agrees to"},
	{"a SHOULD about documentation", "it asks for documentation or guidance, not behaviour on the wire"},
	{"not a requirement", "the sentence names the key words, gives an example, or points to a rule stated elsewhere"},
	{"a client cannot provoke it", "it binds what a server does on an event no client can bring about: its lists changing, its own failure, shutdown or timeout"},
	{"binds what passes to a third party", "it binds what the server does toward a third party (an upstream service, the credentials it holds for one), which no message to the client shows or lets a client recognise"},
	{"binds an intermediary", "it binds a proxy or gateway between the client and the server, not the server a client reaches"},
	{"a transport mcpv check does not speak", "it binds custom or alternative transports; mcpv check speaks stdio and Streamable HTTP"},
	{"an implementer's choice", "it says what new implementations adopt and old ones migrate to, or how the specification allocates codes; no exchange tells a new server from an old one"},
	{"needs a token issued for another resource", "it binds how a server treats a token its authorization server issued for another resource; mcpv check holds no such token (it sends the user's own for this server, or a string no server issued, which auth.invalid-token tries)"},
	{"needs a second requestor", "it binds what a server does between the tasks of two authorization contexts; mcpv check holds one user's credentials (or none), so every task it makes is of one context"},
	{"needs a token of more scope", "it binds what a server asks when a client retries an operation with a token granted the scopes the server challenged for; mcpv check obtains no token of its own (it sends the user's as it is), so it never retries with more scope"},
	{"no period a run can wait out", "it asks for something done from time to time at a period the specification leaves to the implementation and its configuration, so no run, however long, shows that it is never done"},
	{noProbe, "a client could observe it, and no check probes it yet: the known gap, listed by id in " + gapFile},
}

// binds are whom a rule can bind.
var binds = []string{"server", "client", "both", "either side", "authorization server"}

// rule is a row of the table.
type rule struct {
	ID, Version, Where, Level string // Where is page#anchor, as the site's addresses
	Binds, Probes, Reason     string // written by hand (Probes also from the checks' quotes)
	Sentence                  string
}

var ruleColumns = "id\tversion\twhere\tlevel\tbinds\tprobes\treason\tsentence"

func (r rule) line() string {
	return strings.Join([]string{r.ID, r.Version, r.Where, r.Level, r.Binds, r.Probes, r.Reason, r.Sentence}, "\t")
}

var (
	keyword    = regexp.MustCompile(`\b(MUST|SHOULD|REQUIRED|SHALL)\b`)
	listItem   = regexp.MustCompile(`^\s*(?:[-*+]|\d+\.)\s+`)
	tableRule  = regexp.MustCompile(`^\s*\|?[\s:|-]+\|?\s*$`)
	heading    = regexp.MustCompile(`^(#{1,6})\s+(.*)$`)
	exportName = regexp.MustCompile(`^export\s+(?:interface|type|const|enum|namespace|function)\s+(\w+)`)
	notSlug    = regexp.MustCompile(`[^a-z0-9 -]`)
)

// levelOf is the strongest key word of a sentence.
func levelOf(s string) string {
	for _, l := range []string{"MUST NOT", "SHALL NOT", "MUST", "SHALL", "REQUIRED", "SHOULD NOT", "SHOULD"} {
		if strings.Contains(s, l) {
			return strings.Replace(strings.Replace(l, "SHALL", "MUST", 1), "REQUIRED", "MUST", 1)
		}
	}
	return ""
}

// slug is a heading's anchor, as the site makes it.
func slug(h string) string {
	h = strings.ToLower(plain(h))
	return strings.ReplaceAll(strings.TrimSpace(notSlug.ReplaceAllString(h, "")), " ", "-")
}

// readable is text with its markup taken off as plain does, keeping the
// underscores that are part of names: the table's sentence.
func readable(s string) string {
	s = mdLink.ReplaceAllString(s, "$1")
	s = listMarker.ReplaceAllString(s, "")
	s = htmlTag.ReplaceAllString(s, " ")
	s = strings.NewReplacer("\\_", "_", "**", "", "`", "", "\\|", "|", "&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
	return strings.TrimSpace(space.ReplaceAllString(s, " "))
}

// sentences splits text at a full stop (or ? or !) before a capital.
func sentences(s string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(s); i++ {
		if !strings.ContainsRune(".?!", rune(s[i])) || s[i+1] != ' ' {
			continue
		}
		next := s[i+2]
		if !('A' <= next && next <= 'Z' || next == '"' || next == '(') {
			continue
		}
		word := s[strings.LastIndexByte(s[:i+1], ' ')+1 : i+1]
		if word == "e.g." || word == "i.e." || word == "etc." || word == "vs." {
			continue
		}
		out = append(out, strings.TrimSpace(s[start:i+1]))
		start = i + 2
	}
	return append(out, strings.TrimSpace(s[start:]))
}

// found is a sentence with a key word, under its anchor.
type found struct{ anchor, sentence string }

// keep adds a block's sentences that say a key word.
func keep(out []found, anchor, block string) []found {
	for _, s := range sentences(readable(block)) {
		if keyword.MatchString(s) {
			out = append(out, found{anchor, s})
		}
	}
	return out
}

// pageRules are the rules of an MDX page: its paragraphs, list items and
// table rows, code and front matter aside.
func pageRules(text string) []found {
	var out []found
	var block []string
	anchor := ""
	flush := func() {
		out = keep(out, anchor, strings.Join(block, " "))
		block = nil
	}
	lines := strings.Split(text, "\n")
	if len(lines) > 0 && strings.TrimSpace(lines[0]) == "---" {
		for i := 1; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "---" {
				lines = lines[i+1:]
				break
			}
		}
	}
	fence := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "```"):
			flush()
			fence = !fence
		case fence:
		case heading.MatchString(t):
			flush()
			anchor = slug(heading.FindStringSubmatch(t)[2])
		case t == "" || tableRule.MatchString(t) || strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "export "):
			flush()
		case strings.HasPrefix(t, "|"):
			flush()
			block = append(block, strings.ReplaceAll(strings.Trim(t, "|"), "|", ". "))
			flush()
		case listItem.MatchString(l):
			flush()
			block = append(block, listItem.ReplaceAllString(l, ""))
		default:
			block = append(block, l)
		}
	}
	flush()
	return out
}

// schemaRules are the rules of schema.ts's comments, each under the
// declaration it documents or sits in.
func schemaRules(text string) []found {
	var out []found
	lines := strings.Split(text, "\n")
	current := ""
	for i := 0; i < len(lines); i++ {
		if m := exportName.FindStringSubmatch(lines[i]); m != nil {
			current = m[1]
		}
		if !strings.HasPrefix(strings.TrimSpace(lines[i]), "/**") {
			continue
		}
		top := strings.HasPrefix(lines[i], "/**")
		var comment []string
		for ; i < len(lines); i++ {
			comment = append(comment, strings.TrimLeft(strings.TrimSpace(lines[i]), "/* "))
			if strings.Contains(lines[i], "*/") {
				break
			}
		}
		anchor := current
		if top { // a comment at the top documents the declaration below it
			for j := i + 1; j < len(lines); j++ {
				if m := exportName.FindStringSubmatch(lines[j]); m != nil {
					anchor = m[1]
					break
				}
			}
		}
		var para []string
		for _, c := range append(comment, "") {
			c = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(c, "*/")), "*")
			if c == "" || strings.HasPrefix(c, "@") || listItem.MatchString(c) {
				out = keep(out, strings.ToLower(anchor), strings.Join(para, " "))
				para = nil
				if strings.HasPrefix(c, "@") {
					continue
				}
			}
			para = append(para, c)
		}
	}
	return out
}

// ruleKey is how a row's hand-written columns are found again.
func ruleKey(version, where, sentence string) string {
	return version + "\t" + where + "\t" + sentence
}

func ruleID(version, where, sentence string) string {
	h := sha256.Sum256([]byte(ruleKey(version, where, sentence)))
	return "r" + hex.EncodeToString(h[:4])
}

// generatedRules are the table as the pages and the catalogue make it,
// with the hand-written columns of old kept by the sentence (on its page,
// else anywhere in its version).
func generatedRules(t *testing.T, old []rule) []rule {
	t.Helper()
	exact, loose := map[string]rule{}, map[string]rule{}
	for _, r := range old {
		exact[ruleKey(r.Version, r.Where, r.Sentence)] = r
		loose[r.Version+"\t"+r.Sentence] = r
	}
	var out []rule
	for _, v := range ruleVersions {
		root := filepath.Join("testdata", "spec", v)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			var page string
			var rs []found
			switch {
			case rel == "schema.ts":
				page, rs = "schema", schemaRules(string(data))
			case rel == "changelog.mdx" || !strings.HasSuffix(rel, ".mdx"):
				return nil // what changed, not what holds
			default:
				page = strings.TrimSuffix(strings.TrimSuffix(rel, ".mdx"), "index")
				page = cmp.Or(strings.TrimSuffix(page, "/"), "index")
				rs = pageRules(string(data))
			}
			seen := map[string]bool{}
			for _, f := range rs {
				where := page
				if f.anchor != "" {
					where += "#" + f.anchor
				}
				if seen[where+f.sentence] {
					continue
				}
				seen[where+f.sentence] = true
				r := rule{ID: ruleID(v, where, f.sentence), Version: v, Where: where, Level: levelOf(f.sentence), Sentence: f.sentence}
				if o, ok := exact[ruleKey(v, where, f.sentence)]; ok {
					r.Binds, r.Probes, r.Reason = o.Binds, o.Probes, o.Reason
				} else if o, ok := loose[v+"\t"+f.sentence]; ok {
					r.Binds, r.Probes, r.Reason = o.Binds, o.Probes, o.Reason
				} else { // a new rule: a first guess at whom it binds and why, which the hand corrects
					r.Binds = bindsOf(page, f.sentence)
					r.Reason = "new"
				}
				out = append(out, r)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	probes := quotedRules(out)
	for i, r := range out {
		ids := slices.Concat(strings.Fields(strings.ReplaceAll(r.Probes, ",", " ")), probes[i])
		slices.Sort(ids)
		r.Probes = strings.Join(slices.Compact(ids), ",")
		switch {
		case r.Probes != "" && (r.Reason == noProbe || r.Reason == "new"):
			r.Reason = ""
		case r.Reason == "new":
			r.Reason = seedReason(r.Binds)
		}
		out[i] = r
	}
	return out
}

// bindsOf is whom a new rule binds, as the words before its key word say:
// a first guess, which the table's hand corrects.
func bindsOf(page, sentence string) string {
	before := strings.ToLower(sentence[:keyword.FindStringIndex(sentence)[0]])
	authz := strings.Contains(before, "authorization server")
	before = strings.ReplaceAll(before, "authorization server", "")
	client := strings.Contains(before, "client") || strings.Contains(before, "host")
	server := strings.Contains(before, "server")
	switch {
	case authz && !client && !server:
		return "authorization server"
	case client && server:
		return "both"
	case client:
		return "client"
	case server:
		return "server"
	case strings.Contains(page, "transports"):
		return "either side"
	}
	return "both"
}

// seedReason is a new, unprobed rule's first reason, by whom it binds.
func seedReason(binds string) string {
	switch binds {
	case "client":
		return "binds the client"
	case "authorization server":
		return "binds the authorization server"
	}
	return noProbe
}

// quotePieces are the sentences of a check's quote that say a key word,
// made plain: what of the table it names.
func quotePieces(c *Check) []string {
	var out []string
	for _, part := range elision.Split(c.Quote, -1) {
		for _, s := range sentences(part) {
			if s = strings.Trim(plain(s), " :;,"); keyword.MatchString(s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// names is whether a piece of a check's quote is the rule's sentence
// (the one holds the other).
func names(r rule, piece string) bool {
	s := plainOf(r.Sentence)
	return strings.Contains(s, piece) || strings.Contains(piece, s)
}

var plainMemo sync.Map

// plainOf is plain, kept: the table's sentences are made plain once.
func plainOf(s string) string {
	if p, ok := plainMemo.Load(s); ok {
		return p.(string)
	}
	p := plain(s)
	plainMemo.Store(s, p)
	return p
}

// quotedRules are, by row, the checks whose quotes hold its sentence on
// its page (or, for a check of both eras, the same sentence of the other
// revision).
func quotedRules(rs []rule) [][]string {
	out := make([][]string, len(rs))
	for _, c := range Catalogue() {
		page, _, _ := strings.Cut(c.Section, "#")
		for _, piece := range quotePieces(c) {
			for i, r := range rs {
				// A check of either era probes the same sentence in the
				// other revision, wherever that revision has put it.
				if (r.Version == c.Spec && strings.Split(r.Where, "#")[0] == page || c.needs.era == "" && slices.Contains(ruleVersions, c.Spec) && strings.Trim(plainOf(r.Sentence), " :;,") == piece) && names(r, piece) {
					out[i] = append(out[i], c.ID)
				}
			}
		}
	}
	return out
}

// rulesHeader is the table's head: how it is made, what its columns and
// reasons mean.
func rulesHeader() string {
	var b strings.Builder
	b.WriteString(`# Every sentence of the specification's 2025-11-25 and 2026-07-28 revisions
# that says MUST, MUST NOT, SHOULD, SHOULD NOT, REQUIRED or SHALL, from their
# pages and schema.ts as kept in testdata/spec (the changelogs aside), each
# with the checks that probe it or the reason a client cannot observe it.
# Made by: go test ./internal/check -run TestRules -update, which reads the
# pages again and keeps the columns binds, probes and reason, written by
# hand, by the sentence; a check whose quote holds a sentence is among its
# probes without a hand to name it. TestRules fails when this file is not
# what that makes, when a rule has neither a probe nor a reason, and when
# a check's quote names a sentence the table does not have.
# Columns, parted by a tab: id (from version, where and sentence), version,
# where (page#anchor, as the site's addresses), level (the strongest key
# word: MUST for REQUIRED and SHALL), binds, probes (check ids), reason,
# sentence.
# binds is one of:`)
	for _, w := range binds {
		b.WriteString(" " + w + ";")
	}
	b.WriteString("\n# reasons, each what it means:\n")
	for _, r := range reasons {
		fmt.Fprintf(&b, "#   %s: %s\n", r.reason, r.meaning)
	}
	return b.String()
}

func writeRules(rs []rule) string {
	var b strings.Builder
	b.WriteString(rulesHeader())
	b.WriteString(ruleColumns + "\n")
	for _, r := range rs {
		b.WriteString(r.line() + "\n")
	}
	return b.String()
}

func readRules(t *testing.T) ([]rule, string) {
	t.Helper()
	data, err := os.ReadFile(rulesFile)
	if os.IsNotExist(err) {
		return nil, ""
	}
	if err != nil {
		t.Fatal(err)
	}
	var rs []rule
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if strings.HasPrefix(l, "#") || l == ruleColumns {
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 8 {
			t.Fatalf("%s: %d fields, not 8: %q", rulesFile, len(f), l)
		}
		rs = append(rs, rule{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]})
	}
	return rs, string(data)
}

// The table is what the pages make of it, each rule is probed or says why
// no client can observe it, the known gap is the file's, and each check's
// quote names rules the table has, probed by that check.
func TestRules(t *testing.T) {
	old, text := readRules(t)
	rs := generatedRules(t, old)
	if want := writeRules(rs); want != text {
		if !*update {
			t.Errorf("%s is stale: go test ./internal/check -run TestRules -update writes it (-file +pages):\n%s", rulesFile, gocmp.Diff(text, want))
		} else if err := os.WriteFile(rulesFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	checkRules(t, rs)
	checkGap(t, rs)
}

// checkRules holds every row to a probe or a reason, and every check's
// quote to the rows it names.
func checkRules(t *testing.T, rs []rule) {
	known := map[string]bool{}
	for _, r := range reasons {
		known[r.reason] = true
	}
	for _, r := range rs {
		switch {
		case r.Probes == "" && r.Reason == "":
			t.Errorf("%s (%s %s): neither a probe nor a reason: %q", r.ID, r.Version, r.Where, r.Sentence)
		case r.Reason != "" && !known[r.Reason]:
			t.Errorf("%s: reason %q is none of the table's reasons", r.ID, r.Reason)
		case !slices.Contains(binds, r.Binds):
			t.Errorf("%s: binds %q, none of %q", r.ID, r.Binds, binds)
		}
		for _, id := range strings.Split(r.Probes, ",") {
			if id != "" && checkByID(id) == nil {
				t.Errorf("%s: probed by %q, which is no check", r.ID, id)
			}
		}
	}
	for _, c := range Catalogue() {
		if !slices.Contains(ruleVersions, c.Spec) {
			continue
		}
		page, _, _ := strings.Cut(c.Section, "#")
		for _, piece := range quotePieces(c) {
			if !slices.ContainsFunc(rs, func(r rule) bool {
				return r.Version == c.Spec && strings.Split(r.Where, "#")[0] == page && names(r, piece) && slices.Contains(strings.Split(r.Probes, ","), c.ID)
			}) {
				t.Errorf("%s quotes %q at %s %s, a rule %s does not have as probed by it", c.ID, piece, c.Spec, c.Section, rulesFile)
			}
		}
	}
}

// gap is the known gap: the ids of the rules no check probes yet, as
// gapFile lists them (its lines of # aside).
func readGap(t *testing.T) []string {
	data, err := os.ReadFile(gapFile)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
			ids = append(ids, f[0])
		}
	}
	return ids
}

func gapOf(rs []rule) []rule {
	var out []rule
	for _, r := range rs {
		if r.Reason == noProbe {
			out = append(out, r)
		}
	}
	return out
}

// checkGap holds the table's rules of no probe to the gap's list: a new
// one fails, and so does one the list keeps after it was closed.
func checkGap(t *testing.T, rs []rule) {
	listed := readGap(t)
	var open []string
	for _, r := range gapOf(rs) {
		open = append(open, r.ID)
		if !slices.Contains(listed, r.ID) {
			t.Errorf("%s (%s %s) has no probe and is not in %s: probe it, give the reason no client can observe it, or list it as known: %q", r.ID, r.Version, r.Where, gapFile, r.Sentence)
		}
	}
	for _, id := range listed {
		if !slices.Contains(open, id) {
			t.Errorf("%s is in %s, but its rule is not one of no probe: take it out", id, gapFile)
		}
	}
}

// Every row of checks.tsv is a check's, with its six fields.
func TestChecksTable(t *testing.T) {
	for l := range strings.Lines(checksTSV) {
		if strings.HasPrefix(l, "#") {
			continue
		}
		f := strings.Split(strings.TrimSuffix(l, "\n"), "\t")
		switch {
		case len(f) != 6:
			t.Errorf("checks.tsv: %d fields, not 6: %q", len(f), l)
		case checkByID(f[0]) == nil:
			t.Errorf("checks.tsv: %s is no check", f[0])
		}
	}
}

// scenarioPages are the page of the specification each of the official
// suite's server scenarios tests, as 2025-11-25 names it (pageIn gives
// 2026-07-28's name), where the beginning of its name does not say it
// (scenarioPrefixes); "" is an extension's, whose rules are no page of
// either revision.
var scenarioPages = map[string]string{
	"server-initialize": "basic/lifecycle", "server-session-lifecycle": "basic/transports", "server-stateless": "basic", "ping": "basic/utilities/ping",
	"logging-set-level": "server/utilities/logging", "tools-call-with-logging": "server/utilities/logging", "completion-complete": "server/utilities/completion",
	"tools-call-with-progress": "basic/utilities/progress", "tools-call-sampling": "client/sampling", "tools-call-elicitation": "client/elicitation",
	"json-schema-2020-12": "basic", "server-sse-polling": "basic/transports", "server-sse-multiple-streams": "basic/transports",
	"dns-rebinding-protection": "basic/transports", "http-header-validation": "basic/transports", "http-custom-header-server-validation": "basic/transports",
	"sep-2164-resource-not-found": "server/resources", "caching": "server/utilities/caching",
}

// scenarioPrefixes are the pages of the scenarios whose names begin so.
var scenarioPrefixes = []struct{ prefix, page string }{
	{"tools-", "server/tools"}, {"resources-", "server/resources"}, {"prompts-", "server/prompts"}, {"elicitation-", "client/elicitation"},
	{"input-required-result-", "basic/patterns/mrtr"}, {"tasks-", ""}, {"sep-2640-skills-", ""},
}

// pageIn is the page scenario name tests, as revision names it.
func pageIn(revision, name string) string {
	page, ok := scenarioPages[name]
	for _, p := range scenarioPrefixes {
		if !ok && strings.HasPrefix(name, p.prefix) {
			page, ok = p.page, true
		}
	}
	if revision == "2026-07-28" {
		return cmp.Or(map[string]string{"basic/transports": "basic/transports/streamable-http", "basic/utilities/progress": "basic/patterns/progress"}[page], page)
	}
	return page
}

// runsFor reports whether the suite runs s for revision.
func runsFor(s Scenario, revision string) bool {
	if from, to, ok := strings.Cut(s.Revisions, " to "); ok {
		return from <= revision && revision <= to
	}
	return slices.Contains(strings.Split(s.Revisions, ", "), revision)
}

// suiteScenarios are how many of the suite's server scenarios test each
// page of a revision ("revision page"), and how many test an extension.
func suiteScenarios() (map[string]int, int) {
	by, extensions := map[string]int{}, 0
	for _, s := range Scenarios {
		if s.Revisions == "extension" {
			extensions++
		}
		for _, v := range []string{"2025-11-25", "2026-07-28"} {
			if runsFor(s, v) {
				by[v+" "+pageIn(v, s.Name)]++
			}
		}
	}
	return by, extensions
}

// Each of the suite's server scenarios tests a page of a revision the
// suite runs it for, one the table of rules has, or is an extension's.
func TestScenarioPages(t *testing.T) {
	rules, _ := readRules(t)
	pages := map[string]bool{}
	for _, r := range rules {
		pages[r.Version+" "+path.Clean(strings.Split(r.Where, "#")[0])] = true
	}
	for _, s := range Scenarios {
		runs := s.Revisions == "extension" && pageIn("2025-11-25", s.Name) == ""
		for _, v := range []string{"2025-11-25", "2026-07-28"} {
			if runsFor(s, v) {
				runs = true
				if !pages[v+" "+pageIn(v, s.Name)] {
					t.Errorf("%s: %q is no page of %s", s.Name, pageIn(v, s.Name), v)
				}
			}
		}
		if !runs {
			t.Errorf("%s: runs for neither revision (%s), and is no extension's", s.Name, s.Revisions)
		}
	}
}

// ruleCoverage is the coverage per page, as the check guide publishes it,
// beside the official suite's server scenarios of each page.
func ruleCoverage(rs []rule) string {
	suite, extensions := suiteScenarios()
	type count struct{ rules, probed, unobservable, gap int }
	by := map[string]*count{}
	var pages []string
	for _, r := range rs {
		k := r.Version + " " + path.Clean(strings.Split(r.Where, "#")[0])
		if by[k] == nil {
			by[k] = &count{}
			pages = append(pages, k)
		}
		c := by[k]
		c.rules++
		switch {
		case r.Probes != "":
			c.probed++
		case r.Reason == noProbe:
			c.gap++
		default:
			c.unobservable++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| revision | page | rules | probed | not observable | no probe yet | the suite's server scenarios (%s) |\n| --- | --- | --- | --- | --- | --- | --- |\n", SuiteVersion)
	var total count
	scenarios := 0
	for _, k := range pages {
		c := by[k]
		v, p, _ := strings.Cut(k, " ")
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %d | %d |\n", v, p, c.rules, c.probed, c.unobservable, c.gap, suite[k])
		total.rules, total.probed, total.unobservable, total.gap = total.rules+c.rules, total.probed+c.probed, total.unobservable+c.unobservable, total.gap+c.gap
		scenarios += suite[k]
	}
	fmt.Fprintf(&b, "| both | all | %d | %d | %d | %d | %d |\n", total.rules, total.probed, total.unobservable, total.gap, scenarios)
	fmt.Fprintf(&b, "\nA scenario the suite runs for both revisions is counted under each; %d more of its %d server scenarios test extensions (tasks, skills), whose rules are no page of either revision.\n", extensions, len(Scenarios))
	b.WriteString("\nWhy a rule is not observable, each reason as the table gives it:\n\n")
	for _, r := range reasons {
		fmt.Fprintf(&b, "- *%s*: %s.\n", r.reason, r.meaning)
	}
	return b.String()
}
