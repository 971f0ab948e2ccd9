package jsonschema

import (
	"cmp"
	"math/big"
	"strings"
)

// decimal is a JSON number exactly: digits × 10^exp, with no leading or
// trailing zeros in digits ("" is zero). Comparing and dividing decimals
// never goes through float64, so 300000001 stays above 300000000 and 0.3
// stays a multiple of 0.1.
type decimal struct {
	neg    bool
	digits string
	exp    int64
}

// maxExp bounds exponents, far beyond any float64 and any real schema, so
// that arithmetic on them cannot overflow.
const maxExp = 1 << 40

// parseDecimal reads a number literal (JSON syntax, already checked).
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg = true
		s = s[1:]
	}
	mant, expText := s, ""
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, expText = s[:i], s[i+1:]
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" || !allDigits(intPart) || !allDigits(frac) {
		return decimal{}, false
	}
	var exp int64
	if expText != "" {
		neg := expText[0] == '-'
		if neg || expText[0] == '+' {
			expText = expText[1:]
		}
		if expText == "" || !allDigits(expText) {
			return decimal{}, false
		}
		for i := 0; i < len(expText); i++ {
			if exp < maxExp {
				exp = exp*10 + int64(expText[i]-'0')
			}
		}
		if neg {
			exp = -exp
		}
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	d.digits = strings.TrimRight(digits, "0")
	if d.digits == "" {
		return decimal{}, true // zero, and -0 is 0
	}
	d.exp = exp - int64(len(frac)) + int64(len(digits)-len(d.digits))
	return d, true
}

func allDigits(s string) bool { return strings.Trim(s, "0123456789") == "" }

func (d decimal) isZero() bool { return d.digits == "" }

// isInt reports whether d is a whole number (1.0 and 1e2 are).
func (d decimal) isInt() bool { return d.digits == "" || d.exp >= 0 }

// sign is -1, 0 or +1.
func (d decimal) sign() int {
	switch {
	case d.isZero():
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// cmp compares d and e: -1, 0 or +1.
func (d decimal) cmp(e decimal) int {
	if ds, es := d.sign(), e.sign(); ds != es || ds == 0 {
		return cmp.Compare(ds, es)
	}
	return d.sign() * d.cmpMagnitude(e)
}

// cmpMagnitude compares |d| and |e|, both not zero.
func (d decimal) cmpMagnitude(e decimal) int {
	// The position of the leading digit decides, then the digits.
	dl, el := int64(len(d.digits))+d.exp, int64(len(e.digits))+e.exp
	switch {
	case dl < el:
		return -1
	case dl > el:
		return 1
	}
	return strings.Compare(d.digits, e.digits) // no trailing zeros: a prefix is smaller
}

// multipleOf reports whether d / m is a whole number (m > 0).
func (d decimal) multipleOf(m decimal) bool {
	if d.isZero() {
		return true
	}
	if m.isZero() {
		return false
	}
	// d = a × 10^k × m' where a, m' are the digit strings as integers; d/m
	// is whole when m.digits divides d.digits × 10^(d.exp - m.exp). Below
	// zero that needs d.digits to end in 0, which it never does.
	k := d.exp - m.exp
	if k < 0 {
		return false
	}
	// 10^k adds k factors of 2 and of 5; m.digits has fewer than
	// 4 × len(m.digits) of each, so more of them change nothing.
	k = min(k, int64(4*len(m.digits)+4))
	a, ok1 := new(big.Int).SetString(d.digits, 10)
	b, ok2 := new(big.Int).SetString(m.digits, 10)
	if !ok1 || !ok2 {
		return false
	}
	a.Mul(a, new(big.Int).Exp(big.NewInt(10), big.NewInt(k), nil))
	return a.Mod(a, b).Sign() == 0
}

// plain writes d in plain decimal notation (300000001, 0.25), or in
// exponent notation when that would take more than a few dozen zeros.
func (d decimal) plain() string {
	if d.isZero() {
		return "0"
	}
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	n := int64(len(d.digits))
	switch {
	case d.exp >= 0 && d.exp <= 40:
		b.WriteString(d.digits)
		b.WriteString(strings.Repeat("0", int(d.exp)))
	case d.exp < 0 && -d.exp < n:
		b.WriteString(d.digits[:n+d.exp])
		b.WriteByte('.')
		b.WriteString(d.digits[n+d.exp:])
	case d.exp < 0 && -d.exp-n <= 40:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", int(-d.exp-n)))
		b.WriteString(d.digits)
	default:
		b.WriteString(d.digits[:1])
		if n > 1 {
			b.WriteByte('.')
			b.WriteString(d.digits[1:])
		}
		b.WriteByte('e')
		e := d.exp + n - 1
		if e > 0 {
			b.WriteByte('+')
		}
		b.WriteString(big.NewInt(e).String())
	}
	return b.String()
}

// compareNumbers compares two number literals.
func compareNumbers(a, b string) int {
	da, _ := parseDecimal(a)
	db, _ := parseDecimal(b)
	return da.cmp(db)
}
