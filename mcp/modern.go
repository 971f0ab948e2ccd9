package mcp

// The modern era of the protocol (2026-07-28,
// https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle):
// no initialize handshake and no session. The client learns what the server
// offers from server/discover, and every request carries the protocol
// version, the client's capabilities and its identity in params._meta.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// ModernVersion is the first protocol version of the modern era.
const ModernVersion = "2026-07-28"

// ModernVersions are the modern-era versions mcpv speaks, newest first.
var ModernVersions = []string{ModernVersion}

// IsModern reports whether version is a modern-era version mcpv speaks.
func IsModern(version string) bool { return slices.Contains(ModernVersions, version) }

// The _meta keys of a modern request and of server/discover's result.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
)

// Error codes of the modern era.
const (
	CodeHeaderMismatch                    = -32020
	CodeMissingRequiredClientCapabilities = -32021
	CodeUnsupportedProtocolVersion        = -32022
)

// discover negotiates the modern era with server/discover: the newest
// version both sides speak, offered first as version. It returns the
// client, or an error saying why the server is not (or not in a version
// mcpv speaks) a modern one.
func discover(ctx context.Context, s *Session, opts ClientOptions, version string) (*Client, error) {
	c := &Client{s: s, opts: opts, version: version, modern: true}
	if v, ok := s.t.(VersionSetter); ok {
		v.SetProtocolVersion(version) // HTTP: MCP-Protocol-Version from the first request on
	}
	raw, err := c.s.Call(ctx, "server/discover", c.stamp(nil))
	if supported, ok := unsupportedVersion(err); ok {
		v := newestModern(supported)
		if v == "" || v == version || opts.ProtocolVersion != "" {
			return nil, &VersionError{Offered: version, ServerSupports: supported, Accepted: acceptedModern(opts)}
		}
		c.version = v
		if vs, ok := s.t.(VersionSetter); ok {
			vs.SetProtocolVersion(v)
		}
		raw, err = c.s.Call(ctx, "server/discover", c.stamp(nil))
	}
	if err != nil {
		return nil, err
	}
	var res struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
		Instructions      *string                    `json:"instructions"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &res); err != nil || !rawjson.IsObject(raw) {
		return nil, &TransportError{Op: "server/discover", Err: fmt.Errorf("malformed result: %.200s", raw)}
	}
	if !slices.Contains(res.SupportedVersions, c.version) {
		v := newestModern(res.SupportedVersions)
		if v == "" || opts.ProtocolVersion != "" {
			return nil, &VersionError{Offered: c.version, ServerSupports: res.SupportedVersions, Accepted: acceptedModern(opts)}
		}
		c.version = v
		if vs, ok := s.t.(VersionSetter); ok {
			vs.SetProtocolVersion(v)
		}
	}
	c.capabilities = res.Capabilities
	c.initResult = discoveredInfo(c.version, raw, res.Meta[MetaServerInfo], res.Instructions)
	return c, nil
}

// discoveredInfo is what info shows of a modern server: the shape of an
// initialize result (protocolVersion, capabilities, serverInfo,
// instructions) plus supportedVersions, each as the server sent it.
func discoveredInfo(version string, discovered json.RawMessage, serverInfo json.RawMessage, instructions *string) json.RawMessage {
	var b []byte
	b = append(b, `{"protocolVersion":`...)
	b = append(b, mustJSON(version)...)
	rawjson.ForEachValidMember(discovered, func(k string, v []byte) error {
		if k == "capabilities" {
			b = append(append(b, `,"capabilities":`...), v...)
		}
		return nil
	})
	if len(serverInfo) > 0 {
		b = append(append(b, `,"serverInfo":`...), serverInfo...)
	}
	if instructions != nil {
		b = append(append(b, `,"instructions":`...), mustJSON(*instructions)...)
	}
	rawjson.ForEachValidMember(discovered, func(k string, v []byte) error {
		if k == "supportedVersions" {
			b = append(append(b, `,"supportedVersions":`...), v...)
		}
		return nil
	})
	return append(b, '}')
}

// stamp adds the modern era's _meta to a request's params: the protocol
// version, the client's capabilities and identity, and the log level when
// one was asked for. Keys the params already carry are kept.
func (c *Client) stamp(params json.RawMessage) json.RawMessage {
	caps := c.opts.Capabilities
	if caps == nil {
		caps = json.RawMessage(`{}`)
	}
	entries := []struct {
		key   string
		value json.RawMessage
	}{
		{MetaProtocolVersion, mustJSON(c.version)},
		{MetaClientCapabilities, caps},
		{MetaClientInfo, mustJSON(c.opts.Info)},
	}
	if c.opts.LogLevel != "" {
		entries = append(entries, struct {
			key   string
			value json.RawMessage
		}{MetaLogLevel, mustJSON(c.opts.LogLevel)})
	}
	for _, e := range entries {
		if hasMeta(params, e.key) {
			continue
		}
		if p, err := WithMeta(params, e.key, e.value); err == nil {
			params = p
		}
	}
	return params
}

// hasMeta reports whether params._meta holds key.
func hasMeta(params json.RawMessage, key string) bool {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	_, ok := p.Meta[key]
	return ok
}

// unsupportedVersion reads the versions a server lists when it refuses the
// requested one with -32022 (data.supported).
func unsupportedVersion(err error) ([]string, bool) {
	var ce *CallError
	if !errors.As(err, &ce) {
		return nil, false
	}
	return serverVersions(ce.Err, CodeUnsupportedProtocolVersion)
}

// newestModern returns the newest modern version mcpv speaks among
// supported, or "".
func newestModern(supported []string) string {
	for _, v := range ModernVersions {
		if slices.Contains(supported, v) {
			return v
		}
	}
	return ""
}

func acceptedModern(opts ClientOptions) []string {
	if opts.ProtocolVersion != "" {
		return []string{opts.ProtocolVersion}
	}
	return ModernVersions
}

// Modern reports whether the session speaks the modern era.
func (c *Client) Modern() bool { return c.modern }

// ResultTypeError is a modern result whose resultType mcpv does not
// handle: never to be taken for a success.
type ResultTypeError struct {
	Method, Type string
}

func (e *ResultTypeError) Error() string {
	if e.Type == "input_required" {
		return fmt.Sprintf("%s: the server needs input first (resultType input_required), which mcpv does not answer", e.Method)
	}
	return fmt.Sprintf("%s: the result is of an unknown resultType %q", e.Method, e.Type)
}

// checkResultType accepts a result that is complete: resultType
// "complete", or none (servers of the initialize era send none).
func checkResultType(method string, res json.RawMessage) error {
	var typ string
	rawjson.ForEachValidMember(res, func(k string, v []byte) error {
		if k == "resultType" {
			if json.Unmarshal(v, &typ) != nil {
				typ = string(v)
			}
		}
		return nil
	})
	if typ == "" || typ == "complete" {
		return nil
	}
	return &ResultTypeError{Method: method, Type: typ}
}
