package cost

import (
	"bytes"
	"embed"
	"encoding/base64"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// An Encoding counts the tokens of a text as one of OpenAI's published
// byte-pair encodings does: the text split into pieces by the encoding's
// pre-tokenizer, each piece merged from its bytes by the ranks of the
// encoding's vocabulary. The vocabularies are the .tiktoken files OpenAI
// publishes, embedded in the binary as they are (vocab/, the files of
// these two encodings alone, each held to the SHA-256 OpenAI's tiktoken
// checks it by: TestVocabulariesAreOpenAIs) and read only when an encoding
// is first used: nothing of this is paid at start-up.
type Encoding struct {
	Name  string
	at    func(string, int) int
	once  sync.Once
	vocab map[string]uint32
	err   error
}

// Encodings are the tokenizers cost can count with. They are made by the
// linker, not at start-up.
var Encodings = []*Encoding{&o200k, &cl100k}

var (
	o200k  = Encoding{Name: "o200k_base", at: o200kAt}
	cl100k = Encoding{Name: "cl100k_base", at: cl100kAt}
)

//go:embed vocab/o200k_base.tiktoken vocab/cl100k_base.tiktoken
var vocabularies embed.FS

// ranks is the vocabulary, read on first use.
func (e *Encoding) ranks() (map[string]uint32, error) {
	e.once.Do(func() { e.vocab, e.err = e.load() })
	return e.vocab, e.err
}

// TokenizerNames are the names Get accepts.
func TokenizerNames() []string {
	var names []string
	for _, e := range Encodings {
		names = append(names, strings.TrimSuffix(e.Name, "_base"), e.Name)
	}
	return names
}

// Get is the encoding called name: "o200k" or "o200k_base" (GPT-4o,
// GPT-4.1, GPT-5, o-series), "cl100k" or "cl100k_base" (GPT-4, GPT-3.5).
func Get(name string) (*Encoding, error) {
	for _, e := range Encodings {
		if name == e.Name || name+"_base" == e.Name {
			return e, nil
		}
	}
	return nil, fmt.Errorf("unknown tokenizer %q (known: %s)", name, strings.Join(TokenizerNames(), ", "))
}

// load reads the vocabulary: a line per token, its bytes in base64 and
// its rank. The tokens' bytes are decoded into one string that every key
// of the map is a part of: two allocations, not one per token.
func (e *Encoding) load() (map[string]uint32, error) {
	file := "vocab/" + e.Name + ".tiktoken"
	data, err := vocabularies.ReadFile(file)
	if err != nil {
		return nil, err
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	all := make([]byte, 0, len(data)*3/4)
	ends := make([]int32, 0, lines)
	ranks := make([]uint32, 0, lines)
	for line := range bytes.Lines(data) {
		token, rank, ok := bytes.Cut(bytes.TrimRight(line, "\r\n"), []byte{' '})
		if !ok {
			return nil, fmt.Errorf("%s: a line without a rank", file)
		}
		all = slices.Grow(all, base64.StdEncoding.DecodedLen(len(token)))
		n, err := base64.StdEncoding.Decode(all[len(all):cap(all)], token)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", file, err)
		}
		all = all[:len(all)+n]
		r := uint32(0)
		for _, d := range rank {
			if d < '0' || d > '9' || r > math.MaxUint32/10 {
				return nil, fmt.Errorf("%s: rank %q", file, rank)
			}
			r = r*10 + uint32(d-'0')
		}
		ends = append(ends, int32(len(all)))
		ranks = append(ranks, r)
	}
	arena := string(all)
	vocab := make(map[string]uint32, len(ends))
	start := int32(0)
	for i, end := range ends {
		vocab[arena[start:end]] = ranks[i]
		start = end
	}
	return vocab, nil
}

// chunk is the length in bytes past which a piece is merged a chunk at a
// time: only a piece no honest text has (a run of letters or of
// punctuation thousands of bytes long) is cut, at a cost of at most one
// token more per cut, so that memory stays bounded whatever a server
// sends.
const chunk = 1 << 16

// Count is the number of tokens of s. Special tokens are not special in
// it: "<|endoftext|>" counts as the text it is, as a tool's description
// is sent.
func (e *Encoding) Count(s string) (int, error) {
	ranks, err := e.ranks()
	if err != nil {
		return 0, err
	}
	n := 0
	var m merger
	var seen chunkCounts
	split(s, e.at, func(piece string) {
		for len(piece) > 0 {
			p := piece[:min(len(piece), chunk)]
			piece = piece[len(p):]
			if _, ok := ranks[p]; ok {
				n++
				continue
			}
			if len(p) < chunk {
				n += m.count(ranks, p)
				continue
			}
			k, ok := seen.get(p)
			if !ok {
				k = m.count(ranks, p)
				seen.put(p, k)
			}
			n += k
		}
	})
	return n, nil
}

// chunkCounts remembers the counts of the last whole chunks merged: a
// hostile description that repeats itself for megabytes costs one merge
// per chunk it repeats, not one per chunk it has.
type chunkCounts struct {
	keys   [8]string
	counts [8]int
	next   int
}

func (c *chunkCounts) get(p string) (int, bool) {
	for i, k := range c.keys {
		if len(k) == len(p) && k == p {
			return c.counts[i], true
		}
	}
	return 0, false
}

func (c *chunkCounts) put(p string, n int) {
	c.keys[c.next], c.counts[c.next] = p, n
	c.next = (c.next + 1) % len(c.keys)
}

// merger merges a piece's bytes into tokens, the pair whose merge has the
// lowest rank first (the leftmost of equals), until no pair merges. Its
// buffers are kept between pieces.
type merger struct {
	parts []part
	heap  []pair
}

// part is a token of the piece being merged: where it starts, and the
// next and previous parts still there (-1 for none).
type part struct {
	start      int
	prev, next int32
	gone       bool
}

// pair is a merge of part left with the part after it, whose token has
// rank rank; it is stale when either part changed since.
type pair struct {
	rank  uint32
	left  int32
	start int // the left part's start, to break ties leftmost first
	end   int // the end of the merged token when it was queued
}

func (m *merger) count(ranks map[string]uint32, p string) int {
	m.parts = slices.Grow(m.parts[:0], len(p))[:len(p)]
	for i := range m.parts {
		m.parts[i] = part{start: i, prev: int32(i - 1), next: int32(i + 1)}
	}
	m.parts[len(p)-1].next = -1
	m.heap = m.heap[:0]
	end := func(i int32) int {
		if next := m.parts[i].next; next >= 0 {
			return m.parts[next].start
		}
		return len(p)
	}
	queue := func(i int32) {
		if i < 0 || m.parts[i].next < 0 {
			return
		}
		e := end(m.parts[i].next)
		if r, ok := ranks[p[m.parts[i].start:e]]; ok {
			m.push(pair{rank: r, left: i, start: m.parts[i].start, end: e})
		}
	}
	for i := range int32(len(p) - 1) {
		queue(i)
	}
	n := len(p)
	for len(m.heap) > 0 {
		top := m.pop()
		left := &m.parts[top.left]
		if left.gone || left.next < 0 || end(left.next) != top.end {
			continue // stale: a part of it was merged since
		}
		right := left.next
		left.next = m.parts[right].next
		m.parts[right].gone = true
		if left.next >= 0 {
			m.parts[left.next].prev = top.left
		}
		n--
		queue(left.prev)
		queue(top.left)
	}
	return n
}

func (a pair) less(b pair) bool {
	return a.rank < b.rank || a.rank == b.rank && a.start < b.start
}

func (m *merger) push(p pair) {
	m.heap = append(m.heap, p)
	for i := len(m.heap) - 1; i > 0; {
		parent := (i - 1) / 2
		if !m.heap[i].less(m.heap[parent]) {
			break
		}
		m.heap[i], m.heap[parent] = m.heap[parent], m.heap[i]
		i = parent
	}
}

func (m *merger) pop() pair {
	top := m.heap[0]
	last := len(m.heap) - 1
	m.heap[0] = m.heap[last]
	m.heap = m.heap[:last]
	for i := 0; ; {
		l, r, least := 2*i+1, 2*i+2, i
		if l < last && m.heap[l].less(m.heap[least]) {
			least = l
		}
		if r < last && m.heap[r].less(m.heap[least]) {
			least = r
		}
		if least == i {
			break
		}
		m.heap[i], m.heap[least] = m.heap[least], m.heap[i]
		i = least
	}
	return top
}
