package testreport

import (
	"bufio"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The JUnit report is written by hand, as encoding/xml with two spaces of
// indent writes it, byte for byte (TestJUnitWriterIsEncodingXML holds
// that): encoding/xml builds tables at init that every start of mcpv
// would pay for, for one format of two commands.

// xmlHeader is encoding/xml's Header.
const xmlHeader = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"

// junitWriter writes elements indented as encoding/xml's Encoder does:
// each start tag on a line of its own, an end tag on its own line only
// after child elements.
type junitWriter struct {
	b          *bufio.Writer
	depth      int
	started    bool // a first element was written
	indentedIn bool // no child element since the last start tag
}

func (x *junitWriter) start(name string, attrs ...[2]string) {
	if x.started {
		x.b.WriteByte('\n')
	}
	x.started = true
	x.b.WriteString(strings.Repeat("  ", x.depth))
	x.depth++
	x.indentedIn = true
	x.b.WriteString("<" + name)
	for _, a := range attrs {
		x.b.WriteString(" " + a[0] + `="`)
		writeAttr(x.b, a[1])
		x.b.WriteByte('"')
	}
	x.b.WriteByte('>')
}

func (x *junitWriter) end(name string) {
	x.depth--
	if x.indentedIn {
		x.indentedIn = false
	} else {
		x.b.WriteString("\n" + strings.Repeat("  ", x.depth))
	}
	x.b.WriteString("</" + name + ">")
}

// cdata writes s in a CDATA section, a "]]>" in it split across two;
// nothing for "".
func (x *junitWriter) cdata(s string) {
	if s == "" {
		return
	}
	x.b.WriteString("<![CDATA[")
	x.b.WriteString(strings.ReplaceAll(s, "]]>", "]]]]><![CDATA[>"))
	x.b.WriteString("]]>")
}

// writeAttr writes s escaped for an attribute value, as encoding/xml
// escapes it: markup characters and white space other than a space as
// references, a character XML cannot hold as U+FFFD.
func writeAttr(b *bufio.Writer, s string) {
	for i := 0; i < len(s); {
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		switch ref, ok := attrRefs[r]; {
		case ok:
			b.WriteString(ref)
		case !xmlChar(r) || r == utf8.RuneError && width == 1:
			b.WriteString("\uFFFD")
		default:
			b.WriteRune(r)
		}
	}
}

// attrRefs are the references writeAttr writes for markup characters and
// white space other than a space.
var attrRefs = map[rune]string{'"': "&#34;", '\'': "&#39;", '&': "&amp;", '<': "&lt;", '>': "&gt;",
	'\t': "&#x9;", '\n': "&#xA;", '\r': "&#xD;"}

// xmlChar reports a character XML can hold.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// writeJUnit writes the report whole: the header, the suites, a newline.
func writeJUnit(b *bufio.Writer, all junitSuites) {
	b.WriteString(xmlHeader)
	x := &junitWriter{b: b}
	itoa := strconv.Itoa
	x.start("testsuites", [2]string{"name", all.Name}, [2]string{"tests", itoa(all.Tests)}, [2]string{"failures", itoa(all.Failures)},
		[2]string{"errors", itoa(all.Errors)}, [2]string{"time", all.Time})
	for _, s := range all.Suites {
		x.start("testsuite", [2]string{"name", s.Name}, [2]string{"tests", itoa(s.Tests)}, [2]string{"failures", itoa(s.Failures)},
			[2]string{"errors", itoa(s.Errors)}, [2]string{"skipped", itoa(s.Skipped)}, [2]string{"time", s.Time},
			[2]string{"timestamp", s.Timestamp}, [2]string{"file", s.File})
		x.start("properties") // even with none, as encoding/xml writes a>b
		for _, p := range s.Properties {
			x.start("property", [2]string{"name", p.Name}, [2]string{"value", p.Value})
			x.end("property")
		}
		x.end("properties")
		for _, c := range s.Cases {
			attrs := [][2]string{{"name", c.Name}, {"classname", c.Classname}, {"time", c.Time}}
			if c.File != "" {
				attrs = append(attrs, [2]string{"file", c.File})
			}
			if c.Line != 0 {
				attrs = append(attrs, [2]string{"line", itoa(c.Line)})
			}
			x.start("testcase", attrs...)
			if c.Skipped != nil {
				x.start("skipped", [2]string{"message", c.Skipped.Message})
				x.end("skipped")
			}
			for _, p := range []struct {
				name string
				*junitProblem
			}{{"error", c.Error}, {"failure", c.Failure}} {
				if p.junitProblem != nil {
					x.start(p.name, [2]string{"message", p.Message}, [2]string{"type", p.Type})
					x.cdata(p.Text)
					x.end(p.name)
				}
			}
			x.text("system-out", c.SystemOut)
			x.end("testcase")
		}
		x.text("system-out", s.SystemOut)
		x.text("system-err", s.SystemErr)
		x.end("testsuite")
	}
	x.end("testsuites")
	b.WriteString("\n")
}

// text writes an element of CDATA text, when there is one.
func (x *junitWriter) text(name string, t *junitText) {
	if t != nil {
		x.start(name)
		x.cdata(t.Text)
		x.end(name)
	}
}
