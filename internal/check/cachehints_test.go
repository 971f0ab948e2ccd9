package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// A ttlMs that is there but no number is said to be so, not taken as
// missing; one that is missing or null is missing.
func TestCacheHintsTTLNotANumber(t *testing.T) {
	c := modernCacheChecks()[0]
	if c.ID != "modern.cache-hints" {
		t.Fatalf("the first cache check is %s", c.ID)
	}
	for ttl, want := range map[string]string{
		`"86400000"`: `a result of tools/list whose ttlMs "86400000" is not a number`,
		`{"ms":1}`:   `a result of tools/list whose ttlMs {"ms":1} is not a number`,
		`null`:       `a result of tools/list without ttlMs`,
		`5`:          ``,
	} {
		var m mcp.Message
		if err := json.Unmarshal([]byte(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","ttlMs":`+ttl+`,"cacheScope":"public","tools":[]}}`), &m); err != nil {
			t.Fatal(err)
		}
		got := c.watch(nil, seen{msg: m, era: "modern", method: "tools/list"})
		if got != want && !(want != "" && strings.HasPrefix(got, want)) {
			t.Errorf("ttlMs %s: %q, want %q", ttl, got, want)
		}
	}
}
