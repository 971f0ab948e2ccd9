package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode"
)

// bits is the width of the hashed feature space: 2^18 buckets, an int8
// each per head, 256 KiB a head.
const bits = 18

// feat is one hashed feature of an item and its weight.
type feat struct {
	i uint32
	v float32
}

// features are an item's hashed character 3-5-grams and word 1-2-grams,
// each counted as 1+ln(count), the vector scaled to length one. Text is
// lower-cased with runs of spaces made one; nothing else is normalised,
// so hidden characters and other scripts stay features of their own.
func features(it item) []feat {
	counts := map[uint32]float32{}
	add := func(kind byte, s string) {
		h := fnv.New32a()
		h.Write([]byte{kind})
		h.Write([]byte(s))
		counts[h.Sum32()&(1<<bits-1)]++
	}
	for _, f := range it.Fields {
		text := []rune(" " + strings.Join(strings.Fields(strings.ToLower(f.Text)), " ") + " ")
		for n := 3; n <= 5; n++ {
			for i := 0; i+n <= len(text); i++ {
				add('c', string(text[i:i+n]))
			}
		}
		words := strings.FieldsFunc(string(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		for i, w := range words {
			add('w', w)
			if i > 0 {
				add('b', words[i-1]+" "+w)
			}
		}
	}
	out := make([]feat, 0, len(counts))
	var norm float64
	for i, c := range counts {
		v := 1 + float32(math.Log(float64(c)))
		out = append(out, feat{i, v})
		norm += float64(v * v)
	}
	slices.SortFunc(out, func(a, b feat) int { return int(a.i) - int(b.i) })
	scale := float32(1 / math.Sqrt(max(norm, 1e-12)))
	for k := range out {
		out[k].v *= scale
	}
	return out
}

// head is one logistic model: a weight per bucket and a bias.
type head struct {
	name string
	w    []float32
	b    float32
}

func (h *head) score(x []feat) float64 {
	z := float64(h.b)
	for _, f := range x {
		z += float64(h.w[f.i] * f.v)
	}
	return 1 / (1 + math.Exp(-z))
}

// training's settings: passes over the items, the first step's size, and
// the L2 penalty applied to the weights an item touches.
const (
	epochs = 12
	eta0   = 0.5
	lambda = 1e-4
)

// train fits a head by stochastic gradient descent, the items visited in
// an order drawn from seed, the positive class weighted up to balance the
// negatives; it then rounds the weights to int8 as they are stored, so
// that what is measured is what would ship.
func train(name string, xs [][]feat, ys []bool, seed uint64) *head {
	h := &head{name: name, w: make([]float32, 1<<bits)}
	pos := 0
	for _, y := range ys {
		if y {
			pos++
		}
	}
	if pos == 0 || pos == len(ys) {
		return h
	}
	wpos := float64(len(ys)-pos) / float64(pos)
	rng := rand.New(rand.NewPCG(seed, 0x7265616465720a))
	order := make([]int, len(xs))
	for i := range order {
		order[i] = i
	}
	for e := range epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		eta := eta0 / (1 + float64(e))
		for _, k := range order {
			p := h.score(xs[k])
			g, cw := p, 1.0
			if ys[k] {
				g, cw = p-1, wpos
			}
			step := float32(eta * g * cw)
			for _, f := range xs[k] {
				h.w[f.i] -= step*f.v + float32(eta*lambda)*h.w[f.i]
			}
			h.b -= step
		}
	}
	h.quantize()
	return h
}

// quantize rounds the weights to the int8 grid of the stored form.
func (h *head) quantize() {
	s := h.scale()
	for i, w := range h.w {
		h.w[i] = float32(math.Round(float64(w/s))) * s
	}
}

func (h *head) scale() float32 {
	var m float32
	for _, w := range h.w {
		m = max(m, float32(math.Abs(float64(w))))
	}
	if m == 0 {
		return 1
	}
	return m / 127
}

// The stored form: "MCPVRDR1", the bits, the number of heads, then per
// head its name (a byte of length, the bytes), its scale and bias
// (float32, little-endian) and a signed byte per bucket.
const magic = "MCPVRDR1"

func encode(heads []*head) []byte {
	var b bytes.Buffer
	b.WriteString(magic)
	b.WriteByte(bits)
	b.WriteByte(byte(len(heads)))
	for _, h := range heads {
		b.WriteByte(byte(len(h.name)))
		b.WriteString(h.name)
		s := h.scale()
		binary.Write(&b, binary.LittleEndian, s)
		binary.Write(&b, binary.LittleEndian, h.b)
		for _, w := range h.w {
			b.WriteByte(byte(int8(math.Round(float64(w / s)))))
		}
	}
	return b.Bytes()
}

func decode(data []byte) ([]*head, error) {
	if !bytes.HasPrefix(data, []byte(magic)) || len(data) < len(magic)+2 {
		return nil, errors.New("not a reader's weights")
	}
	data = data[len(magic):]
	if data[0] != bits {
		return nil, fmt.Errorf("weights of %d bits, not %d", data[0], bits)
	}
	n := int(data[1])
	data = data[2:]
	var out []*head
	for range n {
		if len(data) < 1 || len(data) < 1+int(data[0])+8+1<<bits {
			return nil, errors.New("weights cut short")
		}
		h := &head{name: string(data[1 : 1+data[0]]), w: make([]float32, 1<<bits)}
		data = data[1+len(h.name):]
		s := math.Float32frombits(binary.LittleEndian.Uint32(data))
		h.b = math.Float32frombits(binary.LittleEndian.Uint32(data[4:]))
		for i := range h.w {
			h.w[i] = float32(int8(data[8+i])) * s
		}
		data = data[8+1<<bits:]
		out = append(out, h)
	}
	return out, nil
}
