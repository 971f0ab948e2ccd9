package redact

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// matcher finds every secret in a text in one pass, however many it
// knows: each position whose first two bytes begin a secret (a bit in
// a table of 65,536, which the scan reads), and whose first four may (a
// bit in another, by their hash), is tried against those secrets alone. A text is masked by the union of every secret's every
// occurrence, each run of it replaced by one Mask, so that secrets that
// overlap (one ends inside another) leave nothing of either behind.
//
// A piece of a secret is masked too where the text breaks off beside
// it: its beginning, cut off by a clip ("ghp_A1b2…") or at the end of a
// message, or its end, at the start of the next message (a secret sent
// in two log lines). The piece must be long enough to tell it from
// honest text: half the secret and at least pieceLength bytes, or, next
// to the cut mark mcpv's clips end with, MinLength. The text breaks off
// at either end of it (as edges says), and at any byte that is no ASCII
// letter or digit: a space, a quote, punctuation, a newline, "…".
type matcher struct {
	secrets [][]byte             // longest first
	first   [1 << 16 / 64]uint64 // bit k: some secret begins with the two bytes k, or its end pieces are anchored by them
	begins  [1 << 16 / 64]uint64 // bit k: some secret begins with the two bytes k
	anchors [1 << 16 / 64]uint64 // bit k: k are the anchor of some secret's end pieces (ends)
	quads   [1 << 16 / 64]uint64 // bit quad(s): some secret begins with the four bytes s, which a piece of its beginning holds too
	by      map[uint16][]int     // the secrets (indices, longest first) beginning with each two bytes
	ends    map[uint16][]anchor  // the secrets long enough for a piece, by two bytes every piece of their end holds
	heads   [256 / 64]uint64     // bit b: some secret begins with the byte b
	longest int
}

// pieceLength is the fewest bytes of a secret a piece of it is masked
// by, but before a cut mark: fewer may be honest text that happens to
// match.
const pieceLength = 8

// cutMark is what a clip ends with, as mcpv's write it ("… (N more
// bytes)", and %q's quote before it).
const cutMark = "…"

// edges says whether a text breaks off at its start and at its end: a
// whole message does at both; a stream's write goes on past its end.
type edges struct{ start, end bool }

var whole = edges{true, true}

// breaksAt reports whether text breaks off between text[i-1] and text[i].
func (e edges) breaksAt(text []byte, i int) bool {
	switch i {
	case 0:
		return e.start
	case len(text):
		return e.end
	}
	return !wordByte(text[i-1]) || !wordByte(text[i])
}

func wordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// pieceMin is the fewest bytes of s a piece of it is masked by.
func pieceMin(s []byte) int { return max(pieceLength, (len(s)+1)/2) }

func pair(a, b byte) uint16 { return uint16(a)<<8 | uint16(b) }

// build indexes secrets, sorted longest first, each at least MinLength
// bytes (Forms gives none shorter).
func (m *matcher) build(secrets [][]byte) {
	*m = matcher{secrets: secrets, by: map[uint16][]int{}, ends: map[uint16][]anchor{}}
	for i, s := range secrets {
		k := pair(s[0], s[1])
		m.first[k/64] |= 1 << (k % 64)
		m.begins[k/64] |= 1 << (k % 64)
		m.heads[s[0]/64] |= 1 << (s[0] % 64)
		m.by[k] = append(m.by[k], i)
		m.longest = max(m.longest, len(s))
		q := quad(s)
		m.quads[q/64] |= 1 << (q % 64)
	}
	for i, s := range secrets {
		if len(s) <= pieceMin(s) {
			continue
		}
		// The two bytes of the shortest end piece a text holds least
		// often, which cost the scan least: two a secret begins with
		// (the scan stops there already), else the fewest lower-case
		// letters and spaces.
		at, best := 0, -1
		for o := len(s) - pieceMin(s); o+1 < len(s); o++ {
			k := pair(s[o], s[o+1])
			score := rarity(s[o]) + rarity(s[o+1])
			if m.first[k/64]&(1<<(k%64)) != 0 {
				score = 10
			}
			if score > best {
				at, best = o, score
			}
		}
		k := pair(s[at], s[at+1])
		m.first[k/64] |= 1 << (k % 64)
		m.anchors[k/64] |= 1 << (k % 64)
		m.ends[k] = append(m.ends[k], anchor{i, at})
	}
}

// anchor is a secret (its index) and where in it the two bytes are
// that its end pieces are looked for by.
type anchor struct{ secret, at int }

// rarity is how seldom a byte is in text, roughly: a lower-case letter
// or a space often, a digit less, a capital or a sign seldom.
func rarity(c byte) int {
	switch {
	case 'a' <= c && c <= 'z', c == ' ':
		return 0
	case '0' <= c && c <= '9':
		return 1
	case 'A' <= c && c <= 'Z':
		return 2
	}
	return 3
}

