package elicit

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
)

var (
	integerText = &lazy.Regexp{Pattern: `^[+-]?[0-9]+$`}
	numberText  = &lazy.Regexp{Pattern: `^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`}
)

// fromText types the text of an answer by fl's schema. It checks only that the
// text has the right type; check validates the value.
func (fl *field) fromText(s string) (json.RawMessage, error) {
	switch fl.kind {
	case kindInteger:
		t := strings.TrimSpace(s)
		if !integerText.Get().MatchString(t) {
			return nil, fl.typeError()
		}
		neg := t[0] == '-'
		t = strings.TrimLeft(strings.TrimLeft(t, "+-"), "0")
		switch {
		case t == "":
			t = "0"
		case neg:
			t = "-" + t
		}
		return json.RawMessage(t), nil
	case kindNumber:
		t := strings.TrimSpace(s)
		if !numberText.Get().MatchString(t) {
			return nil, fl.typeError()
		}
		return json.RawMessage(t), nil
	case kindBoolean:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "true", "yes", "1":
			return json.RawMessage("true"), nil
		case "false", "no", "0":
			return json.RawMessage("false"), nil
		}
		return nil, fl.typeError()
	case kindEnum:
		return marshal(fl.resolve(s, false)), nil
	case kindMulti:
		return fl.multi(s, false), nil
	}
	return marshal(s), nil
}

// typeError is the rule an answer of the wrong type breaks.
func (fl *field) typeError() error {
	if fl.kind == kindBoolean {
		return errors.New("must be true or false (or yes/no, 1/0)")
	}
	return errors.New("must be " + fl.kindName())
}

// fromInput types what the user typed at the prompt. It is fromText, plus
// choices by number and y/n for booleans.
func (fl *field) fromInput(s string) (json.RawMessage, error) {
	switch fl.kind {
	case kindBoolean:
		switch strings.ToLower(strings.TrimSpace(s)) {
		case "y":
			return json.RawMessage("true"), nil
		case "n":
			return json.RawMessage("false"), nil
		}
	case kindEnum:
		return marshal(fl.resolve(s, true)), nil
	case kindMulti:
		return fl.multi(s, true), nil
	}
	return fl.fromText(s)
}

// multi splits a multi-select answer on commas.
func (fl *field) multi(s string, byNumber bool) json.RawMessage {
	items := []string{}
	for it := range strings.SplitSeq(s, ",") {
		if it = strings.TrimSpace(it); it != "" {
			items = append(items, fl.resolve(it, byNumber))
		}
	}
	return marshal(items)
}

// resolve maps an answer to a choice value: the value itself, else a choice
// whose title matches (any case), else (byNumber) the choice with that number
// (from 1). Anything else is returned unchanged, for check to reject.
func (fl *field) resolve(s string, byNumber bool) string {
	t := strings.TrimSpace(s)
	if fl.hasChoice(s) {
		return s
	}
	if fl.hasChoice(t) {
		return t
	}
	for _, c := range fl.choices {
		if c.Title != "" && strings.EqualFold(c.Title, t) {
			return c.Value
		}
	}
	if byNumber {
		if n, err := strconv.Atoi(t); err == nil && n >= 1 && n <= len(fl.choices) {
			return fl.choices[n-1].Value
		}
	}
	return s
}

// coerceDefault returns the schema's default for fl in the type fl holds: a
// server that writes an integer default as "30" gets it typed like an answer.
func (fl *field) coerceDefault() json.RawMessage {
	if fl.def == nil || fl.def[0] != '"' || fl.kind == kindString || fl.kind == kindEnum {
		return fl.def
	}
	var s string
	if json.Unmarshal(fl.def, &s) != nil {
		return fl.def
	}
	if v, err := fl.fromText(s); err == nil {
		return v
	}
	return fl.def
}

// display shows a value as the user would type it: strings without quotes,
// arrays as a comma-separated list, anything else as JSON.
func display(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var ss []string
	if json.Unmarshal(v, &ss) == nil {
		return strings.Join(ss, ",")
	}
	return string(v)
}

func marshal(v any) json.RawMessage {
	b, err := rawjson.Encode(v)
	if err != nil {
		panic(err) // strings and string slices always encode
	}
	return b
}

// quote shows an answer in a message: quoted, clipped and safe to print.
func quote(s string) string { return strconv.Quote(safetext.Runes(s, 60)) }
