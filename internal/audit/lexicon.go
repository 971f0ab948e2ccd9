package audit

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
)

// The lexicons are data: lexicon/*.txt, a file per family of rules,
// embedded in the binary and read once, at the first audit (not at
// start-up: a run that audits nothing never parses them).
//
// A file is a list of entries. An entry starts with a header line,
//
//	= NAME [WORD...] [KEY=VALUE...] [: MESSAGE]
//
// (a VALUE with spaces in double quotes)
// and holds the lines below it up to the next header: each line one
// alternative of a regular expression, or one word of a list, with an
// optional comment after two spaces and "# ". A line that starts with
// "# " is a comment. A line indented with spaces
// continues the alternative above it (joined without the indent), or a
// header's quoted value left open, so that no line runs long. A line
// that is only a comment, or blank, is skipped.
// A line of plain words apart at "|" is that many alternatives.
// An alternative may name another entry as {{NAME}}: that entry's
// alternatives, as one group (its one alternative as it is).
//
// The phrases of a rule are entries named for the rule, their first word
// the severity of their findings and their message what they say. A named
// pattern is an entry of its own name (held, destination); a list of
// words, the same with one word a line.

//go:embed lexicon/*.txt
var lexiconFS embed.FS

// lexEntry is one entry of a lexicon file.
type lexEntry struct {
	name    string
	words   []string          // the header's words after the name
	attrs   map[string]string // its KEY=VALUE pairs
	message string
	alts    []string // the alternatives or words, in order
	notes   []string // the comment of each, "" for none (a term's languages)
	file    string
	line    int
}

// lexicon is every entry of every file, by name, in the order of the
// files and of each file.
type lexiconSet struct {
	byName map[string][]*lexEntry
	order  []*lexEntry
}

var lexicon = &lazy.Value[lexiconSet]{New: func() lexiconSet {
	set, err := parseLexicons(lexiconFS)
	if err != nil {
		panic(err) // the embedded files are the binary's own: a test keeps them whole
	}
	return set
}}

// lexiconFiles is the order the files are read in: the order of the rules.
var lexiconFiles = []string{"override", "conceal", "coercion", "priority", "trigger", "shadowing", "send", "sensitive", "sidechannel", "payload", "encoded", "hidden", "secret", "language", "annotation"}

func parseLexicons(fsys fs.FS) (lexiconSet, error) {
	set := lexiconSet{byName: map[string][]*lexEntry{}}
	names, err := fs.Glob(fsys, "lexicon/*.txt")
	if err != nil {
		return set, err
	}
	for _, n := range names {
		if !slices.Contains(lexiconFiles, strings.TrimSuffix(path.Base(n), ".txt")) {
			return set, fmt.Errorf("%s: a lexicon file of no family", n)
		}
	}
	for _, f := range lexiconFiles {
		data, err := fs.ReadFile(fsys, "lexicon/"+f+".txt")
		if err != nil {
			return set, err
		}
		if err := set.parse(f+".txt", string(data)); err != nil {
			return set, err
		}
	}
	for _, e := range set.order {
		for i, a := range e.alts {
			alt, err := set.expand(a, 0)
			if err != nil {
				return set, fmt.Errorf("lexicon/%s:%d: %v", e.file, e.line, err)
			}
			e.alts[i] = alt
		}
	}
	return set, nil
}

