package jsonschema

import (
	"fmt"
	"strings"
	"testing"

	sant "github.com/santhosh-tekuri/jsonschema/v6"
)

// The benchmarks compare with the implementation mcpv used before, on a
// realistic tool inputSchema (benchSchema): compiling it, and validating
// one set of arguments given as bytes.

func BenchmarkCompile(b *testing.B) {
	b.Run("mcpv", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Compile([]byte(benchSchema)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("santhosh", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := otherCompile(benchSchema); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkValidate(b *testing.B) {
	for _, value := range []struct{ name, json string }{
		{"valid", benchValue},
		{"invalid", strings.Replace(benchValue, `"someone"`, `"some one"`, 1)},
	} {
		b.Run("mcpv/"+value.name, func(b *testing.B) {
			s := mustCompile(b, benchSchema)
			b.ReportAllocs()
			for b.Loop() {
				err := s.Validate([]byte(value.json))
				if (err == nil) != (value.name == "valid") {
					b.Fatal(err)
				}
			}
		})
		b.Run("santhosh/"+value.name, func(b *testing.B) {
			s, err := otherCompile(benchSchema)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				inst, err := sant.UnmarshalJSON(strings.NewReader(value.json))
				if err != nil {
					b.Fatal(err)
				}
				err = s.Validate(inst)
				if (err == nil) != (value.name == "valid") {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkValidateLarge validates a large structured result (about
// 1 MiB: an array of records with plain, escaped and non-ASCII strings,
// integers and decimals), where reading the value is most of the work.
func BenchmarkValidateLarge(b *testing.B) {
	s := mustCompile(b, `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object",
		"properties":{"id":{"type":"integer"},"name":{"type":"string","minLength":1},"score":{"type":"number"},
		"note":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["id","name"]}}},"required":["items"]}`)
	var v strings.Builder
	v.WriteString(`{"items":[`)
	for i := 0; v.Len() < 1<<20; i++ {
		if i > 0 {
			v.WriteByte(',')
		}
		fmt.Fprintf(&v, `{"id":%d,"name":"record number %d of the result","score":%d.%03d,"note":"line one\nline \"two\"\tand a tab, caf\u00e9 \u2014 done","tags":["alpha","beta","gamma"]}`, i, i, i%100, i%1000)
	}
	v.WriteString(`]}`)
	data := []byte(v.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := s.Validate(data); err != nil {
			b.Fatal(err)
		}
	}
}
