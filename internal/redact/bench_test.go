package redact

import (
	"bytes"
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

// BenchmarkSent: what Sent costs a message mcpv sends, by kind: a call
// with a password among small arguments, a call whose argument is 1 MiB
// of text and no secret, a call of a thousand members none a secret's,
// and a message with no arguments at all.
func BenchmarkSent(b *testing.B) {
	var many strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&many, `"field_%d":{"name":"n%d","values":[1,2,"three"]},`, i, i)
	}
	for name, msg := range map[string]string{
		"small":   `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"login","arguments":{"user":"ada","password":"hunter2","n":3},"_meta":{"progressToken":"mcpv-7"}}}`,
		"1MiB":    `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"text":"` + strings.Repeat("the quick brown fox jumps over the lazy dog 0123456789 ", 1<<20/55) + `"}}}`,
		"members": `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{` + many.String() + `"n":1}}}`,
		"none":    `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"c-1"}}`,
	} {
		b.Run(name, func(b *testing.B) {
			raw := []byte(msg)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				Sent(raw)
			}
		})
	}
}

// BenchmarkRunMasker: what every command pays at its start for its
// masker, in an environment of 40 variables of which three hold secrets.
func BenchmarkRunMasker(b *testing.B) {
	environ := []string{"GITHUB_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "DB_PASSWORD=hunter2"}
	for i := range 37 {
		environ = append(environ, fmt.Sprintf("SOME_SETTING_%d=/usr/local/share/thing-%d", i, i))
	}
	b.ReportAllocs()
	for b.Loop() {
		NewScrubber(nil).Add(EnvSecrets(environ)...)
	}
}

// BenchmarkJSON: a trace's masking of a message by its members' names,
// on 1 MiB of text holding no secret, its quotes escaped.
func BenchmarkJSON(b *testing.B) {
	msg := bytes.ReplaceAll(benchText, []byte("fox"), []byte(`\"fox\"`))
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if out := JSON(msg); len(out) != len(msg) {
			b.Fatal("masked")
		}
	}
}
