package toolargs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// Typing a key=value text by its schema. The rules, in order:
//
//  1. No type information: the text is a string.
//  2. An enum or const value matches: a string value equal to the text, or
//     another value whose JSON is the text.
//  3. "null" becomes null when the schema allows null.
//  4. A schema that allows only strings keeps the text as is ("007" stays "007").
//  5. Otherwise the allowed types are tried in this order: boolean (true,
//     false), integer (digits, leading zeros dropped, any size), number (a JSON
//     number, or a decimal Go can parse), object ({...} JSON), array ([...]
//     JSON), and string last.
//  6. Nothing fits: an error naming the allowed types.

var integerText = &lazy.Regexp{Pattern: `^[+-]?[0-9]+$`}

func coerce(n node, text string) (json.RawMessage, error) {
	if !n.valid() || !n.typed() {
		return str(text), nil
	}
	for _, v := range n.enumValues() {
		if s, ok := v.(string); ok {
			if s == text {
				return str(text), nil
			}
			continue
		}
		if enc, err := json.Marshal(v); err == nil && string(enc) == text {
			return enc, nil
		}
	}
	if text == "null" && n.allows("null") {
		return json.RawMessage("null"), nil
	}
	if n.allows("string") && !slices.ContainsFunc([]string{"boolean", "integer", "number", "object", "array"}, n.allows) {
		return str(text), nil
	}
	if n.allows("boolean") && (text == "true" || text == "false") {
		return json.RawMessage(text), nil
	}
	if n.allows("integer") && integerText.Get().MatchString(text) {
		return canonicalInteger(text), nil
	}
	if n.allows("integer") && !n.allows("number") {
		if v, ok := number(text); ok && wholeNumber(v) {
			return v, nil // 1.0 and 1e3 are integers to JSON Schema
		}
	}
	if n.allows("number") {
		if v, ok := number(text); ok {
			return v, nil
		}
	}
	trimmed := strings.TrimSpace(text)
	if (n.allows("object") && strings.HasPrefix(trimmed, "{") || n.allows("array") && strings.HasPrefix(trimmed, "[")) &&
		json.Valid([]byte(trimmed)) {
		return compact(trimmed), nil
	}
	if n.allows("string") {
		return str(text), nil
	}
	var want []string
	for _, t := range []string{"null", "boolean", "integer", "number", "object", "array"} {
		if n.allows(t) && !(t == "integer" && n.allows("number") && !explicitInteger(n)) {
			want = append(want, t)
		}
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("%q matches none of the allowed values", text)
	}
	for i, t := range want {
		want[i] = typeNoun[t]
	}
	return nil, fmt.Errorf("%q is not %s", text, strings.Join(want, " or "))
}

// typeNoun names a JSON type in a sentence: "two" is not a number.
var typeNoun = map[string]string{"null": "null", "boolean": "a boolean", "integer": "an integer",
	"number": "a number", "object": "an object", "array": "an array"}

func explicitInteger(n node) bool {
	return slices.ContainsFunc(n.alternatives(), func(alt node) bool {
		return slices.Contains(alt.types(), "integer")
	})
}

func str(s string) json.RawMessage { return rawjson.AppendString(nil, s) }

// canonicalInteger drops a plus sign and leading zeros, keeping any size.
func canonicalInteger(text string) json.RawMessage {
	neg := strings.HasPrefix(text, "-")
	digits := strings.TrimLeft(strings.TrimLeft(text, "+-"), "0")
	if digits == "" {
		return json.RawMessage("0")
	}
	if neg {
		digits = "-" + digits
	}
	return json.RawMessage(digits)
}

// number accepts a JSON number as written, or a decimal such as "+1", ".5"
// or "1." in its shortest form.
func number(text string) (json.RawMessage, bool) {
	var n json.Number
	if err := json.Unmarshal([]byte(text), &n); err == nil && !strings.ContainsAny(text, " \t\n\"") {
		return json.RawMessage(text), true
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || strings.ContainsAny(strings.ToLower(text), "inx_") { // no Inf, NaN, hex or 1_000
		return nil, false
	}
	return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), true
}

// wholeNumber reports a JSON number with no fractional part.
func wholeNumber(v json.RawMessage) bool {
	f, err := strconv.ParseFloat(string(v), 64)
	return err == nil && f == math.Trunc(f)
}

func compact(s string) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(s)); err != nil {
		return json.RawMessage(s)
	}
	return b.Bytes()
}
