package surface

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp"
)

func names(items []json.RawMessage) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, nameOf(it))
	}
	return out
}

func compacted(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestGatherListsEveryPage(t *testing.T) {
	spec := loadSpec(t, "good-v1.json") // pageSize 2: the three tools come in two pages
	c := serve(t, spec)
	s, err := NewLister(c).Gather(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"search", "echo", "admin.tools.list"}, names(s.Tools)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"greet"}, names(s.Prompts)); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"file"}, names(s.ResourceTemplates)); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
	// Each item is the server's JSON, as it sent it.
	for i, it := range s.Tools {
		if got, want := string(it), compacted(t, spec.Tools[i]); got != want {
			t.Errorf("tool %d = %s, want %s", i, got, want)
		}
	}
}

func TestGatherBothEras(t *testing.T) {
	for _, era := range []string{"initialize", "modern"} {
		t.Run(era, func(t *testing.T) {
			c := serve(t, parseSpec(t, `{"era":"`+era+`","pageSize":1,
				"tools":[{"name":"a","inputSchema":{"type":"object"}},{"name":"b","inputSchema":{"type":"object"}}],
				"prompts":[{"name":"p"}]}`))
			if c.Modern() != (era == "modern") {
				t.Fatalf("Modern() = %v in era %s", c.Modern(), era)
			}
			s, err := NewLister(c).Gather(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if got := [][]string{names(s.Tools), names(s.Prompts), names(s.ResourceTemplates)}; !cmp.Equal(got, [][]string{{"a", "b"}, {"p"}, {}}) {
				t.Errorf("gathered %v", got)
			}
		})
	}
}

func TestGatherOnlyWhatIsDeclared(t *testing.T) {
	// The server serves prompts and templates but declares only tools.
	c := serve(t, parseSpec(t, `{"capabilities":{"tools":{}},
		"tools":[{"name":"a","inputSchema":{"type":"object"}}],
		"prompts":[{"name":"p"}],
		"resourceTemplates":[{"name":"t","uriTemplate":"x:///{y}"}]}`))
	s, err := NewLister(c).Gather(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Tools) != 1 || len(s.Prompts) != 0 || len(s.ResourceTemplates) != 0 {
		t.Errorf("gathered %d tools, %d prompts, %d templates; want 1, 0, 0", len(s.Tools), len(s.Prompts), len(s.ResourceTemplates))
	}
}

func TestGatherStopsAListThatNeverEnds(t *testing.T) {
	tests := []struct {
		name, spec, want string
	}{
		{"repeated cursor", `{"repeatCursor":["prompts/list"],"prompts":[{"name":"p"}]}`,
			`prompts/list: page 2 repeats nextCursor "again", so the list never ends`},
		{"endless cursors", `{"endlessCursor":["tools/list"],"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`,
			"tools/list: pages 2 to 1001 bring nothing new, though each has a new nextCursor, so the list never ends"},
		{"not a page", `{"answers":{"tools/list":{"tools":{"a":1}}},"capabilities":{"tools":{}}}`,
			`tools/list: page 1: "tools" is not an array`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serve(t, parseSpec(t, tt.spec))
			_, err := NewLister(c).Gather(t.Context())
			var te *mcp.TransportError
			if !errors.As(err, &te) {
				t.Fatalf("Gather = %v, want a *mcp.TransportError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q, want %q", err, tt.want)
			}
		})
	}
}

func TestGatherPassesOnServerErrors(t *testing.T) {
	c := serve(t, parseSpec(t, `{"capabilities":{"tools":{}},"errors":{"tools/list":{"code":-32603,"message":"broken"}}}`))
	_, err := NewLister(c).Gather(t.Context())
	var ce *mcp.CallError
	if !errors.As(err, &ce) || ce.Err.Code != -32603 {
		t.Fatalf("Gather = %v, want the server's -32603", err)
	}
}

