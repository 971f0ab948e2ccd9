package apphost

// The app's HTML as its frame gets it: the guard (assets/guard.js) first,
// with the policy it needs, and no frame of the app's own content.

import (
	_ "embed"
	"strings"
)

//go:embed assets/guard.js
var guardScript string

// guardHead goes before any of the app's markup: Trusted Types required
// of the document, with the guard's default policy alone; then the guard.
var guardHead = `<meta http-equiv="Content-Security-Policy" content="require-trusted-types-for 'script'; trusted-types default">` +
	"<script>\n" + guardScript + "</script>"

// guarded returns the app's HTML with the guard right after its doctype,
// so that the document keeps its standards mode and the guard is its
// first script, and with every "srcdoc" of the app's markup (any case)
// made "src_doc": a frame of the app's own content, written in the
// markup, is a window the guard never runs in (a closed shadow root can
// hide it from any script). Where the doctype is not found as a browser
// finds it (after a byte order mark, white space and comments), the guard
// goes first of all: the guard's place is never the app's to choose.
func guarded(html []byte) string {
	app := noSrcdoc(string(html))
	at := doctypeEnd(app)
	return app[:at] + guardHead + app[at:]
}

// noSrcdoc replaces "srcdoc" in any ASCII case with "src_doc", which no
// replacement can make "srcdoc" again.
func noSrcdoc(html string) string {
	const word = "srcdoc"
	var b strings.Builder
	for {
		i := indexFold(html, word)
		if i < 0 {
			b.WriteString(html)
			return b.String()
		}
		b.WriteString(html[:i])
		b.WriteString("src_doc")
		html = html[i+len(word):]
	}
}

// indexFold is the index of word (lower-case ASCII) in s, ASCII case
// folded alone, as the HTML tokenizer folds attribute names.
func indexFold(s, word string) int {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for j < len(word) && s[i+j]|0x20 == word[j] {
			j++
		}
		if j == len(word) {
			return i
		}
	}
	return -1
}

// doctypeEnd is the offset just past the document's doctype as a browser
// reads it: after a byte order mark, white space and comments, each
// comment ended where a browser ends it (the first "-->" or "--!>", or at
// once for "<!-->" and "<!--->"); 0 when no doctype comes there.
func doctypeEnd(html string) int {
	at := len(html) - len(strings.TrimPrefix(html, "\ufeff"))
	for {
		at += len(html[at:]) - len(strings.TrimLeft(html[at:], " \t\n\f\r"))
		rest, ok := strings.CutPrefix(html[at:], "<!--")
		if !ok {
			break
		}
		end := commentEnd(rest)
		if end < 0 {
			return 0
		}
		at += len("<!--") + end
	}
	if indexFold(html[at:min(at+len("<!doctype"), len(html))], "<!doctype") != 0 {
		return 0
	}
	gt := strings.IndexByte(html[at:], '>')
	if gt < 0 {
		return 0
	}
	return at + gt + 1
}

// commentEnd is the offset just past the end of a comment whose text
// begins s, or -1 if it never ends.
func commentEnd(s string) int {
	switch {
	case strings.HasPrefix(s, ">"):
		return 1
	case strings.HasPrefix(s, "->"):
		return 2
	}
	end := -1
	for _, close := range []string{"-->", "--!>"} {
		if i := strings.Index(s, close); i >= 0 && (end < 0 || i+len(close) < end) {
			end = i + len(close)
		}
	}
	return end
}
