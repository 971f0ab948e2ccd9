package mock

// Whether an entry answers a request: its arguments (a JSON subset of the
// request's) and its jq expression.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// matches reports whether the entry answers a request whose jq input is
// input (the arguments, decoded; a template's variables; a completion's
// params). Its jq expression, which the file's author wrote, runs within
// jq's bounds (and ctx): one that goes past them is an error, not a
// mismatch; one that fails on this input does not match.
func (e *Entry) matches(ctx context.Context, input any) (bool, error) {
	if e.Arguments != nil {
		if want := e.wanted(); want == nil || !subset(want, input) {
			return false, nil
		}
	}
	if e.code == nil {
		return true, nil
	}
	some, all := false, true
	var err error
	for v, rerr := range e.code.RunWithin(ctx, input, jq.Default) {
		if rerr != nil {
			err = rerr
			break
		}
		if some, all = true, v != nil && v != false; !all {
			break
		}
	}
	if errors.As(err, new(*jq.LimitError)) || ctx.Err() != nil {
		return false, fmt.Errorf("%s: %w", e.where, err)
	}
	return err == nil && some && all, nil
}

// decode is JSON as the entries' jq and matching see it: numbers exact.
func decode(raw json.RawMessage) (any, error) {
	if raw == nil {
		return map[string]any{}, nil
	}
	return jq.DecodeJSON(raw)
}

// subset reports whether got holds want: every member of an object in
// want is in got and holds its value; arrays match element by element;
// other values are equal (numbers by value).
func subset(want, got any) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, ok := g[k]
			if !ok || !subset(wv, gv) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !subset(w[i], g[i]) {
				return false
			}
		}
		return true
	case json.Number:
		return sameNumber(w, got)
	case float64:
		return sameNumber(json.Number(fmt.Sprint(w)), got)
	}
	return want == got
}

// sameNumber reports whether got is the number w, however either is
// written (1, 1.0, 1e0).
func sameNumber(w json.Number, got any) bool {
	var g json.Number
	switch v := got.(type) {
	case json.Number:
		g = v
	case float64:
		g = json.Number(fmt.Sprint(v))
	default:
		return false
	}
	if w == g {
		return true
	}
	a, err1 := w.Float64()
	b, err2 := g.Float64()
	return err1 == nil && err2 == nil && a == b
}

// subsetRaw is subset of a JSON text in a value.
func subsetRaw(want json.RawMessage, got any) bool {
	w, err := decode(want)
	return err == nil && subset(w, got)
}

// exactly reports whether want (decoded arguments) is got.
func exactly(want, got any) bool {
	return want != nil && subset(want, got) && subset(got, want)
}

// agreement is how many of want's top-level members got holds: how close
// an entry comes to a call it does not answer.
func agreement(want, got any) int {
	w, _ := want.(map[string]any)
	g, _ := got.(map[string]any)
	n := 0
	for k, wv := range w {
		if gv, ok := g[k]; ok && subset(wv, gv) {
			n++
		}
	}
	return n
}

func list(key string, items []json.RawMessage) json.RawMessage {
	if items == nil {
		items = []json.RawMessage{}
	}
	return rawjson.Marshal(map[string]any{key: items})
}

func names(items []json.RawMessage) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = rawjson.Key(it, "name")
	}
	return out
}

func compact(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return string(rawjson.Marshal(v))
}
