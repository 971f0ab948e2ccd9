package manpage

import (
	"fmt"
	"strings"
)

// escape makes s safe within a line of roff text: a backslash prints as
// itself, a hyphen is \- (the minus sign man pages use for options, which
// copies and pastes as the ASCII hyphen), and a character beyond ASCII is
// named by its code point.
func escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\e`)
		case r == '-':
			b.WriteString(`\-`)
		case r == '\t' || r == '\n':
			b.WriteString(" ")
		case r < ' ' || r == 0x7f:
			// a control character has no place on a page
		case r > 0x7e:
			fmt.Fprintf(&b, `\[u%04X]`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// text is s escaped as a whole line of text: one that would start with a
// control character (. or ') starts with the zero-width \& instead, so it
// is not taken for a request.
func text(s string) string {
	t := escape(s)
	if strings.HasPrefix(t, ".") || strings.HasPrefix(t, "'") {
		t = `\&` + t
	}
	return t
}

// breakable lets a line of filled text break after a comma within a word
// (\: is an invisible break point), so that JSON such as
// {"name","target",...} wraps like words do instead of running past the
// margin.
func breakable(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		b.WriteByte(line[i])
		if line[i] == ',' && i+1 < len(line) && line[i+1] != ' ' {
			b.WriteString(`\:`)
		}
	}
	return b.String()
}

// quoted is s as one argument of a macro: in double quotes, with a double
// quote inside written as \(dq.
func quoted(s string) string {
	return `"` + strings.ReplaceAll(escape(s), `"`, `\(dq`) + `"`
}

func bold(s string) string   { return `\fB` + escape(s) + `\fR` }
func italic(s string) string { return `\fI` + escape(s) + `\fR` }

// block is a piece of a help text: a paragraph of running text, or lines
// indented in the source, shown as they are (examples, tables).
type block struct {
	text    string   // a paragraph, its lines joined
	literal []string // or literal lines, without their common indentation
}

// blocks splits a help text into paragraphs (separated by blank lines or by
// a change from running text to indented lines) and literal blocks.
func blocks(text string) []block {
	var out []block
	var para, lit []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, block{text: strings.Join(para, " ")})
		}
		if len(lit) > 0 {
			out = append(out, block{literal: dedent(lit)})
		}
		para, lit = nil, nil
	}
	for line := range strings.SplitSeq(text, "\n") {
		switch {
		case strings.TrimSpace(line) == "":
			flush()
		case line[0] == ' ' || line[0] == '\t':
			if len(para) > 0 {
				flush()
			}
			lit = append(lit, strings.TrimRight(line, " \t"))
		default:
			if len(lit) > 0 {
				flush()
			}
			para = append(para, strings.TrimSpace(line))
		}
	}
	flush()
	return out
}

func dedent(lines []string) []string {
	indent := -1
	for _, l := range lines {
		n := len(l) - len(strings.TrimLeft(l, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = l[indent:]
	}
	return out
}

// writeBlocks writes help text blocks: a paragraph filled, a literal block
// indented and unfilled.
func writeBlocks(b *strings.Builder, bs []block) {
	for _, bl := range bs {
		b.WriteString(".PP\n")
		if bl.literal == nil {
			b.WriteString(breakable(text(bl.text)) + "\n")
			continue
		}
		b.WriteString(".RS 4\n.nf\n")
		for _, l := range bl.literal {
			b.WriteString(text(l) + "\n")
		}
		b.WriteString(".fi\n.RE\n")
	}
}

// definitions reads a literal block of "TERM   text" lines, where a line
// indented past the term continues the text before it.
func definitions(lines []string) []Entry {
	var out []Entry
	for _, l := range lines {
		if l != "" && l[0] != ' ' {
			term, text, _ := strings.Cut(l, "  ")
			out = append(out, Entry{Name: term, Help: strings.TrimSpace(text)})
			continue
		}
		if len(out) > 0 {
			last := &out[len(out)-1]
			last.Help = strings.TrimSpace(last.Help + " " + strings.TrimSpace(l))
		}
	}
	return out
}

// usageLine formats a usage line of the help text for SYNOPSIS: words that
// are typed as they are in bold (the program, commands, flags), what stands
// for something else in italics (<command>, SERVER-COMMAND, [flags]),
// brackets and dots plain. A remark after two spaces is plain text.
func usageLine(line string) string {
	syntax, remark, _ := strings.Cut(line, "  ")
	var words []string
	for w := range strings.FieldsSeq(syntax) {
		core := strings.TrimLeft(w, "[")
		open := w[:len(w)-len(core)]
		end := len(core)
		for end > 0 && strings.ContainsRune("]. ", rune(core[end-1])) {
			end--
		}
		close := core[end:]
		core = core[:end]
		switch {
		case strings.HasPrefix(core, "<") && strings.HasSuffix(core, ">"):
			core = italic(strings.Trim(core, "<>"))
		case core != "" && strings.ToUpper(core) == core && strings.ContainsAny(core, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
			open != "" && !strings.HasPrefix(core, "-"):
			core = italic(core)
		case core != "":
			core = bold(core)
		}
		words = append(words, open+core+escape(close))
	}
	out := strings.Join(words, " ")
	if remark = strings.TrimSpace(remark); remark != "" {
		out += " " + escape(remark)
	}
	return out
}
