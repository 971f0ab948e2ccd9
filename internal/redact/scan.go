package redact

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// matcher finds every secret in a text in one pass, however many it
// knows: each position whose first two bytes begin a secret (a bit in
// a table of 65,536, which the scan reads) is tried against those
// secrets alone. A text is masked by the union of every secret's every
// occurrence, each run of it replaced by one Mask, so that secrets that
// overlap (one ends inside another) leave nothing of either behind.
type matcher struct {
	secrets [][]byte             // longest first
	first   [1 << 16 / 64]uint64 // bit k: some secret begins with the two bytes k
	by      map[uint16][]int     // the secrets (indices, longest first) beginning with each two bytes
	heads   [256 / 64]uint64     // bit b: some secret begins with the byte b
	longest int
}

func pair(a, b byte) uint16 { return uint16(a)<<8 | uint16(b) }

// build indexes secrets, sorted longest first, each at least two bytes.
func (m *matcher) build(secrets [][]byte) {
	*m = matcher{secrets: secrets, by: map[uint16][]int{}}
	for i, s := range secrets {
		k := pair(s[0], s[1])
		m.first[k/64] |= 1 << (k % 64)
		m.heads[s[0]/64] |= 1 << (s[0] % 64)
		m.by[k] = append(m.by[k], i)
		m.longest = max(m.longest, len(s))
	}
}

// cover calls fn with each run of text that secrets cover, in order:
// [start, end), runs that touch or overlap merged.
func (m *matcher) cover(text []byte, fn func(start, end int)) {
	if len(m.secrets) == 0 {
		return
	}
	start, end := -1, -1
	for i := 0; i+1 < len(text); i++ {
		k := pair(text[i], text[i+1])
		if m.first[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, j := range m.by[k] {
			s := m.secrets[j]
			if !bytes.HasPrefix(text[i:], s) {
				continue
			}
			switch {
			case i > end:
				if start >= 0 {
					fn(start, end)
				}
				start, end = i, i+len(s)
			case i+len(s) > end:
				end = i + len(s)
			}
			break // the longest here; a shorter one ends inside it
		}
	}
	if start >= 0 {
		fn(start, end)
	}
}

// mask returns text with each run the secrets cover replaced by Mask;
// text itself, unchanged, when it holds none. A JSON text may hold a
// secret behind escapes no encoder writes (\u0067 for g, \/ for a slash
// here and not there: a server hiding what it echoes): such a text is read
// again as a decoder reads it, once and twice (a document held in a
// string), and what is found there is masked with the escapes it was read
// from.
func (m *matcher) mask(text []byte) []byte {
	var ends []int // each run's start and end, in order
	m.cover(text, func(start, end int) { ends = append(ends, start, end) })
	text = masked(text, ends)
	views := [][]byte{text}
	for depth := 1; depth <= 2 && len(m.secrets) > 0; depth++ {
		if last := views[depth-1]; !bytes.Contains(last, []byte(`\u`)) && !bytes.Contains(last, []byte(`\/`)) {
			break
		}
		views = append(views, unescaped(views[depth-1]))
		ends = ends[:0]
		m.cover(views[depth], func(start, end int) { ends = append(ends, start, end) })
		if len(ends) == 0 {
			continue
		}
		for d := depth - 1; d >= 0; d-- {
			ends = readFrom(views[d], ends)
		}
		text = masked(text, ends)
		views = [][]byte{text} // read again from what is masked
		for len(views) <= depth {
			views = append(views, unescaped(views[len(views)-1]))
		}
	}
	return text
}

// unescaped is text with each JSON escape in it decoded.
func unescaped(text []byte) []byte {
	view := make([]byte, 0, len(text))
	for i := 0; i < len(text); {
		if r, n := rawjson.Escape(text[i:]); n > 0 {
			view, i = utf8.AppendRune(view, r), i+n
		} else {
			view, i = append(view, text[i]), i+1
		}
	}
	return view
}

// readFrom is where in text each position of unescaped(text) (ends, in
// order) was read from.
func readFrom(text []byte, ends []int) []int {
	at := make([]int, 0, len(ends))
	for i, v := 0, 0; ; {
		for len(at) < len(ends) && ends[len(at)] <= v {
			at = append(at, i)
		}
		if len(at) == len(ends) || i == len(text) {
			return at
		}
		if r, n := rawjson.Escape(text[i:]); n > 0 {
			i, v = i+n, v+utf8.RuneLen(r)
		} else {
			i, v = i+1, v+1
		}
	}
}

// masked is text with each run (its start and end in ends, in order, the
// runs apart) replaced by Mask.
func masked(text []byte, ends []int) []byte {
	if len(ends) == 0 {
		return text
	}
	out, last := make([]byte, 0, len(text)), 0
	for k := 0; k < len(ends); k += 2 {
		out, last = append(append(out, text[last:ends[k]]...), Mask...), ends[k+1]
	}
	return append(out, text[last:]...)
}

// escapeLen is the longest a character's escape may be, twice escaped:
// \u005cu0067 is read as \u0067, then as g.
const escapeLen = 11

// pendingEscaped is where the end of text that may begin a secret
// written behind JSON escapes starts (mask reads them): an escape cut
// short, or what may begin a secret in text read as a decoder reads it,
// once or twice. len(text) when nothing may.
func (m *matcher) pendingEscaped(text []byte) int {
	at := len(text)
	if len(m.secrets) == 0 || bytes.IndexByte(text, '\\') < 0 {
		return at
	}
	// An escape cut short: its end holds backslashes, u and hex digits
	// alone (a line's own end, a newline, holds nothing back).
	tail := at
	for tail > max(0, at-escapeLen) && strings.IndexByte(`\u0123456789abcdefABCDEF`, text[tail-1]) >= 0 {
		tail--
	}
	if i := bytes.IndexByte(text[tail:], '\\'); i >= 0 {
		at = tail + i
		// \\ is one escape: the run of backslashes it ends is held, up
		// to an escape's length (a run with no end would be held whole).
		for run := 0; at > 0 && text[at-1] == '\\' && run < escapeLen; run++ {
			at--
		}
	}
	// Only the end of text can begin a secret: a secret's length in
	// characters of the longest escapes.
	from := max(0, at-escapeLen*m.longest)
	views := [][]byte{text[from:at]}
	for depth := 1; depth <= 2; depth++ {
		views = append(views, unescaped(views[depth-1]))
		end := []int{len(views[depth]) - m.pending(views[depth])}
		for d := depth - 1; d >= 0; d-- {
			end = readFrom(views[d], end)
		}
		at = min(at, from+end[0])
	}
	return at
}

// pending is the length of the longest end of text that may begin a
// secret (and is not a whole one): it must wait for what comes next.
func (m *matcher) pending(text []byte) int {
	for n := min(m.longest-1, len(text)); n > 0; n-- {
		tail := text[len(text)-n:]
		if n == 1 {
			if m.heads[tail[0]/64]&(1<<(tail[0]%64)) != 0 {
				return 1
			}
			continue
		}
		for _, j := range m.by[pair(tail[0], tail[1])] {
			if s := m.secrets[j]; len(s) > n && bytes.HasPrefix(s, tail) {
				return n
			}
		}
	}
	return 0
}
