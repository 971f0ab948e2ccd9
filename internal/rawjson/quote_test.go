package rawjson

import (
	"encoding/json"
	"testing"
)

// AppendString writes every string as encoding/json does, and Plain says
// which ones it writes as they are.
func TestAppendString(t *testing.T) {
	for _, tt := range []struct {
		s     string
		plain bool
	}{
		{"", true},
		{"tools/call", true},
		{"io.modelcontextprotocol/logLevel", true},
		{"a b~", true},
		{`say "hi"`, false},
		{`back\slash`, false},
		{"<tag>", false},
		{"a&b", false},
		{"tab\there", false},
		{"del\x7f", false},
		{"é", false},
		{"\xff", false},
	} {
		want, _ := json.Marshal(tt.s)
		if got := AppendString([]byte("x"), tt.s); string(got) != "x"+string(want) {
			t.Errorf("AppendString(%q) = %s, want x%s", tt.s, got, want)
		}
		if got := Plain(tt.s); got != tt.plain {
			t.Errorf("Plain(%q) = %v, want %v", tt.s, got, tt.plain)
		}
		if tt.plain && string(want) != `"`+tt.s+`"` {
			t.Errorf("%q is plain but encoding/json writes %s", tt.s, want)
		}
	}
}
