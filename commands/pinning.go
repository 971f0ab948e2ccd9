package commands

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcpv/mcpv/internal/apps"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/uritemplate"
	"github.com/mcpv/mcpv/mcp"
)

// pinning reports whether the session's server is held to a pin (--pin,
// MCPV_PIN, its config entry's pin): then a command checks each item it
// uses against the pin before it sends anything.
func (s *session) pinning() bool { return s.settings.Pin != "" }

// pinned is the entry of the pin file that the session's server is held
// to, read once per session; nil when it is held to none. An entry found under the server's other
// name (its serverInfo's, or its config name) is said once; so are
// instructions that are not those pinned, which refuse every item under
// --pin-strict.
func (s *session) pinned(client *mcp.Client) (*pin.Server, error) {
	if !s.pinning() {
		return nil, nil
	}
	s.pinMu.Lock()
	defer s.pinMu.Unlock()
	if s.pinEntry != nil || s.pinErr != nil {
		return s.pinEntry, s.pinErr
	}
	f, err := readPinFile(s.settings.Pin, s.settings.PinTree, s.settings.PinLabel)
	if err == nil {
		var note string
		s.pinEntry, note, err = f.Entry(s.settings.PinEntry, client.InitializeResult().ServerName())
		s.pinEntry = s.pinEntry.Masked(s.masked) // as what it is compared with
		if ne, ok := errors.AsType[*pin.NoEntryError](err); ok {
			ne.File = s.settings.PinLabel
		}
		if note != "" {
			s.hooks.Log.Info(s.settings.PinLabel + ": " + note)
		}
	}
	if err == nil {
		err = s.pinInstructions(client, s.pinEntry)
	}
	s.pinErr = err
	return s.pinEntry, err
}

// pinInstructions says, once, that the server's instructions are not
// those pinned; under --pin-strict they refuse the session's every item.
func (s *session) pinInstructions(client *mcp.Client, p *pin.Server) error {
	live := client.InitializeResult().Instructions
	if live != nil {
		text := string(s.masked([]byte(*live)))
		live = &text
	}
	m := p.CheckInstructions(live)
	if m == nil {
		return nil
	}
	if s.settings.PinStrict {
		return s.refused(p, m)
	}
	s.hooks.Log.Warn(fmt.Sprintf("the server's instructions moved since they were pinned (%s, server %q); the model reads them as they are now: %s, or --pin-strict refuses every item",
		s.settings.PinLabel, p.Name, s.approveCommand()))
	return nil
}

// readPinFile reads and parses a pin file, inside tree when tree is not
// "" (a project config file's pin).
func readPinFile(path, tree, label string) (*pin.File, error) {
	var err error
	if tree != "" {
		path, err = (safefile.Tree{Dir: tree}).Path(path)
	}
	var data []byte
	if err == nil {
		data, err = safefile.ReadOwn(path)
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, usageErrorf("pin file %s does not exist; pin the server first: mcpv pin %s", label, label)
	}
	return parsePin(data, err, label)
}

// checkPinListed refuses the item of kind called key, which the server
// lists n times (every page's; 0: not listed), first the first of them,
// when it moved from the pin the session's server is held to; more than
// one is refused as listed twice. Without a pin, everything goes.
func (s *session) checkPinListed(client *mcp.Client, kind pin.Kind, key string, first []byte, n int) error {
	p, err := s.pinned(client)
	if p == nil || err != nil {
		return err
	}
	return s.refused(p, p.CheckListed(kind, key, s.masked(first), n))
}

// refused is the refusal of a move, nil for none.
func (s *session) refused(p *pin.Server, m *pin.Move) error {
	if m == nil {
		return nil
	}
	return &pinRefusal{pin.Refusal{File: s.settings.PinLabel, Server: p.Name, Move: *m}, s.approveCommand() + " (after reviewing the change)"}
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
	_, err := afresh(s, "resources", nil, func() (any, error) { return nil, s.pinResourceOnce(ctx, client, uri) })
	return err
}

