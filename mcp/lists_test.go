package mcp

import (
	"encoding/json"
	"testing"
)

func TestListChanged(t *testing.T) {
	for method, want := range map[string]string{
		"notifications/tools/list_changed":     "tools",
		"notifications/prompts/list_changed":   "prompts",
		"notifications/resources/list_changed": "resources",
		"notifications/roots/list_changed":     "", // the client's list, not the server's
		"notifications/resources/updated":      "",
		"tools/list":                           "",
	} {
		if got, ok := ListChanged(method); got != want || ok != (want != "") {
			t.Errorf("ListChanged(%q) = %q, %v; want %q", method, got, ok, want)
		}
	}
}

// The lists' table: each method found, the resources' change their
// templates' too.
func TestLists(t *testing.T) {
	for _, l := range Lists {
		if got, ok := ListOf(l.Method); !ok || got != l {
			t.Errorf("ListOf(%q) = %+v, %v", l.Method, got, ok)
		}
	}
	if _, ok := ListOf("resources/read"); ok {
		t.Error("resources/read is taken for a list")
	}
	if got := ChangedLists(Resources.Changed); len(got) != 2 || got[0] != Resources || got[1] != ResourceTemplates {
		t.Errorf("the resources' change: %+v", got)
	}
	if got := ChangedLists("notifications/roots/list_changed"); got != nil {
		t.Errorf("the roots' change: %+v", got)
	}
	if len(Changes) != 3 {
		t.Errorf("Changes: %v", Changes)
	}
}

// ToolName reads a definition's name as encoding/json would decode it into
// a struct's Name field tagged "name": escapes, a later member over an
// earlier one, null and a value of another type leaving it, and nothing
// from what is no object.
func TestToolName(t *testing.T) {
	for _, raw := range []string{
		`{"name":"echo","inputSchema":{}}`,
		`{"name":"t\u00e9\n\"q\""}`,
		`{"name":"a","name":"b"}`,
		`{"name":"a","name":null}`,
		`{"name":"a","name":5}`,
		`{"name":5}`,
		`{"description":"no name"}`,
		`{"name":"\ud800"}`,
		"{\"name\":\"caf\xc3\xa9\"}",
		`[{"name":"a"}]`,
		`"name"`,
	} {
		var d struct {
			Name string `json:"name"`
		}
		json.Unmarshal([]byte(raw), &d)
		if got := ToolName(json.RawMessage(raw)); got != d.Name {
			t.Errorf("ToolName(%s) = %q, encoding/json reads %q", raw, got, d.Name)
		}
	}
}