// cover calls fn with each run of text that secrets, and pieces of
// them where text breaks off (as e says), cover, in order: [start, end),
// runs that touch or overlap merged.
func (m *matcher) cover(text []byte, e edges, fn func(start, end int)) {
	if len(m.secrets) == 0 {
		return
	}
	var runs [][2]int
	for i := 0; i+1 < len(text); i++ {
		if k := pair(text[i], text[i+1]); m.first[k/64]&(1<<(k%64)) != 0 {
			runs = m.at(text, i, e, k, runs)
		}
	}
	if len(runs) == 0 {
		return
	}
	slices.SortFunc(runs, func(a, b [2]int) int { return a[0] - b[0] })
	start, end := runs[0][0], runs[0][1]
	for _, r := range runs[1:] {
		if r[0] > end {
			fn(start, end)
			start = r[0]
		}
		end = max(end, r[1])
	}
	fn(start, end)
}

// at appends to runs what secrets and pieces cover at text[i:], whose
// first two bytes, k, a secret begins with or anchors its end with.
func (m *matcher) at(text []byte, i int, e edges, k uint16, runs [][2]int) [][2]int {
	if q := quad(text[i:]); m.begins[k/64]&(1<<(k%64)) != 0 && m.quads[q/64]&(1<<(q%64)) != 0 {
		if n := m.beginning(text, i, e, k); n > 0 {
			runs = append(runs, [2]int{i, i + n})
		}
	}
	if m.anchors[k/64]&(1<<(k%64)) != 0 {
		if start, end := m.ending(text, i, e, k); end > 0 {
			runs = append(runs, [2]int{start, end})
		}
	}
	return runs
}

// beginning is the length of the longest secret at text[i:] (k its
// first two bytes), or of the longest beginning of one there that text
// breaks off after; 0 when there is neither.
func (m *matcher) beginning(text []byte, i int, e edges, k uint16) int {
	best := 0
	for _, j := range m.by[k] {
		s := m.secrets[j]
		if bytes.HasPrefix(text[i:], s) {
			return max(best, len(s)) // the longest here; a shorter one ends inside it
		}
		if len(s) <= MinLength || len(text)-i < MinLength || text[i+2] != s[2] || text[i+3] != s[3] {
			continue // most often: a secret's first bytes by chance
		}
		n := commonPrefix(text[i:], s)
		if n <= best || !e.breaksAt(text, i+n) {
			continue
		}
		if rest := text[i+n:]; n >= pieceMin(s) || bytes.HasPrefix(rest, []byte(cutMark)) || bytes.HasPrefix(rest, []byte(`"`+cutMark)) {
			best = n
		}
	}
	return best
}

// ending is the longest end of a secret (not all of it) whose anchor,
// k, is at text[i:], where text breaks off before it: its start and end
// in text; end 0 when there is none.
func (m *matcher) ending(text []byte, i int, e edges, k uint16) (start, end int) {
	for _, a := range m.ends[k] {
		s := m.secrets[a.secret]
		at := i - a.at // where s would begin
		if at+len(s) > len(text) || !bytes.Equal(text[i:at+len(s)], s[a.at:]) {
			continue
		}
		p := a.at
		for p > 0 && at+p > 0 && text[at+p-1] == s[p-1] {
			p--
		}
		if p > 0 && len(s)-p >= pieceMin(s) && len(s)-p > end-start && e.breaksAt(text, at+p) {
			start, end = at+p, at+len(s)
		}
	}
	return start, end
}

// quad hashes the first four bytes of b (MinLength: a secret has them),
// as many as it has.
func quad(b []byte) uint16 {
	var v uint32
	for i := range min(4, len(b)) {
		v |= uint32(b[i]) << (8 * i)
	}
	return uint16(v * 0x9E3779B1 >> 16)
}

// commonPrefix is the length of the longest beginning a and b share.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// mask returns text with each run the secrets cover replaced by Mask;
// text itself, unchanged, when it holds none. A JSON text may hold a
// secret behind escapes no encoder writes (\u0067 for g, \/ for a slash
// here and not there: a server hiding what it echoes): such a text is read
// again as a decoder reads it, once and twice (a document held in a
// string), and what is found there is masked with the escapes it was read
// from.
func (m *matcher) mask(text []byte, e edges) []byte {
	var ends []int // each run's start and end, in order
	m.cover(text, e, func(start, end int) { ends = append(ends, start, end) })
	text = masked(text, ends)
	views := [][]byte{text}
	for depth := 1; depth <= 2 && len(m.secrets) > 0; depth++ {
		if last := views[depth-1]; !bytes.Contains(last, []byte(`\u`)) && !bytes.Contains(last, []byte(`\/`)) {
			break
		}
		views = append(views, unescaped(views[depth-1]))
		ends = ends[:0]
		m.cover(views[depth], e, func(start, end int) { ends = append(ends, start, end) })
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