// Many real servers declare resources but answer resources/templates/list
// with "method not found": a list the server does not implement is empty,
// and recorded as such. So for every list, and for a server that declares
// no capabilities at all (its lists are not asked for).
func TestGatherTakesUnimplementedListsAsEmpty(t *testing.T) {
	tests := []struct {
		name, spec string
		want       []string
		tools      int
	}{
		{"templates", `{"capabilities":{"tools":{},"resources":{}},"tools":[{"name":"a","inputSchema":{"type":"object"}}],"methodNotFound":["resources/templates/list"]}`,
			[]string{"resources/templates/list"}, 1},
		{"every list", `{"capabilities":{"tools":{},"prompts":{},"resources":{}},"methodNotFound":["tools/list","prompts/list","resources/list","resources/templates/list"]}`,
			[]string{"tools/list", "prompts/list", "resources/templates/list"}, 0},
		{"no capabilities", `{"capabilities":{},"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`, nil, 0},
		{"capabilities null", `{"capabilities":null,"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewLister(serve(t, parseSpec(t, tt.spec))).Gather(t.Context())
			if err != nil {
				t.Fatalf("Gather: %v", err)
			}
			if diff := cmp.Diff(tt.want, s.Unimplemented); diff != "" || len(s.Tools) != tt.tools {
				t.Errorf("%d tools; unimplemented (-want +got):\n%s", len(s.Tools), diff)
			}
			back, err := ParseSnapshot(s.Marshal())
			if err != nil || !cmp.Equal(back.Unimplemented, slices.Sorted(slices.Values(tt.want))) {
				t.Errorf("read back: %v, %v", back.Unimplemented, err)
			}
		})
	}
}

func TestMarshal(t *testing.T) {
	s := Snapshot{
		Tools: []json.RawMessage{
			json.RawMessage(`{"name":"zeta","inputSchema":{"type":"object","properties":{}},"n":1.50,"s":"caf\u00e9 <b>"}`),
			json.RawMessage("{ \"name\" : \"alpha\",\n\t\"inputSchema\":{\"type\":\"object\"}, \"empty\": [] }"),
		},
		ResourceTemplates: []json.RawMessage{
			json.RawMessage(`{"uriTemplate":"b:///{x}","name":"t"}`),
			json.RawMessage(`{"uriTemplate":"a:///{x}","name":"t"}`),
		},
	}
	want := `{
  "mcpvSnapshot": 1,
  "tools": [
    {
      "name": "alpha",
      "inputSchema": {
        "type": "object"
      },
      "empty": []
    },
    {
      "name": "zeta",
      "inputSchema": {
        "type": "object",
        "properties": {}
      },
      "n": 1.50,
      "s": "caf\u00e9 <b>"
    }
  ],
  "prompts": [],
  "resourceTemplates": [
    {
      "uriTemplate": "a:///{x}",
      "name": "t"
    },
    {
      "uriTemplate": "b:///{x}",
      "name": "t"
    }
  ]
}
`
	got := s.Marshal()
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("Marshal (-want +got):\n%s", diff)
	}
	// A snapshot read back writes the same bytes.
	back, err := ParseSnapshot(got)
	if err != nil {
		t.Fatal(err)
	}
	if again := back.Marshal(); !bytes.Equal(again, got) {
		t.Errorf("Marshal after ParseSnapshot differs:\n%s", again)
	}
	if d := Diff(s, back); len(d) != 0 {
		t.Errorf("Diff(s, ParseSnapshot(s.Marshal())) = %v, want none", d)
	}
}

func TestMarshalGathered(t *testing.T) {
	c := serve(t, loadSpec(t, "good-v1.json"))
	s, err := NewLister(c).Gather(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	data := s.Marshal()
	if !json.Valid(data) || !bytes.HasSuffix(data, []byte("}\n")) {
		t.Fatalf("Marshal wrote:\n%s", data)
	}
	back, err := ParseSnapshot(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"admin.tools.list", "echo", "search"}, names(back.Tools)); diff != "" {
		t.Errorf("tools in the snapshot (-want +got):\n%s", diff)
	}
}

func TestParseSnapshotErrors(t *testing.T) {
	// Where the message is the JSON decoder's, only its start is ours.
	tests := []struct{ name, data, want string }{
		{"not JSON", `{`, "not a snapshot: "},
		{"no version", `{"tools":[]}`, "not a snapshot: it has no mcpvSnapshot version"},
		{"newer format", `{"mcpvSnapshot":3,"tools":[]}`, "snapshot format 3: this mcpv reads format 2"},
		{"unimplemented in format 1", `{"mcpvSnapshot":1,"unimplemented":["resources/templates/list"]}`, `not a snapshot: "unimplemented" is new in format 2`},
		{"unknown member", `{"mcpvSnapshot":1,"tool":[]}`, "not a snapshot: "},
		{"list not an array", `{"mcpvSnapshot":1,"tools":{}}`, "not a snapshot: "},
		{"two values", `{"mcpvSnapshot":1} {}`, "not a snapshot: more than one JSON value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseSnapshot([]byte(tt.data))
			if err == nil || err.Error() != tt.want && !(strings.HasSuffix(tt.want, ": ") && strings.HasPrefix(err.Error(), tt.want)) {
				t.Errorf("ParseSnapshot = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := ParseSnapshot([]byte(`{"mcpvSnapshot":1}`)); err != nil {
		t.Errorf("a snapshot with no lists: %v", err)
	}
}