func (s *session) pinResourceOnce(ctx context.Context, client *mcp.Client, uri string) error {
	listed, err := mcp.Items(client.Seek(ctx, "resources/list", "resources"), func(raw json.RawMessage) bool { return rawjson.Key(raw, "uri") == uri })
	if err != nil {
		return fmt.Errorf("could not list the resources to hold %q to its pin: %w", uri, err)
	}
	if len(listed) > 0 {
		return s.checkPinListed(client, pin.Resource, uri, listed[0], len(listed))
	}
	if client.HasCapability("resources") {
		templates, err := mcp.Items(client.Seek(ctx, "resources/templates/list", "resourceTemplates"), nil)
		if ce, ok := errors.AsType[*mcp.CallError](err); err != nil && !(ok && ce.Err.Code == mcp.CodeMethodNotFound) {
			return fmt.Errorf("could not list the resource templates to hold %q to its pin: %w", uri, err)
		}
		if first, n := listedAs(templates, "uriTemplate", uri); n > 0 {
			return s.checkPinListed(client, pin.Template, uri, first, n) // the template itself, as a completion names it
		}
		for _, raw := range templates {
			text := rawjson.Key(raw, "uriTemplate")
			if t, err := uritemplate.Parse(text); err == nil {
				if _, ok := t.Match(uri); ok {
					first, n := listedAs(templates, "uriTemplate", text)
					return s.checkPinListed(client, pin.Template, text, first, n)
				}
			}
		}
	}
	return s.checkPinListed(client, pin.Resource, uri, nil, 0)
}

// pinRequest holds a raw request to the session's pin as the command of
// its method would be: a tool's call, a prompt's get, a resource's read
// or subscription, a completion of a prompt's or a template's argument.
// Its params must name the item once, exactly: a name given twice, or in
// another case, would be checked one way and run another.
func (s *session) pinRequest(ctx context.Context, client *mcp.Client, method string, params json.RawMessage) error {
	if !s.pinning() {
		return nil
	}
	key := map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri", "resources/subscribe": "uri", "completion/complete": "ref"}[method]
	switch key {
	case "":
		return nil
	case "ref":
		return s.pinCompletion(ctx, client, params)
	}
	value, err := exactStringMember(params, key)
	if err != nil {
		return usageErrorf("params: %v; with --pin, a %s request names its item once, as a string", err, method)
	}
	switch method {
	case "tools/call":
		_, err = s.findPinnedTool(ctx, client, value)
		if isA[*mcp.ToolNotListedError](err) {
			err = nil // pinned and listed, or refused above; the server says the rest
		}
		return err
	case "prompts/get":
		_, err = (&getPromptCmd{Name: value, NoValidate: true}).pinned(ctx, s, client)
		return err
	}
	return s.pinResource(ctx, client, value)
}

