package jsonschema

import (
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