// parse reads one file's entries.
func (set *lexiconSet) parse(file, data string) error {
	var cur *lexEntry
	hdr, hdrLine := "", 0 // a header read up to its first alternative: it may run on
	open := func() error {
		if hdr == "" {
			return nil
		}
		e, err := header(hdr)
		if err != nil {
			return fmt.Errorf("lexicon/%s:%d: %v", file, hdrLine, err)
		}
		e.file, e.line = file, hdrLine
		set.byName[e.name] = append(set.byName[e.name], e)
		set.order = append(set.order, e)
		cur, hdr = e, ""
		return nil
	}
	for i, line := range strings.Split(data, "\n") {
		where := func(format string, a ...any) error {
			return fmt.Errorf("lexicon/%s:%d: %s", file, i+1, fmt.Sprintf(format, a...))
		}
		note := ""
		if c := strings.Index(line, "  # "); c >= 0 {
			line, note = line[:c], strings.TrimSpace(line[c+4:])
		}
		line = strings.ReplaceAll(strings.TrimRight(line, " \t\r"), "ı", "i") // as the view reads a Turkish ı
		switch {
		case line == "" || strings.TrimLeft(line, " ") == "#" || strings.HasPrefix(strings.TrimLeft(line, " "), "# "):
			continue
		case line[0] == ' ' && strings.Count(hdr, `"`)%2 == 1: // a quoted value runs on
			hdr += strings.TrimLeft(line, " ")
			continue
		case hdr == "" && cur == nil && !strings.HasPrefix(line, "= "):
			return where("a line before any entry")
		}
		if err := open(); err != nil { // the header read so far is whole
			return err
		}
		switch {
		case strings.HasPrefix(line, "= "):
			hdr, hdrLine = line[2:], i+1
		case line[0] == ' ':
			if len(cur.alts) == 0 {
				return where("a continuation of nothing")
			}
			cur.alts[len(cur.alts)-1] += strings.TrimLeft(line, " ")
		default:
			for _, alt := range plainAlts(line) {
				if alt != "" {
					cur.alts, cur.notes = append(cur.alts, alt), append(cur.notes, note)
				}
			}
		}
	}
	return open()
}

// plainAlts is a line as alternatives: a list of plain words (no group,
// class or operator of an expression) apart at "|", several to a line;
// any other line, whole.
func plainAlts(line string) []string {
	if strings.ContainsAny(line, `()[]{}\^$*+?`) {
		return []string{line}
	}
	return strings.Split(line, "|")
}

// header reads an entry's header line, after its "= ".
func header(h string) (*lexEntry, error) {
	e := &lexEntry{attrs: map[string]string{}}
	for h = strings.TrimLeft(h, " "); h != ""; h = strings.TrimLeft(h, " ") {
		if strings.HasPrefix(h, ": ") {
			e.message = strings.TrimSpace(h[2:])
			break
		}
		end := strings.IndexAny(h, " :")
		if end < 0 {
			end = len(h)
		}
		word := h[:end]
		k, v, ok := strings.Cut(word, "=")
		switch {
		case ok && strings.HasPrefix(v, `"`): // a value with spaces: "a b", taken as written
			end := strings.IndexByte(h[len(k)+2:], '"')
			if end < 0 {
				return nil, fmt.Errorf("an unclosed quote in %s", k)
			}
			e.attrs[k] = h[len(k)+2 : len(k)+2+end]
			word = h[:len(k)+3+end]
		case ok:
			e.attrs[k] = v
		case e.name == "":
			e.name = word
		default:
			e.words = append(e.words, word)
		}
		if word == "" {
			return nil, fmt.Errorf("a lone colon")
		}
		h = h[len(word):]
	}
	if e.name == "" {
		return nil, fmt.Errorf("an entry with no name")
	}
	return e, nil
}

// expand replaces each {{NAME}} of alt with the alternatives of the entry
// NAME, as one group.
func (set *lexiconSet) expand(alt string, depth int) (string, error) {
	if depth > 4 {
		return "", fmt.Errorf("names nested too deep")
	}
	for {
		i := strings.Index(alt, "{{")
		if i < 0 {
			return alt, nil
		}
		j := strings.Index(alt[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("an unclosed {{")
		}
		name := alt[i+2 : i+j]
		es := set.byName[name]
		if len(es) != 1 {
			return "", fmt.Errorf("{{%s}} names %d entries", name, len(es))
		}
		inner, err := set.expand(es[0].pattern(), depth+1)
		if err != nil {
			return "", err
		}
		if len(es[0].alts) > 1 {
			inner = "(?:" + inner + ")"
		}
		alt = alt[:i] + inner + alt[i+j+2:]
	}
}

// pattern is an entry's alternatives as one regular expression.
func (e *lexEntry) pattern() string { return strings.Join(e.alts, "|") }

// lex is the one entry called name.
func lex(name string) *lexEntry {
	es := lexicon.Get().byName[name]
	if len(es) != 1 {
		panic(fmt.Sprintf("lexicon: %q names %d entries", name, len(es)))
	}
	return es[0]
}

// lexPattern is the regular expression of the entry called name.
func lexPattern(name string) string { return lex(name).pattern() }

// lexWords are the words of the list called name.
func lexWords(name string) []string { return lex(name).alts }
