package elicit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/safetext"
)

// source says where a value came from, for the report of the answer.
type source int

const (
	fromAnswer  source = iota + 1 // Answers or AnswerJSON
	fromDefault                   // the schema's default
	fromUser                      // typed at the prompt
)

// values are the form's values so far, by field name.
type values map[string]value

type value struct {
	v   json.RawMessage
	src source
}

// problem is a field whose value breaks a rule of its schema.
type problem struct {
	field, value, rule string
}

func (o *Options) handleForm(ctx context.Context, f *form) (json.RawMessage, error) {
	o.notef("%s asks: %s", o.asker(), safetext.Prose(f.message))
	for _, fl := range f.fields {
		if fl.patternErr != nil {
			o.warnf("field %q: cannot check the pattern %s (%v)", fl.name, quote(fl.pattern), fl.patternErr)
		}
	}
	vals, probs := o.collect(f)
	answered := len(vals)+len(probs) > 0
	canAccept := o.Policy == PolicyAccept || answered
	if canAccept {
		o.fillDefaults(f, vals, probs)
	}
	for _, fl := range f.fields {
		if v, ok := vals[fl.name]; ok {
			if rule := fl.check(v.v); rule != "" {
				probs = append(probs, problem{fl.name, display(v.v), rule})
				delete(vals, fl.name)
			}
		}
	}
	slices.SortStableFunc(probs, func(a, b problem) int { return f.index(a.field) - f.index(b.field) })
	missing := missingRequired(f, vals)
	if canAccept && len(probs) == 0 && len(missing) == 0 {
		return o.accept(f, vals), nil
	}
	if o.Policy == PolicyPrompt && o.TTY != nil {
		for _, p := range probs {
			o.notef("field %q %s (got %s); asking on the terminal", p.field, p.rule, quote(p.value))
		}
		return o.promptForm(ctx, f, vals)
	}
	if len(probs) > 0 {
		for _, p := range probs {
			o.notef("field %q %s (got %s); not sending invalid data", p.field, p.rule, quote(p.value))
		}
		return o.answered(actDecline, "an answer is invalid"), nil
	}
	action := actDecline
	if o.Policy == PolicyCancel {
		action = actCancel
	}
	var why string
	switch {
	case canAccept:
		why = fmt.Sprintf("required %s no answer and no default%s",
			plural(missing, "field %s has", "fields %s have"), o.advice(Unanswered{Missing: missing}))
	case o.Policy == PolicyPrompt:
		why = "no terminal to ask on and no answers given"
	default:
		why = fmt.Sprintf("policy %q and no answers given%s", o.Policy, o.advice(Unanswered{}))
	}
	return o.answered(action, why), nil
}

// collect types the answers meant for f's fields. Answers for other keys are
// ignored with a warning; answers of the wrong type are problems.
func (o *Options) collect(f *form) (values, []problem) {
	vals := values{}
	var probs []problem
	for _, k := range slices.Sorted(maps.Keys(o.AnswerJSON)) {
		if _, text := o.Answers[k]; text {
			continue
		}
		if f.field(k) == nil {
			o.warnf("ignoring the answer for %q: the form has no such field", safetext.Prose(k))
			continue
		}
		var b bytes.Buffer
		if err := json.Compact(&b, o.AnswerJSON[k]); err != nil {
			probs = append(probs, problem{k, string(o.AnswerJSON[k]), "must be given as JSON"})
			continue
		}
		vals[k] = value{b.Bytes(), fromAnswer}
	}
	for _, k := range slices.Sorted(maps.Keys(o.Answers)) {
		fl := f.field(k)
		if fl == nil {
			o.warnf("ignoring the answer for %q: the form has no such field", safetext.Prose(k))
			continue
		}
		v, err := fl.fromText(o.Answers[k])
		if err != nil {
			probs = append(probs, problem{k, o.Answers[k], err.Error()})
			continue
		}
		vals[k] = value{v, fromAnswer}
	}
	return vals, probs
}

// fillDefaults gives each field without a value its schema default, unless the
// default breaks the schema (a warning says so). A field whose answer was bad
// stays empty: the default must not hide the mistake.
func (o *Options) fillDefaults(f *form, vals values, bad []problem) {
	for _, fl := range f.fields {
		if _, ok := vals[fl.name]; ok || slices.ContainsFunc(bad, func(p problem) bool { return p.field == fl.name }) {
			continue
		}
		d := fl.coerceDefault()
		if d == nil {
			continue
		}
		if rule := fl.check(d); rule != "" {
			o.warnf("field %q: the server's default %s %s; not using it", fl.name, quote(string(d)), rule)
			continue
		}
		vals[fl.name] = value{d, fromDefault}
	}
}

func missingRequired(f *form, vals values) []string {
	var out []string
	for _, fl := range f.fields {
		if _, ok := vals[fl.name]; fl.required && !ok {
			out = append(out, fl.name)
		}
	}
	return out
}

// accept reports and returns the accept result, content in schema order.
func (o *Options) accept(f *form, vals values) json.RawMessage {
	var defaults []string
	for _, fl := range f.fields {
		if v, ok := vals[fl.name]; ok && v.src == fromDefault {
			defaults = append(defaults, fl.name)
		}
	}
	why := ""
	if len(defaults) > 0 {
		why = "filled by default: " + strings.Join(defaults, ", ")
	}
	o.answered(actAccept, why)
	return json.RawMessage(`{"action":"accept","content":` + string(content(f, vals)) + `}`)
}

// content is the values as a JSON object in the schema's property order.
func content(f *form, vals values) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, fl := range f.fields {
		v, ok := vals[fl.name]
		if !ok {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(marshal(fl.name))
		b.WriteByte(':')
		b.Write(v.v)
	}
	b.WriteByte('}')
	return b.Bytes()
}

func (fl *field) kindName() string {
	return [...]string{kindString: "a string", kindNumber: "a number", kindInteger: "an integer", kindBoolean: "a boolean",
		kindEnum: "a string", kindMulti: "a comma-separated list"}[fl.kind]
}

// plural picks a format by len(names) and fills in the quoted names.
func plural(names []string, one, many string) string {
	qs := make([]string, len(names))
	for i, n := range names {
		qs[i] = fmt.Sprintf("%q", n)
	}
	if len(names) == 1 {
		return fmt.Sprintf(one, qs[0])
	}
	return fmt.Sprintf(many, strings.Join(qs, ", "))
}
