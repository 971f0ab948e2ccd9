package mcp

import "testing"

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
