package commands

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/exitcode"
)

// numericFlags are the flags of the grammar that take a duration or a
// count, each with the words that lead to it ("search", or none for a
// global flag).
func numericFlags(t *testing.T) map[*kong.Flag][]string {
	t.Helper()
	app, err := Grammar()
	if err != nil {
		t.Fatal(err)
	}
	out := map[*kong.Flag][]string{}
	var visit func(n *kong.Node, path []string)
	visit = func(n *kong.Node, path []string) {
		for _, f := range n.Flags {
			if k := f.Target.Kind(); k >= reflect.Int && k <= reflect.Float64 {
				out[f] = path // a count, or a duration (an int64)
			}
		}
		for _, c := range n.Children {
			visit(c, append(path[:len(path):len(path)], c.Name))
		}
	}
	visit(app.Node, nil)
	return out
}

// Every flag that takes a duration or a count, of every command, is read
// by the one mapper: a negative value, one that is no number and a flag
// with nothing after it are each one line naming the flag (exit 2), whether
// the value follows the flag as its own word or after "=". A flag the
// grammar gains is tried here without a line of its own.
func TestNumericFlags(t *testing.T) {
	t.Parallel()
	flags := numericFlags(t)
	if len(flags) < 30 {
		t.Fatalf("%d numeric flags found; the walk misses some", len(flags))
	}
	for f, path := range flags {
		if _, ok := f.Mapper.(numberMapper); !ok {
			t.Errorf("--%s (%s) is read by %T, not by numberMapper", f.Name, f.Target.Type(), f.Mapper)
			continue
		}
		kind := "not a whole number"
		switch {
		case f.Target.Type() == reflect.TypeFor[time.Duration]():
			kind = "not a duration"
		case f.Target.Kind() == reflect.Float32 || f.Target.Kind() == reflect.Float64:
			kind = "not a number"
		}
		cases := []struct {
			words []string
			want  string
		}{
			{[]string{"--" + f.Name, "-1"}, `--` + f.Name + `: "-1" is negative`},
			{[]string{"--" + f.Name + "=-1"}, `--` + f.Name + `: "-1" is negative`},
			{[]string{"--" + f.Name, "-5s"}, `--` + f.Name + `: "-5s" is ` + cutOr(kind == "not a duration", "negative", kind)},
			{[]string{"--" + f.Name, "many"}, `--` + f.Name + `: "many" is ` + kind},
			{[]string{"--" + f.Name, "NaN"}, `--` + f.Name + `: "NaN" is ` + kind},
			{[]string{"--" + f.Name}, `--` + f.Name + `: give a value after it`},
		}
		if least := f.Tag.Get("min"); least != "" {
			if v, err := parseNumber(f.Target.Type(), least); err != nil || v.IsZero() {
				t.Errorf("--%s: min:%q: %v (a bound above 0 is wanted, else there is nothing to hold)", f.Name, least, err)
			}
			cases = append(cases, struct {
				words []string
				want  string
			}{[]string{"--" + f.Name, "0"}, `--` + f.Name + `: "0" is less than ` + least})
		}
		if most := f.Tag.Get("max"); most != "" {
			v, err := parseNumber(f.Target.Type(), most)
			if err != nil || !v.CanInt() {
				t.Fatalf("--%s: max:%q: %v", f.Name, most, err)
			}
			over := fmt.Sprint(v.Int() + 1)
			cases = append(cases, struct {
				words []string
				want  string
			}{[]string{"--" + f.Name, over}, `--` + f.Name + `: "` + over + `" is more than ` + most})
		}
		for _, tc := range cases {
			args := append(append([]string{}, path...), tc.words...)
			if path == nil { // a global flag: after any command
				args = append([]string{"ping"}, tc.words...)
			}
			r := mcpv(t, "", append(args, "--", "/nonexistent/server")...)
			if r.code != exitcode.Usage || !strings.HasPrefix(r.stderr, "mcpv: "+tc.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line with %q", args, r.code, r.stderr, tc.want)
			}
		}
	}
}

func cutOr(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// parseNumber reads every kind of number a flag may hold, to its edges.
func TestParseNumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		typ  reflect.Type
		in   string
		want any // the value, or the error's text
	}{
		{reflect.TypeFor[int](), "0", 0},
		{reflect.TypeFor[int](), "-0", 0},
		{reflect.TypeFor[int](), "+7", 7},
		{reflect.TypeFor[int](), "007", 7},
		{reflect.TypeFor[int](), "9223372036854775807", 9223372036854775807},
		{reflect.TypeFor[int](), "9223372036854775808", `"9223372036854775808" is too large (at most 9223372036854775807)`},
		{reflect.TypeFor[int](), "-9223372036854775809", `"-9223372036854775809" is negative`},
		{reflect.TypeFor[int](), "-", `"-" is not a whole number`},
		{reflect.TypeFor[int](), "", `"" is not a whole number`},
		{reflect.TypeFor[int](), "1.5", `"1.5" is not a whole number`},
		{reflect.TypeFor[int](), "0x10", `"0x10" is not a whole number`},
		{reflect.TypeFor[int](), "1_000", `"1_000" is not a whole number`},
		{reflect.TypeFor[int](), " 1", `" 1" is not a whole number`},
		{reflect.TypeFor[int](), "+-1", `"+-1" is not a whole number`},
		{reflect.TypeFor[int64](), "-1", `"-1" is negative`},
		{reflect.TypeFor[uint64](), "18446744073709551615", uint64(18446744073709551615)},
		{reflect.TypeFor[uint64](), "18446744073709551616", `"18446744073709551616" is too large (at most 18446744073709551615)`},
		{reflect.TypeFor[uint64](), "-1", `"-1" is negative`},
		{reflect.TypeFor[float64](), "2.5", 2.5},
		{reflect.TypeFor[float64](), "-0", 0.0},
		{reflect.TypeFor[float64](), "-0.5", `"-0.5" is negative`},
		{reflect.TypeFor[float64](), "-1e400", `"-1e400" is negative`},
		{reflect.TypeFor[float64](), "1e400", `"1e400" is too large`},
		{reflect.TypeFor[float64](), "Inf", `"Inf" is not a number`},
		{reflect.TypeFor[float64](), "+Inf", `"+Inf" is not a number`},
		{reflect.TypeFor[float64](), "-Inf", `"-Inf" is negative`},
		{reflect.TypeFor[float64](), "nan", `"nan" is not a number`},
		{reflect.TypeFor[time.Duration](), "1.5", 1500 * time.Millisecond},
		{reflect.TypeFor[time.Duration](), "-1ms", `"-1ms" is negative`},
	} {
		v, err := parseNumber(tc.typ, tc.in)
		if msg, ok := tc.want.(string); ok {
			if err == nil || err.Error() != msg {
				t.Errorf("%s %q: %v, %v; want %s", tc.typ, tc.in, v, err, msg)
			}
			continue
		}
		if err != nil || v.Interface() != reflect.ValueOf(tc.want).Convert(tc.typ).Interface() {
			t.Errorf("%s %q: %v, %v; want %v", tc.typ, tc.in, v, err, tc.want)
		}
	}
}
