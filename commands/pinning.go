package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/uritemplate"
	"github.com/mcpv/mcpv/mcp"
)

// pinning reports whether the session's server is held to a pin (--pin,
// MCPV_PIN, its config entry's pin): then a command checks each item it
// uses against the pin before it sends anything.
func (s *session) pinning() bool { return s.settings.Pin != "" }

// pinned is the entry of the pin file that the session's server is held
// to, read once per session.
func (s *session) pinned(client *mcp.Client) (*pin.Server, error) {
	s.pinMu.Lock()
	defer s.pinMu.Unlock()
	if s.pinEntry != nil || s.pinErr != nil {
		return s.pinEntry, s.pinErr
	}
	f, err := readPinFile(s.settings.Pin, s.settings.PinTree, s.settings.PinLabel)
	if err == nil {
		var info struct {
			ServerInfo struct {
				Name string `json:"name"`
			} `json:"serverInfo"`
		}
		json.Unmarshal(client.InitializeResult(), &info)
		s.pinEntry, err = f.Entry(s.settings.PinEntry, info.ServerInfo.Name)
		var ne *pin.NoEntryError
		if errors.As(err, &ne) {
			ne.File = s.settings.PinLabel
		}
	}
	s.pinErr = err
	return s.pinEntry, err
}

// readPinFile reads and parses a pin file, inside tree when tree is not
// "" (a project config file's pin).
func readPinFile(path, tree, label string) (*pin.File, error) {
	var data []byte
	var err error
	if tree != "" {
		if path, err = (safefile.Tree{Dir: tree}).Path(path); err == nil {
			data, err = safefile.ReadOwn(path)
		}
	} else {
		data, err = safefile.ReadOwn(path)
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, usageErrorf("pin file %s does not exist; pin the server first: mcpv pin %s", label, label)
	}
	return parsePin(data, err, label)
}

// checkPin refuses the item of kind called key, listed now as raw (nil:
// not listed), when it moved from the pin the session's server is held
// to; without a pin, everything goes.
func (s *session) checkPin(client *mcp.Client, kind pin.Kind, key string, raw []byte) error {
	if !s.pinning() {
		return nil
	}
	p, err := s.pinned(client)
	if err != nil {
		return err
	}
	if m := p.Check(kind, key, s.masked(raw)); m != nil {
		return &pinRefusal{pin.Refusal{File: s.settings.PinLabel, Server: p.Name, Move: *m}, s.approveHint()}
	}
	return nil
}

// approveHint is the command that approves the moves of the session's
// server, after a review.
func (s *session) approveHint() string {
	return s.approveCommand() + " (after reviewing the change)"
}

// approveCommand is the command that approves the moves of the session's
// server.
func (s *session) approveCommand() string {
	cmd := "mcpv pin --approve " + shellwords.Quote(s.settings.PinLabel)
	if s.settings.PinEntry != "" {
		cmd += " --server " + shellwords.Quote(s.settings.PinEntry)
	}
	return cmd
}

// pinRefusal is a pin.Refusal with the command that approves the move.
type pinRefusal struct {
	pin.Refusal
	approve string
}

func (e *pinRefusal) Unwrap() error { return &e.Refusal }

// Details are the refusal's diff, then how to approve it.
func (e *pinRefusal) Details() []string {
	return append(e.Refusal.Details(), fmt.Sprintf("to approve it: %s", safetext.Line(e.approve)))
}

// pinResource holds the resource at uri to the session's pin: the
// resource the server lists at uri, else the template it lists that uri
// is an expansion of, must be as pinned; one that is neither is not
// pinned. A refusal on what was kept of the server between runs is
// checked once more against what it lists now.
func (s *session) pinResource(ctx context.Context, client *mcp.Client, uri string) error {
	if !s.pinning() {
		return nil
	}
	err := s.pinResourceOnce(ctx, client, uri)
	if err != nil && s.keptServed("resources") {
		s.forget("resources")
		err = s.pinResourceOnce(ctx, client, uri)
	}
	return err
}

