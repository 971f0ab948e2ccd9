package surface

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"

	"github.com/mcpv/mcpv/internal/apps"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/mcp"
)

// Document is the document of an app (MCP Apps: the ui:// resource a
// tool names in _meta.ui.resourceUri) as read: what a host renders, and
// the content security policy and permissions it renders it with.
type Document struct {
	// Read says whether resources/read gave the resource; when it did
	// not (the server answered with an error, or gave no content for
	// its URI), the rest is empty.
	Read     bool
	MIMEType string
	// Digest is "sha256:" and the hex of the document's bytes: its text,
	// or its blob decoded.
	Digest string
	// UI is its _meta.ui as the content gives it, else as its entry in
	// resources/list does (a host reads both, the content first); nil
	// when neither does.
	UI json.RawMessage
}

// AppURIs are the ui:// resources the tools name as their apps, each
// once, in the order of the tools.
func AppURIs(tools []json.RawMessage) []string {
	var uris []string
	for _, t := range tools {
		if a, ok := apps.OfTool(t); ok && !slices.Contains(uris, a.ResourceURI) {
			uris = append(uris, a.ResourceURI)
		}
	}
	return uris
}

// GatherDocuments reads the documents of the apps of s's tools into
// s.Documents, each once. A resource the server will not give (a
// JSON-RPC error) is a Document not Read; the session's own failures
// (a timeout, a broken connection) end the gathering.
func (l *Lister) GatherDocuments(ctx context.Context, s *Server) error {
	s.Documents = map[string]Document{}
	for _, uri := range AppURIs(s.Tools) {
		res, err := l.c.Call(ctx, "resources/read", rawjson.MustMarshal(map[string]string{"uri": uri}))
		switch {
		case errors.As(err, new(*mcp.CallError)):
			s.Documents[uri] = Document{}
			continue
		case err != nil:
			return err
		}
		s.Documents[uri] = DocumentOf(uri, res, withURI(s.Resources, uri))
	}
	return nil
}

// withURI is the first of items (resources, contents) whose uri is uri,
// or nil.
func withURI(items []json.RawMessage, uri string) json.RawMessage {
	for _, r := range items {
		if stringMember(r, "uri") == uri {
			return r
		}
	}
	return nil
}

// DocumentOf reads a resources/read result for the app document at uri
// (listing is its entry in resources/list, or nil): the content for uri,
// else the only one there is.
func DocumentOf(uri string, res, listing json.RawMessage) Document {
	var contents []json.RawMessage
	rawjson.ForEachElement(rawjson.Member(res, "contents"), func(_ int, c []byte) { contents = append(contents, c) })
	item := withURI(contents, uri)
	if item == nil && len(contents) == 1 {
		item = contents[0] // the only content, as a host takes it
	}
	if item == nil || item[0] != '{' {
		return Document{}
	}
	d := Document{Read: true, MIMEType: stringMember(item, "mimeType")}
	var body []byte
	text, blob := rawjson.Member(item, "text"), rawjson.Member(item, "blob")
	switch {
	case text != nil:
		s, _ := rawjson.String(text)
		body = []byte(s)
	case blob != nil:
		s, _ := rawjson.String(blob)
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			body = b
		} else {
			body = []byte("blob:" + s) // not base64: digested as written
		}
	}
	sum := sha256.Sum256(body)
	d.Digest = "sha256:" + hex.EncodeToString(sum[:])
	d.UI = uiOf(item)
	if d.UI == nil {
		d.UI = uiOf(listing)
	}
	return d
}

// uiOf is an object's _meta.ui, nil when it has none or null.
func uiOf(obj json.RawMessage) json.RawMessage {
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	ui := rawjson.Member(rawjson.Member(obj, "_meta"), "ui")
	if ui == nil || string(ui) == "null" {
		return nil
	}
	return ui
}
