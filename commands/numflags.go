package commands

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/duration"
)

// numberMapper reads every flag of the grammar that takes a duration or a
// count (kong is given it for time.Duration and every kind of number: see
// Apply). It takes the word after the flag whatever it looks like,
// so that "--wait -1s" is told it is negative, not taken for a short flag.
// A duration is what internal/duration reads; a count is a whole number
// in decimal (a float: a finite number); neither is negative, and each
// lies within the min and max its tag gives ("min:\"1\" max:\"64\"").
type numberMapper struct{}

// Apply makes numberMapper the kong option that gives it every flag that
// takes a duration or a count: one option rather than one a kind, since
// a run builds its grammar once and each option is an allocation.
func (numberMapper) Apply(k *kong.Kong) error {
	err := kong.TypeMapper(reflect.TypeFor[time.Duration](), numberMapper{}).Apply(k)
	for kind := reflect.Int; kind <= reflect.Float64; kind++ {
		err = cmp.Or(err, kong.KindMapper(kind, numberMapper{}).Apply(k))
	}
	return err
}

func (numberMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	word := ctx.Scan.Pop()
	if word.IsEOL() {
		return errors.New("give a value after it")
	}
	s := fmt.Sprint(word.Value)
	v, err := parseNumber(target.Type(), s)
	if err != nil {
		return err
	}
	for _, b := range []struct {
		tag, word string
		sign      int
	}{{"min", "less", -1}, {"max", "more", 1}} {
		if bound := ctx.Value.Tag.Get(b.tag); bound != "" {
			limit, _ := parseNumber(target.Type(), bound) // TestNumericFlags reads every bound of the grammar
			if compareNumbers(v, limit) == b.sign {
				return fmt.Errorf("%q is %s than %s", s, b.word, bound)
			}
		}
	}
	target.Set(v)
	return nil
}

// parseNumber reads s as a value of typ, a duration or a number.
func parseNumber(typ reflect.Type, s string) (reflect.Value, error) {
	v := reflect.New(typ).Elem()
	switch k := typ.Kind(); {
	case typ == reflect.TypeFor[time.Duration]():
		d, err := duration.Parse(s)
		v.SetInt(int64(d))
		return v, err
	case k == reflect.Float32 || k == reflect.Float64:
		f, err := strconv.ParseFloat(s, typ.Bits())
		outOfRange := errors.Is(err, strconv.ErrRange)
		switch {
		case (err == nil || outOfRange) && f < 0:
			return v, fmt.Errorf("%q is negative", s)
		case outOfRange:
			return v, fmt.Errorf("%q is too large", s)
		case err != nil || math.IsNaN(f) || math.IsInf(f, 0):
			return v, fmt.Errorf("%q is not a number", s)
		}
		v.SetFloat(f)
		return v, nil
	}
	// A whole number: its digits read as unsigned, which a signed kind
	// holds when they fit in one bit fewer.
	bits := typ.Bits()
	if k := typ.Kind(); k >= reflect.Int && k <= reflect.Int64 {
		bits--
	}
	digits, minus := strings.CutPrefix(s, "-")
	if !minus {
		digits = strings.TrimPrefix(s, "+")
	}
	n, err := strconv.ParseUint(digits, 10, bits)
	switch {
	case minus && (n > 0 || errors.Is(err, strconv.ErrRange)):
		return v, fmt.Errorf("%q is negative", s)
	case errors.Is(err, strconv.ErrRange):
		return v, fmt.Errorf("%q is too large (at most %d)", s, uint64(1)<<bits-1)
	case err != nil:
		return v, fmt.Errorf("%q is not a whole number", s)
	}
	if v.CanInt() {
		v.SetInt(int64(n))
	} else {
		v.SetUint(n)
	}
	return v, nil
}

// compareNumbers compares two values of one kind of number.
func compareNumbers(a, b reflect.Value) int {
	switch {
	case a.CanInt():
		return cmp.Compare(a.Int(), b.Int())
	case a.CanUint():
		return cmp.Compare(a.Uint(), b.Uint())
	}
	return cmp.Compare(a.Float(), b.Float())
}
