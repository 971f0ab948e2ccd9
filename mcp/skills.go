package mcp

import (
	"context"
	"encoding/json"
	"fmt"
)

// SkillsExtension is the extension through which a server publishes Agent
// Skills (https://github.com/modelcontextprotocol/ext-skills): skills/list
// and skills/get return entries, each a manifest of the skill's files with
// their SHA-256 digests and sizes; the files themselves are resources.
const SkillsExtension = "io.modelcontextprotocol/skills"

// HasExtension reports whether the server declared the extension id.
func (c *Client) HasExtension(id string) bool {
	var ext map[string]json.RawMessage
	if json.Unmarshal(c.era().init.Capabilities["extensions"], &ext) != nil {
		return false
	}
	v, ok := ext[id]
	return ok && string(v) != "null" && string(v) != "false"
}

// RequireSkills returns a *CapabilityError unless the skills extension is
// negotiated: a client sends skills/* only to a server that declared it,
// and only while it declares it itself.
func (c *Client) RequireSkills(method string) error {
	return c.RequireExtension(SkillsExtension, method)
}

// GetSkill asks the server for one skill's entry by the URI of its
// SKILL.md, and returns the entry as sent (internal/skills reads it).
func (c *Client) GetSkill(ctx context.Context, uri string) (json.RawMessage, error) {
	res, err := c.Call(ctx, "skills/get", mustJSON(struct {
		URI string `json:"uri"`
	}{uri}))
	if err != nil {
		return nil, err
	}
	var r struct {
		Skill json.RawMessage `json:"skill"`
	}
	if json.Unmarshal(res, &r) != nil || r.Skill == nil {
		return nil, fmt.Errorf("%s: skills/get answered without a skill", uri)
	}
	return r.Skill, nil
}
