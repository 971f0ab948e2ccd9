package mcp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parsedInit is raw, a result the test knows to be well formed, parsed.
func parsedInit(raw string) InitializeResult {
	r, err := ParseInitializeResult(json.RawMessage(raw))
	if err != nil {
		panic(err)
	}
	return r
}

// The result is decoded once and kept with its bytes: the state of a
// session encodes it as the server sent it (key order, spacing, unknown
// members), and reads it back typed, as a session keeper and the next run
// do; a capability and the server's name are read from what was decoded.
func TestInitializeResultKeptTyped(t *testing.T) {
	raw := `{"serverInfo": {"version":"1","name":"s\u00e9"}, "x-unknown":[1],"capabilities":{"tools":{"listChanged":true},"prompts":null,"logging":false},"protocolVersion":"2025-11-25","instructions":"Use <b>."}`
	st := State{Version: "2025-11-25", InitializeResult: parsedInit(raw)}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var back State
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	var kept struct {
		InitializeResult json.RawMessage `json:"initializeResult"`
	}
	if err := json.Unmarshal(b, &kept); err != nil {
		t.Fatal(err)
	}
	compact := func(s []byte) string {
		var c []byte
		c, _ = json.Marshal(json.RawMessage(s))
		return string(c)
	}
	if got, want := string(kept.InitializeResult), compact([]byte(raw)); got != want {
		t.Errorf("kept as\n%s\nwant\n%s", got, want)
	}
	r := back.InitializeResult
	if d := cmp.Diff(compact([]byte(raw)), compact(r.Raw())); d != "" {
		t.Errorf("read back (-want +got):\n%s", d)
	}
	got := map[string]any{
		"version": r.ProtocolVersion, "name": r.ServerName(), "instructions": *r.Instructions,
		"tools": r.HasCapability("tools"), "tools.listChanged": r.HasCapability("tools.listChanged"),
		"prompts": r.HasCapability("prompts"), "logging": r.HasCapability("logging"), "tools.other": r.HasCapability("tools.other"),
	}
	want := map[string]any{
		"version": "2025-11-25", "name": "sé", "instructions": "Use <b>.",
		"tools": true, "tools.listChanged": true, "prompts": false, "logging": false, "tools.other": false,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("typed (-want +got):\n%s", d)
	}
	var none State
	if err := json.Unmarshal([]byte(`{"protocolVersion":"2025-11-25","initializeResult":null}`), &none); err != nil || none.InitializeResult.Raw() != nil {
		t.Errorf("a state with no result read as %s, %v", none.InitializeResult.Raw(), err)
	}
}

// What the handshake takes and refuses: any instructions (none unless a
// string), any serverInfo; no object, a protocolVersion that is no
// string or capabilities that are no object are refused.
func TestParseInitializeResult(t *testing.T) {
	for _, tt := range []struct {
		raw          string
		ok           bool
		instructions string // "-": none
		name         string
	}{
		{`{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"a"},"instructions":"hi"}`, true, "hi", "a"},
		{`{"protocolVersion":"2025-11-25","instructions":5,"serverInfo":{"name":7}}`, true, "-", ""},
		{`{"protocolVersion":"2025-11-25","instructions":null,"serverInfo":"s"}`, true, "-", ""},
		{`{"serverInfo":{"name":"first","name":"last"}}`, true, "-", "last"},
		{`{"protocolVersion":"2025-11-25","instructions":""}`, true, "", ""},
		{`[]`, false, "", ""},
		{`"x"`, false, "", ""},
		{`{"protocolVersion":5}`, false, "", ""},
		{`{"capabilities":[]}`, false, "", ""},
		{`{"capabilities":{}`, false, "", ""},
	} {
		r, err := ParseInitializeResult(json.RawMessage(tt.raw))
		if (err == nil) != tt.ok {
			t.Errorf("%s: error %v, want ok %v", tt.raw, err, tt.ok)
			continue
		}
		if !tt.ok {
			continue
		}
		instructions := "-"
		if r.Instructions != nil {
			instructions = *r.Instructions
		}
		if instructions != tt.instructions || r.ServerName() != tt.name {
			t.Errorf("%s: instructions %q, name %q; want %q, %q", tt.raw, instructions, r.ServerName(), tt.instructions, tt.name)
		}
	}
}
