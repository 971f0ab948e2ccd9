package loaddata

import (
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// jsonLine checks a data file's line, read in pieces, for one JSON value,
// holding of it all but the plain bytes of its strings (those that are
// no quote, backslash or control byte) and their escapes but \u: a row
// that is mostly one long string, as a large row is, goes by without
// being held. rawjson.Valid judges what is held, and its answer is the
// line's, since a string's plain bytes and escapes are valid wherever
// they stand; FuzzLineChecker holds it to json.Valid, the line cut
// anywhere.
type jsonLine struct {
	held     []byte
	inString bool
	escape   bool  // the byte before was a backslash in a string
	hex      int   // bytes of a \u escape still to come, held as they are
	n        int64 // the line's bytes read
	start    int64 // where the value begins; -1 before it does
	end      int64 // just past its last byte
	// bad is a line whose first byte begins no value: known at once,
	// not after the line, which may be of gigabytes.
	bad bool
}

func newJSONLine() *jsonLine { return &jsonLine{start: -1} }

// reset makes the checker ready for the next line, keeping its room.
func (c *jsonLine) reset() { *c = jsonLine{held: c.held[:0], start: -1} }

// write reads p, the line's next bytes.
func (c *jsonLine) write(p []byte) {
	for i := 0; i < len(p); i++ {
		if c.inString && !c.escape && c.hex == 0 {
			if n := rawjson.PlainRun(p[i:]); n > 0 {
				i += n - 1
				c.end = c.n + int64(i) + 1
				continue
			}
		}
		b := p[i]
		switch {
		case c.escape:
			c.escape = false
			if b == 'u' {
				c.hex = 4
			} else if strings.IndexByte(`"\/bfnrt`, b) >= 0 {
				c.held = c.held[:len(c.held)-1] // valid wherever it stands, as a plain byte is
				c.end = c.n + int64(i) + 1
				continue
			}
		case c.hex > 0:
			c.hex--
		case b == '"':
			c.inString = !c.inString
		case b == '\\' && c.inString:
			c.escape = true
		case b == ' ' || b == '\t' || b == '\r' || b == '\n':
			c.held = append(c.held, b)
			continue // white space between tokens: neither the value's start nor its end
		}
		c.held = append(c.held, b)
		if c.start < 0 {
			c.start, c.bad = c.n+int64(i), !strings.Contains(`{["tfn-0123456789`, string(b))
		}
		c.end = c.n + int64(i) + 1
	}
	c.n += int64(len(p))
}

// valid reports whether the line is one JSON value, with white space
// around it at most; a line of white space alone is none.
func (c *jsonLine) valid() bool { return c.start >= 0 && !c.bad && rawjson.Valid(c.held) }
