package elicit

import (
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// check reports the rule of fl's schema that v breaks, or "" when v is valid.
// The rule reads after the field name: `field "age" must be at most 120`.
func (fl *field) check(v json.RawMessage) string {
	switch fl.kind {
	case kindNumber, kindInteger:
		return fl.checkNumber(v)
	case kindBoolean:
		if s := string(v); s != "true" && s != "false" {
			return "must be true or false"
		}
		return ""
	case kindMulti:
		return fl.checkMulti(v)
	}
	var s string
	if !isString(v) || json.Unmarshal(v, &s) != nil {
		return "must be a string"
	}
	if fl.kind == kindEnum {
		if !fl.hasChoice(s) {
			return "must be one of " + fl.choiceList()
		}
		return ""
	}
	return fl.checkString(s)
}

func (fl *field) checkString(s string) string {
	n := utf8.RuneCountInString(s)
	if fl.minLength >= 0 && n < fl.minLength {
		return fmt.Sprintf("must be at least %d characters long", fl.minLength)
	}
	if fl.maxLength >= 0 && n > fl.maxLength {
		return fmt.Sprintf("must be at most %d characters long", fl.maxLength)
	}
	if rule := checkFormat(fl.format, s); rule != "" {
		return rule
	}
	if fl.re != nil && !fl.re.MatchString(s) {
		return fmt.Sprintf("must match the pattern %s", quote(fl.pattern))
	}
	return ""
}

// checkFormat checks the formats of StringSchema loosely; unknown formats pass.
func checkFormat(format, s string) string {
	switch format {
	case "email":
		local, domain, ok := strings.Cut(s, "@")
		dot := strings.LastIndexByte(domain, '.')
		if !ok || local == "" || strings.Contains(domain, "@") || dot <= 0 || dot == len(domain)-1 ||
			strings.ContainsAny(s, " \t\r\n") {
			return "must be an email address (name@example.com)"
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return "must be a URI with a scheme (https://...)"
		}
	case "date":
		if _, err := time.Parse("2006-01-02", s); err != nil {
			return "must be a date (YYYY-MM-DD)"
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return "must be an RFC 3339 date-time (2006-01-02T15:04:05Z)"
		}
	}
	return ""
}

func (fl *field) checkNumber(v json.RawMessage) string {
	x, ok := number(string(v))
	if !ok {
		return "must be " + fl.kindName()
	}
	if fl.kind == kindInteger && !x.IsInt() {
		return "must be an integer"
	}
	if m, ok := number(fl.minimum); ok && x.Cmp(m) < 0 {
		return "must be at least " + fl.minimum
	}
	if m, ok := number(fl.maximum); ok && x.Cmp(m) > 0 {
		return "must be at most " + fl.maximum
	}
	return ""
}

// number parses JSON number text exactly enough to compare: 512 bits of
// mantissa keep integers of 150 digits exact.
func number(s string) (*big.Float, bool) {
	if !numberText.Get().MatchString(s) {
		return nil, false
	}
	x, _, err := big.ParseFloat(s, 10, 512, big.ToNearestEven)
	return x, err == nil
}

func (fl *field) checkMulti(v json.RawMessage) string {
	var items []json.RawMessage
	if len(v) == 0 || v[0] != '[' || json.Unmarshal(v, &items) != nil {
		return "must be a list of " + fl.choiceList()
	}
	for _, it := range items {
		var s string
		if !isString(it) || json.Unmarshal(it, &s) != nil || !fl.hasChoice(s) {
			return "must be a list of " + fl.choiceList()
		}
	}
	if fl.minItems >= 0 && len(items) < fl.minItems {
		return "must have at least " + nChoices(fl.minItems)
	}
	if fl.maxItems >= 0 && len(items) > fl.maxItems {
		return "must have at most " + nChoices(fl.maxItems)
	}
	return ""
}

// choiceList is "a, b or c" with each value quoted.
func (fl *field) choiceList() string {
	var qs []string
	for _, c := range fl.choices {
		qs = append(qs, quote(c.Value))
	}
	if len(qs) <= 1 {
		return strings.Join(qs, "")
	}
	return strings.Join(qs[:len(qs)-1], ", ") + " or " + qs[len(qs)-1]
}

func isString(v json.RawMessage) bool { return len(v) > 0 && v[0] == '"' }

func nChoices(n int) string {
	if n == 1 {
		return "1 choice"
	}
	return fmt.Sprintf("%d choices", n)
}
