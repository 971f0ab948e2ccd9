// Package stringargs is the arguments whose values are strings (a
// prompt's, a completion's context): key=value words made a JSON object
// in the order given, and a prompt's arguments checked against those it
// declares before anything is sent.
package stringargs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// Member is one key and its raw JSON value, kept in the order given.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Parse turns key=value words into members whose values are strings
// (what names them in messages: prompt arguments, context values); key:=
// is refused.
func Parse(words []string, what string) ([]Member, error) {
	var out []Member
	seen := map[string]bool{}
	for _, w := range words {
		key, val, ok := strings.Cut(w, "=")
		if !ok || key == "" || key == ":" {
			return nil, fmt.Errorf("argument %q: want key=value", w)
		}
		if name, isJSON := strings.CutSuffix(key, ":"); isJSON {
			return nil, fmt.Errorf("argument %q: %s are strings; use %s=VALUE", w, what, name)
		}
		raw, _ := json.Marshal(val)
		if seen[key] {
			return nil, fmt.Errorf("argument %q given twice", key)
		}
		seen[key] = true
		out = append(out, Member{key, raw})
	}
	return out, nil
}

// Object writes members as a JSON object, in order.
func Object(ms []Member) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(rawjson.Marshal(m.Key))
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// CheckPrompt compares the arguments of prompt name with the ones it
// declares (prompts/list): a required one missing, or one it does not
// declare, is a *errkind.UsageError. A server that cannot list its
// prompts gets a warning, and a prompt it does not list no check: the
// server will say.
func CheckPrompt(ctx context.Context, client *mcp.Client, name string, ms []Member, warnf func(format string, args ...any)) error {
	_, err := CheckListed(ctx, client, name, ms, warnf)
	return err
}

// CheckListed is CheckPrompt, and returns the names of the prompts the
// server lists as well, when it walked them all: a prompt found stops
// the walk at its page, and names is then nil (as when the prompts could
// not be listed).
func CheckListed(ctx context.Context, client *mcp.Client, name string, ms []Member, warnf func(format string, args ...any)) (names []string, err error) {
	var items []json.RawMessage
	for p, err := range client.Seek(ctx, "prompts/list", "prompts") {
		if errors.As(err, new(*mcp.CallError)) {
			warnf("could not list the prompts (%v); arguments not checked", err)
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if raw := Find(p.Items, name); raw != nil {
			_, err := CheckAgainst([]json.RawMessage{raw}, name, ms)
			return nil, err
		}
		items = append(items, p.Items...)
	}
	return CheckAgainst(items, name, ms)
}

// ListPrompts are the prompts the server lists, every page, each as
// sent: a kept list answers when it may (mcp.Client.Seek).
func ListPrompts(ctx context.Context, client *mcp.Client) ([]json.RawMessage, error) {
	return mcp.Items(client.Seek(ctx, "prompts/list", "prompts"), nil)
}

// Find is the prompt of items called name, or nil.
func Find(items []json.RawMessage, name string) json.RawMessage {
	for _, it := range items {
		var p struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(it, &p) == nil && p.Name == name {
			return it
		}
	}
	return nil
}

// CheckAgainst is CheckListed over the prompts listed (items).
func CheckAgainst(items []json.RawMessage, name string, ms []Member) (names []string, err error) {
	names = make([]string, 0, len(items))
	for _, it := range items {
		names = append(names, rawjson.Key(it, "name"))
	}
	raw := Find(items, name)
	if raw == nil {
		return names, nil // not listed: the server will say
	}
	var p struct {
		Arguments []struct {
			Name     string `json:"name"`
			Required bool   `json:"required"`
		} `json:"arguments"`
	}
	if err := mcp.DecodeResult("prompts/list", raw, &p); err != nil {
		return names, err
	}
	var declared, missing []string
	for _, arg := range p.Arguments {
		declared = append(declared, arg.Name)
		if arg.Required && !slices.ContainsFunc(ms, func(m Member) bool { return m.Key == arg.Name }) {
			missing = append(missing, arg.Name)
		}
	}
	if len(missing) > 0 {
		return names, errkind.Usagef("prompt %q needs %s; nothing sent", name, strings.Join(missing, ", "))
	}
	for _, m := range ms {
		if !slices.Contains(declared, m.Key) {
			return names, errkind.Usagef("prompt %q has no argument %q (it takes: %s); nothing sent (--no-validate sends anyway)", name, m.Key, strings.Join(declared, ", "))
		}
	}
	return names, nil
}
