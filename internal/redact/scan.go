package redact

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
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
// secret behind escapes no encoder needs (\u0067 for g: a server hiding
// what it echoes): it is read again with its escapes undone, once and
// twice (a document held in a string), and what is found there is masked
// with the escapes it was read from.
func (m *matcher) mask(text []byte) []byte {
	view, at := text, func(i int) int { return i }
	for depth := 0; depth < 3; depth++ {
		if depth > 0 && (len(m.secrets) == 0 || !bytes.Contains(view, []byte(`\u`))) {
			break
		}
		if depth > 0 {
			view, at = unescaped(view, at)
		}
		var out []byte
		last := 0
		m.cover(view, func(start, end int) {
			if out == nil {
				out = make([]byte, 0, len(text))
			}
			out = append(append(out, text[last:at(start)]...), Mask...)
			last = at(end)
		})
		if out != nil { // read again what is left
			text = append(out, text[last:]...)
			view, at = text, func(i int) int { return i }
			for range depth {
				view, at = unescaped(view, at)
			}
		}
	}
	return text
}

// unescaped is text with its JSON escapes undone, and where in what outer
// reads as text (at) each of its positions was read from.
func unescaped(text []byte, outer func(int) int) ([]byte, func(int) int) {
	view := make([]byte, 0, len(text))
	var marks [][2]int // after each escape: its end in the view, and in text
	for i := 0; i < len(text); i++ {
		n := 0
		if text[i] == '\\' && i+1 < len(text) {
			if j := bytes.IndexByte([]byte(`"\\/bfnrt`), text[i+1]); j >= 0 {
				view, n = append(view, "\"\\/\b\f\n\r\t"[j]), 2
			} else if r, ok := hex4(text[i+1:]); ok {
				n = 6
				if bytes.HasPrefix(text[i+6:], []byte{'\\'}) {
					if r2, ok := hex4(text[i+7:]); ok && utf16.DecodeRune(r, r2) != utf8.RuneError {
						r, n = utf16.DecodeRune(r, r2), 12
					}
				}
				view = utf8.AppendRune(view, r)
			}
		}
		if n == 0 {
			view = append(view, text[i])
			continue
		}
		i += n - 1
		marks = append(marks, [2]int{len(view), i + 1})
	}
	return view, func(v int) int {
		k, _ := slices.BinarySearchFunc(marks, v, func(m [2]int, v int) int { return m[0] - v - 1 })
		if k == 0 {
			return outer(v)
		}
		return outer(marks[k-1][1] + v - marks[k-1][0])
	}
}

// hex4 is the character of u and four hex digits, which b begins with.
func hex4(b []byte) (rune, bool) {
	if len(b) < 5 || b[0] != 'u' {
		return 0, false
	}
	r, err := strconv.ParseUint(string(b[1:5]), 16, 32)
	return rune(r), err == nil
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