func (s *session) pinResourceOnce(ctx context.Context, client *mcp.Client, uri string) error {
	raw, err := findItem(ctx, client, "resources/list", "resources", func(raw json.RawMessage) bool { return memberString(raw, "uri") == uri })
	if err != nil {
		return fmt.Errorf("could not list the resources to hold %q to its pin: %w", uri, err)
	}
	if raw != nil {
		return s.checkPin(client, pin.Resource, uri, raw)
	}
	if client.HasCapability("resources") {
		templates, err := listItems(ctx, client, "resources/templates/list", "resourceTemplates")
		var ce *mcp.CallError
		if err != nil && !(errors.As(err, &ce) && ce.Err.Code == mcp.CodeMethodNotFound) {
			return fmt.Errorf("could not list the resource templates to hold %q to its pin: %w", uri, err)
		}
		for _, raw := range templates {
			text := memberString(raw, "uriTemplate")
			if t, err := uritemplate.Parse(text); err == nil {
				if _, ok := t.Match(uri); ok {
					return s.checkPin(client, pin.Template, text, raw)
				}
			}
		}
	}
	return s.checkPin(client, pin.Resource, uri, nil)
}

// findItem walks a list for the first item match accepts, and stops at
// its page; nil when the list has none. A kept list answers when it may.
func findItem(ctx context.Context, client *mcp.Client, method, key string, match func(json.RawMessage) bool) (json.RawMessage, error) {
	for p, err := range client.Walk(mcp.WithLookup(ctx), method, key, 0) {
		if err != nil {
			return nil, err
		}
		for _, raw := range p.Items {
			if match(raw) {
				return raw, nil
			}
		}
	}
	return nil, nil
}

// listItems are the items of a list, every page merged, each as sent; a
// kept list answers when it may.
func listItems(ctx context.Context, client *mcp.Client, method, key string) ([]json.RawMessage, error) {
	var items []json.RawMessage
	for p, err := range client.Walk(mcp.WithLookup(ctx), method, key, 0) {
		if err != nil {
			return nil, err
		}
		items = append(items, p.Items...)
	}
	return items, nil
}

// memberString is a string member of a JSON object, or "".
func memberString(raw json.RawMessage, key string) string {
	var s string
	json.Unmarshal(rawjson.Member(raw, key), &s)
	return s
}

// pinRequest holds a raw request to the session's pin as the command of
// its method would be: a tool's call, a prompt's get, a resource's read
// or subscription. Its params must name the item once, exactly: a name
// given twice, or in another case, would be checked one way and run
// another.
func (s *session) pinRequest(ctx context.Context, client *mcp.Client, method string, params json.RawMessage) error {
	if !s.pinning() {
		return nil
	}
	key := map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri", "resources/subscribe": "uri"}[method]
	if key == "" {
		return nil
	}
	value, err := exactStringMember(params, key)
	if err != nil {
		return usageErrorf("params: %v; with --pin, a %s request names its item once, as a string", err, method)
	}
	switch method {
	case "tools/call":
		_, err = s.findPinnedTool(ctx, client, value)
		var nl *mcp.ToolNotListedError
		if errors.As(err, &nl) {
			err = nil // pinned and listed, or refused above; the server says the rest
		}
		return err
	case "prompts/get":
		_, err = (&getPromptCmd{Name: value, NoValidate: true}).pinned(ctx, s, client)
		return err
	}
	return s.pinResource(ctx, client, value)
}

// exactStringMember is the string member key of params, which must hold
// it once and in no other case.
func exactStringMember(params json.RawMessage, key string) (string, error) {
	var value string
	seen := 0
	err := rawjson.ForEachMember(params, func(k string, v []byte) error {
		if strings.EqualFold(k, key) {
			seen++
			if k != key || json.Unmarshal(v, &value) != nil {
				return fmt.Errorf("%q is not a string member %q", k, key)
			}
		}
		return nil
	})
	switch {
	case err != nil:
		return "", err
	case seen != 1:
		return "", fmt.Errorf("%d members named %q", seen, key)
	}
	return value, nil
}

// masked is a message with the secrets the run knows masked, as what
// mcpv writes of the server's surface (a pin, an audit) holds them: a
// server that echoes the user's key in a description puts no key in a pin
// file, and is held to that pin alike.
func (s *session) masked(raw []byte) []byte {
	if s.mask == nil || raw == nil {
		return raw
	}
	return s.mask(raw)
}
