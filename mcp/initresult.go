package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// InitializeResult is the server's answer to initialize (lifecycle), or
// the modern era's server/discover result shaped as one (discoveredInfo):
// decoded once, where it arrives, and kept with the bytes as sent, which
// are what it encodes to (Raw). The client holds it for its era
// (Client.InitializeResult), and the state of a session for the next
// attach or run (State).
type InitializeResult struct {
	ProtocolVersion string
	// Capabilities are the server's, by top-level key, as sent.
	Capabilities map[string]json.RawMessage
	// ServerInfo is as sent; nil when the server gave none.
	ServerInfo json.RawMessage
	// Instructions are nil when the server gave none, or no string: any
	// value passes the handshake.
	Instructions *string
	// SupportedVersions are those server/discover lists, in the modern
	// era; nil otherwise, and for a member that is no list of strings.
	SupportedVersions []string
	raw               json.RawMessage
}

// ParseInitializeResult decodes raw, which it keeps: a JSON object whose
// protocolVersion, when present, is a string and whose capabilities an
// object.
func ParseInitializeResult(raw json.RawMessage) (InitializeResult, error) {
	var res struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage            `json:"serverInfo"`
		Instructions    json.RawMessage            `json:"instructions"`
		Supported       json.RawMessage            `json:"supportedVersions"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return InitializeResult{}, err
	}
	if !rawjson.IsObject(raw) {
		return InitializeResult{}, errors.New("not a JSON object")
	}
	r := InitializeResult{ProtocolVersion: res.ProtocolVersion, Capabilities: res.Capabilities, ServerInfo: res.ServerInfo, raw: raw}
	if len(res.Instructions) > 0 && res.Instructions[0] == '"' {
		s, _ := rawjson.String(res.Instructions) // a member encoding/json took
		r.Instructions = &s
	}
	if len(res.Supported) > 0 && res.Supported[0] == '[' && json.Unmarshal(res.Supported, &r.SupportedVersions) != nil {
		r.SupportedVersions = nil
	}
	return r, nil
}

// Raw is the result as sent; nil for none.
func (r InitializeResult) Raw() json.RawMessage { return r.raw }

// MarshalJSON writes the result as sent (null for none).
func (r InitializeResult) MarshalJSON() ([]byte, error) {
	if r.raw == nil {
		return []byte("null"), nil
	}
	return r.raw, nil
}

// UnmarshalJSON reads a result kept as MarshalJSON writes it
// (ParseInitializeResult); null is none.
func (r *InitializeResult) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = InitializeResult{}
		return nil
	}
	res, err := ParseInitializeResult(bytes.Clone(b))
	*r = res
	return err
}

// HasCapability reports whether the server declared the capability at
// the dotted path (e.g. "tools", "resources.subscribe"). A capability is
// declared when its value is present and neither null nor false.
func (r InitializeResult) HasCapability(path string) bool {
	keys := strings.Split(path, ".")
	v, ok := r.Capabilities[keys[0]]
	for _, k := range keys[1:] {
		if !ok {
			return false
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil {
			return false
		}
		v, ok = m[k]
	}
	return ok && string(v) != "null" && string(v) != "false"
}

// ServerName is the name serverInfo gives, or "": of a name given
// twice, the last, as encoding/json reads it.
func (r InitializeResult) ServerName() string {
	var name string
	rawjson.ForEachValidMember(r.ServerInfo, func(k string, v []byte) error {
		if k == "name" {
			name, _ = rawjson.String(v) // "" for no string
		}
		return nil
	})
	return name
}
