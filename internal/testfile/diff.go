package testfile

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strconv"

	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/lazy"
)

// jsonDiff compares two JSON values (numbers by value, objects without
// regard to key order) and returns where they first differ, as a jq path.
func jsonDiff(want, got json.RawMessage) (string, bool) {
	a, err1 := jq.DecodeJSON(want)
	b, err2 := jq.DecodeJSON(got)
	if err1 != nil || err2 != nil {
		return "", bytes.Equal(want, got)
	}
	return diffValues(a, b, "")
}

func diffValues(a, b any, path string) (string, bool) {
	at := cmp.Or(path, ".")
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return at, false
		}
		keys := slices.AppendSeq(slices.Collect(maps.Keys(x)), maps.Keys(y))
		slices.Sort(keys)
		for _, k := range slices.Compact(keys) {
			xv, inX := x[k]
			yv, inY := y[k]
			sub := path + jqKey(k)
			if inX != inY {
				return sub, false
			}
			if p, ok := diffValues(xv, yv, sub); !ok {
				return p, false
			}
		}
		return "", true
	case []any:
		y, ok := b.([]any)
		if !ok {
			return at, false
		}
		index := func(i int) string {
			if path == "" {
				return fmt.Sprintf(".[%d]", i)
			}
			return fmt.Sprintf("%s[%d]", path, i)
		}
		for i := range min(len(x), len(y)) {
			if p, ok := diffValues(x[i], y[i], index(i)); !ok {
				return p, false
			}
		}
		if len(x) != len(y) {
			return index(min(len(x), len(y))), false
		}
		return "", true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return at, false
		}
		rx, okx := new(big.Rat).SetString(string(x))
		ry, oky := new(big.Rat).SetString(string(y))
		if okx && oky && rx.Cmp(ry) == 0 || x == y {
			return "", true
		}
		return at, false
	}
	if a != b {
		return at, false
	}
	return "", true
}

// identifier is a jq variable's name without its $, and a key .key names.
var identifier = &lazy.Regexp{Pattern: `^[A-Za-z_][A-Za-z0-9_]*$`}

// jqKey is .key, or ."key" for a key that is not an identifier.
func jqKey(k string) string {
	if identifier.Get().MatchString(k) {
		return "." + k
	}
	return "." + strconv.Quote(k)
}