// pinCompletion holds a completion/complete request to the session's
// pin, its params read as serve reads them: the prompt its ref names, or
// the template (else the resource, or the template it is an expansion
// of).
func (s *session) pinCompletion(ctx context.Context, client *mcp.Client, params json.RawMessage) error {
	t, rerr := serve.ReadTarget(params)
	if rerr != nil {
		return usageErrorf("params: %s; with --pin, a completion/complete request names its item once, as a string", rerr.Message)
	}
	switch t.RefType {
	case "ref/prompt":
		_, err := (&getPromptCmd{Name: t.RefName, NoValidate: true}).pinned(ctx, s, client)
		return err
	case "ref/resource":
		return s.pinResource(ctx, client, t.RefURI)
	}
	return nil
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

// pinnedTool finds the tool called name in every page of the server's
// list (a name on two pages is listed twice) and holds it, and its app,
// to the session's pin. Its copies are counted by their name before one
// is decoded: a name listed twice is refused as such though its first
// copy does not decode.
func (s *session) pinnedTool(ctx context.Context, client *mcp.Client, name string) (mcp.Tool, error) {
	var t mcp.Tool
	var first json.RawMessage
	var n int
	var err error
	if s.cacheTools {
		t, n, err = s.conn.Tools.Lookup(ctx, client, name)
		first = t.Raw
	} else {
		t, first, n, err = toolNamed(ctx, client, name)
	}
	if err != nil && !isA[*mcp.ToolNotListedError](err) {
		return t, err
	}
	if perr := s.checkPinListed(client, pin.Tool, name, first, n); perr != nil || err != nil {
		return t, cmp.Or(perr, err)
	}
	return t, s.pinApp(ctx, client, name, t.Raw, true, nil)
}

// toolNamed walks the whole tool list for the tool called name: its
// first definition, decoded and as listed, and how many the list holds;
// none that decodes is a *mcp.ToolNotListedError, with the names of the
// others.
func toolNamed(ctx context.Context, client *mcp.Client, name string) (t mcp.Tool, first json.RawMessage, n int, err error) {
	var names []string
	for p, err := range client.Seek(ctx, "tools/list", "tools") {
		if err != nil {
			return mcp.Tool{Name: name}, nil, 0, err
		}
		for _, raw := range p.Items {
			if other := mcp.ToolName(raw); other != name {
				names = append(names, other)
			} else if n++; n == 1 {
				first = raw
			}
		}
	}
	if t, ok := mcp.ParseTool(first); ok {
		return t, first, n, nil
	}
	return mcp.Tool{Name: name}, first, n, &mcp.ToolNotListedError{Name: name, Listed: names}
}

// pinApp holds the app of the tool called name, listed as raw, to the
// session's pin: what its _meta.ui says, and, with document, the
// document it names (an app that asks the host to render it), as res
// gives it (its resources/read result; nil: read now).
func (s *session) pinApp(ctx context.Context, client *mcp.Client, name string, raw json.RawMessage, document bool, res json.RawMessage) error {
	p, err := s.pinned(client)
	if p == nil || err != nil {
		return err
	}
	raw = s.masked(raw)
	if !p.HasApps {
		if pin.AppOf(raw, nil) != nil {
			s.appsNote.Do(func() {
				s.hooks.Log.Info(fmt.Sprintf("%s pins no apps for server %q (it was written before mcpv pinned them): their apps are not held; %s pins them",
					s.settings.PinLabel, p.Name, s.approveCommand()))
			})
		}
		return nil
	}
	_, pinnedApp := p.FindApp(name)
	a, named := apps.OfTool(raw)
	if !pinnedApp && pin.AppOf(raw, nil) == nil {
		return nil // no app, pinned or now
	}
	var docs map[string]surface.Document
	if document && named {
		d, err := s.readDocument(ctx, client, a.ResourceURI, res)
		if err != nil {
			return fmt.Errorf("could not read the app of tool %q to hold it to its pin: %w", name, err)
		}
		docs = map[string]surface.Document{a.ResourceURI: d}
	}
	return s.refused(p, p.CheckApp(name, pin.AppOf(raw, docs)))
}

// readDocument is the app document at uri as a pin holds it: res, its
// resources/read result (nil: read now); its listing is looked for when
// the content declares no _meta.ui of its own. A server that will not
// give it (a JSON-RPC error) gives a document not read.
func (s *session) readDocument(ctx context.Context, client *mcp.Client, uri string, res json.RawMessage) (surface.Document, error) {
	if res == nil {
		var err error
		res, err = client.Call(ctx, "resources/read", mustJSON(map[string]string{"uri": uri}))
		switch {
		case isA[*mcp.CallError](err):
			return surface.Document{}, nil
		case err != nil:
			return surface.Document{}, err
		}
	}
	d := surface.DocumentOf(uri, res, nil)
	if d.Read && d.UI == nil && client.HasCapability("resources") {
		listing, err := mcp.Items(client.Seek(ctx, "resources/list", "resources"), func(raw json.RawMessage) bool { return rawjson.Key(raw, "uri") == uri })
		if err != nil {
			return surface.Document{}, err
		}
		if len(listing) > 0 {
			d = surface.DocumentOf(uri, res, listing[0])
		}
	}
	d.UI = s.masked(d.UI)
	return d, nil
}

// listedAs is the first of items whose member (its key: a name, a URI)
// is key, and how many are: the copies of one item, counted by the one
// reader of a key (rawjson.Key).
func listedAs(items []json.RawMessage, member, key string) (first json.RawMessage, n int) {
	for _, it := range items {
		if rawjson.Key(it, member) == key {
			if n++; n == 1 {
				first = it
			}
		}
	}
	return first, n
}
