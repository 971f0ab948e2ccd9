package duration

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	ok := []struct {
		in   string
		want time.Duration
	}{
		{"0", 0},
		{"-0", 0},
		{"+0", 0},
		{"00", 0},
		{"30", 30 * time.Second},
		{"+30", 30 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{".5", 500 * time.Millisecond},
		{"1.", time.Second},
		{"0.1", 100 * time.Millisecond},
		{"2.3", 2300 * time.Millisecond}, // 2.3e9 is 2299999999.9999995 in float64: rounded, not truncated
		{"0.000000001", time.Nanosecond},
		{"1e3", 1000 * time.Second},
		{"1.5E+2", 150 * time.Second},
		{"600e-1", time.Minute},
		{"-0.0", 0},
		{"30s", 30 * time.Second},
		{"1m30s", 90 * time.Second},
		{"500ms", 500 * time.Millisecond},
		{"1.5h", 90 * time.Minute},
		{"10µs", 10 * time.Microsecond},
		{"2562047h", 2562047 * time.Hour},
		{"9223372036", 9223372036 * time.Second},
	}
	for _, c := range ok {
		got, err := Parse(c.in)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	bad := []struct{ in, want string }{
		{"", `"" is not a duration`},
		{"abc", `"abc" is not a duration: want e.g. 30s, 1m30s or a number of seconds`},
		{"30 s", "is not a duration"},
		{" 30", "is not a duration"},
		{"30sec", "is not a duration"},
		{"1:30", "is not a duration"},
		{"0x1F", "is not a duration"},
		{"0x1p4", "is not a duration"},
		{"1_000", "is not a duration"},
		{"NaN", "is not a duration"},
		{"Inf", "is not a duration"},
		{"+Inf", "is not a duration"},
		{".inf", "is not a duration"},
		{"infinity", "is not a duration"},
		{".", "is not a duration"},
		{"e3", "is not a duration"},
		{"-", "is not a duration"},
		{"-1", `"-1" is negative`},
		{"-0.5", "is negative"},
		{"-5s", `"-5s" is negative`},
		{"-1e400", "is negative"},
		{"-3000000h", "is negative"},
		{"1e10", `"1e10" is too long (at most 2562047h47m16s)`},
		{"9223372037", "is too long"},
		{"1e400", "is too long"},
		{"3000000h", "is too long"},
		{"9223372036854775808ns", "is too long"},
	}
	for _, c := range bad {
		got, err := Parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, %v; want an error with %q", c.in, got, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q): error on more than one line: %q", c.in, err)
		}
	}
}

// FuzzParse checks that whatever Parse accepts is a duration it can read
// back from its Go form, and that it never accepts a negative one.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "30", "1.5", "1e3", "1m30s", "500ms", "-1", "abc", "1e10", ".5", "2562047h47m16.854775807s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse(s)
		if err != nil {
			if d != 0 {
				t.Fatalf("Parse(%q) = %v with error %v", s, d, err)
			}
			return
		}
		if d < 0 {
			t.Fatalf("Parse(%q) = %v, negative", s, d)
		}
		back, err := Parse(d.String())
		if err != nil || back != d {
			t.Fatalf("Parse(%q) = %v, but Parse(%q) = %v, %v", s, d, d.String(), back, err)
		}
	})
}

func TestSum(t *testing.T) {
	for _, c := range []struct{ a, b, want time.Duration }{
		{0, 0, 0},
		{time.Second, 30 * time.Second, 31 * time.Second},
		{Max, 0, Max},
		{Max, time.Nanosecond, Max},
		{Max - time.Second, 30 * time.Second, Max},
		{30 * time.Second, Max, Max},
		{Max / 2, Max/2 + 1, Max},
		{Max / 2, Max/2 + 2, Max},
	} {
		if got := Sum(c.a, c.b); got != c.want {
			t.Errorf("Sum(%d, %d) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
