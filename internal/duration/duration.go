// Package duration reads the timeouts a user writes, on the command line
// and in config files alike: a Go duration ("1m30s", "500ms", "0") or a
// bare non-negative number of seconds ("30", "1.5").
package duration

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"

	"github.com/mcpv/mcpv/internal/lazy"
)

// The patterns are compiled when first needed, not at start-up: most runs
// read no timeout at all, and a Go duration needs neither.
var (
	// number is a decimal number, as JSON and YAML write one.
	number = &lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
		return regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)
	}}
	// goDuration is what time.ParseDuration reads, whatever its size.
	goDuration = &lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
		return regexp.MustCompile(`^[+-]?(([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)
	}}
)

// Max is the longest duration there is.
const Max = time.Duration(math.MaxInt64)

// Sum is a+b for durations that are not negative, Max where the sum is
// longer: a plain sum past Max wraps negative, which a timer fires at once.
func Sum(a, b time.Duration) time.Duration { return a + min(b, Max-a) }

// Parse reads a Go duration or a bare number of seconds. A negative value,
// one longer than Max, and anything else (Inf, NaN, hexadecimal, "30 s")
// are refused; the error quotes s and names no flag or file, which the
// caller adds.
func Parse(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil {
		if d < 0 {
			return 0, negative(s)
		}
		return d, nil
	}
	switch {
	case number.Get().MatchString(s):
		secs, err := strconv.ParseFloat(s, 64) // err: out of range, secs ±Inf or 0
		if secs < 0 || (err != nil && s[0] == '-') {
			return 0, negative(s)
		}
		ns := math.Round(secs * float64(time.Second))
		if err != nil || ns >= math.MaxInt64 { // float64(MaxInt64) is 2⁶³
			return 0, tooLong(s)
		}
		return time.Duration(ns), nil
	case goDuration.Get().MatchString(s): // well formed, so it overflowed
		if s[0] == '-' {
			return 0, negative(s)
		}
		return 0, tooLong(s)
	}
	return 0, fmt.Errorf("%q is not a duration: want e.g. 30s, 1m30s or a number of seconds", s)
}

func negative(s string) error { return fmt.Errorf("%q is negative", s) }

func tooLong(s string) error {
	return fmt.Errorf("%q is too long (at most %v)", s, Max.Truncate(time.Second))
}
