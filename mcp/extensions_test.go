package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The extensions the client declares, as each era carries them: the
// initialize era declares skills and ui in initialize's capabilities (its
// tasks are core capabilities), the modern era tasks too in every
// request's _meta; NoExtensions leaves one out of both, and a relayed
// session (serve) adds none of mcpv's in the initialize era.
func TestExtensionsDeclared(t *testing.T) {
	ui := `"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}`
	tests := []struct {
		name   string
		opts   ClientOptions
		modern bool
		want   string
	}{
		{"initialize era", ClientOptions{}, false, `{"extensions":{"io.modelcontextprotocol/skills":{},` + ui + `}}`},
		{"modern era", ClientOptions{}, true, `{"extensions":{"io.modelcontextprotocol/skills":{},"io.modelcontextprotocol/tasks":{},` + ui + `}}`},
		{"ui off", ClientOptions{NoExtensions: []string{UIExtension}}, false, `{"extensions":{"io.modelcontextprotocol/skills":{}}}`},
		{"all off", ClientOptions{NoExtensions: []string{UIExtension, SkillsExtension}}, false, `{}`},
		{"all off, modern", ClientOptions{NoExtensions: []string{UIExtension, SkillsExtension, TasksExtension}}, true, `{}`},
		{"kept order", ClientOptions{Capabilities: json.RawMessage(`{"roots":{},"elicitation":{}}`)}, false,
			`{"roots":{},"elicitation":{},"extensions":{"io.modelcontextprotocol/skills":{},` + ui + `}}`},
		{"settings of its own", ClientOptions{Capabilities: json.RawMessage(`{"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["x"]}}}`)}, false,
			`{"extensions":{"io.modelcontextprotocol/skills":{},"io.modelcontextprotocol/ui":{"mimeTypes":["x"]}}}`},
		{"relayed", ClientOptions{Relayed: true, Capabilities: json.RawMessage(`{"sampling":{}}`)}, false, `{"sampling":{}}`},
		{"relayed, modern", ClientOptions{Relayed: true, Capabilities: json.RawMessage(`{"sampling":{}}`)}, true,
			`{"sampling":{},"extensions":{"io.modelcontextprotocol/skills":{},"io.modelcontextprotocol/tasks":{}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			caps := tt.opts.Capabilities
			if caps == nil {
				caps = json.RawMessage(`{}`)
			}
			got := withExtensionsFor(caps, tt.opts, tt.modern)
			if d := cmp.Diff(tt.want, string(got)); d != "" {
				t.Errorf("capabilities (-want +got):\n%s", d)
			}
			if !json.Valid(got) {
				t.Errorf("not JSON: %s", got)
			}
		})
	}
}

// An extension is in use when both sides declare it: one the server
// declares but the user turned off is refused before anything is sent,
// saying it is turned off; one the server does not declare, saying so.
func TestRequireExtension(t *testing.T) {
	result := `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"io.modelcontextprotocol/skills":{},"io.modelcontextprotocol/ui":{}}}}`
	c, _ := initialized(t, ClientOptions{NoExtensions: []string{SkillsExtension}}, result)
	var ce *CapabilityError
	if err := c.RequireSkills("skills/list"); !errors.As(err, &ce) || !ce.Off || !strings.Contains(err.Error(), "turned off") {
		t.Errorf("skills turned off: %v", err)
	}
	if err := c.RequireExtension(UIExtension, "ui"); err != nil {
		t.Errorf("ui declared by both: %v", err)
	}
	if !c.Negotiated(UIExtension) || c.Negotiated(SkillsExtension) || c.Negotiated(TasksExtension) {
		t.Errorf("negotiated: ui %v, skills %v, tasks %v", c.Negotiated(UIExtension), c.Negotiated(SkillsExtension), c.Negotiated(TasksExtension))
	}
	c, _ = initialized(t, ClientOptions{}, `{"protocolVersion":"2025-11-25","capabilities":{}}`)
	if err := c.RequireSkills("skills/list"); !errors.As(err, &ce) || ce.Off || !strings.Contains(err.Error(), `"extensions.io.modelcontextprotocol/skills"`) {
		t.Errorf("skills not declared by the server: %v", err)
	}
}

// info shows both sides: the server's answer as sent, then what the
// client declared.
func TestInfoShowsBothSides(t *testing.T) {
	result := `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"com.example/x":{}}},"serverInfo":{"name":"s","version":"1"}}`
	c, _ := initialized(t, ClientOptions{Capabilities: json.RawMessage(`{"elicitation":{}}`), NoExtensions: []string{SkillsExtension}}, result)
	want := `{"protocolVersion":"2025-11-25","capabilities":{"extensions":{"com.example/x":{}}},"serverInfo":{"name":"s","version":"1"},` +
		`"clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/ui":{"mimeTypes":["text/html;profile=mcp-app"]}}}}`
	if d := cmp.Diff(want, string(c.Info())); d != "" {
		t.Errorf("info (-want +got):\n%s", d)
	}
	if got := string(c.ServerExtensions()); got != `{"com.example/x":{}}` {
		t.Errorf("server extensions %s", got)
	}
}

func TestExtensionProblems(t *testing.T) {
	tests := []struct {
		ext  string
		want []string
	}{
		{`{"io.modelcontextprotocol/ui":{},"com.example-co.api/my_ext.v2":{"a":1}}`, nil},
		{`{"ui":{}}`, []string{`"ui" is not an extension identifier`}},
		{`{"-bad.com/x":{}}`, []string{`"-bad.com/x" is not`}},
		{`{"com.example/x-":{}}`, []string{`"com.example/x-" is not`}},
		{`{"com.example/x":true}`, []string{`the settings of "com.example/x" are not an object`}},
		{`[]`, []string{"extensions is not an object"}},
	}
	for _, tt := range tests {
		got := ExtensionProblems(json.RawMessage(tt.ext))
		if len(got) != len(tt.want) {
			t.Errorf("%s: %q, want %q", tt.ext, got, tt.want)
			continue
		}
		for i := range got {
			if !strings.Contains(got[i], tt.want[i]) {
				t.Errorf("%s: %q, want %q", tt.ext, got[i], tt.want[i])
			}
		}
	}
}

func TestExtensionID(t *testing.T) {
	for name, want := range map[string]string{"ui": UIExtension, "UI": UIExtension, "skills": SkillsExtension, "io.modelcontextprotocol/tasks": TasksExtension, "apps": ""} {
		if got, _ := ExtensionID(name); got != want {
			t.Errorf("ExtensionID(%q) = %q, want %q", name, got, want)
		}
	}
}
