package redact

import (
	"fmt"
	"strings"
	"testing"
)

// benchText is a message of the relay's hot path: 1 MiB of JSON text
// holding no secret.
var benchText = []byte(`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` +
	strings.Repeat("the quick brown fox jumps over the lazy dog 0123456789 ", 1<<20/55) + `"}]}}`)

// BenchmarkMask: one message masked by a scrubber that knows n secrets,
// each in every form a server may echo it in (Forms), none of them in
// it, and by one that knows none.
func BenchmarkMask(b *testing.B) {
	for _, n := range []int{0, 1, 3, 10, 30} {
		b.Run(fmt.Sprintf("secrets=%d", n), func(b *testing.B) {
			s := NewScrubber(nil)
			var values []string
			for i := range n {
				values = append(values, fmt.Sprintf("ghp_%x%x/T0k3n+%d", i*7919, i*104729, i))
			}
			s.Add(values...)
			b.SetBytes(int64(len(benchText)))
			for b.Loop() {
				if out := s.Mask(benchText); len(out) != len(benchText) {
					b.Fatal("masked")
				}
			}
		})
	}
}
