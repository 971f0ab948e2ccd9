package check

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// A ttlMs that is there but no number is said to be so, with what it
// held, not taken as missing.
func TestCacheHintsTTLNotANumber(t *testing.T) {
	c := modernOwnChecks()[0]
	if c.ID != "modern.cache-hints" {
		t.Fatalf("the first cache check is %s", c.ID)
	}
	for ttl, want := range map[string]string{
		`"86400000"`: `a result of tools/list whose ttlMs held a string ("86400000"), not a number`,
		`{"ms":1}`:   `a result of tools/list whose ttlMs held an object, not a number`,
		`null`:       `a result of tools/list whose ttlMs held null, not a number`,
		`-0.5`:       `a result of tools/list whose ttlMs -0.5 is not an integer >= 0`,
		`1e400`:      ``, // past float64's range, an integer all the same
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
