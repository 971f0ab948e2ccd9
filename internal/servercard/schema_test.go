package servercard

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A card whose $schema is an empty string names no schema, and is no
// card: it once passed as one (found by FuzzParseCard). A $schema that is
// missing, null or no string is said once.
func TestCardSchemaMustBeTheCardSchema(t *testing.T) {
	for raw, want := range map[string][]string{
		`"$schema":"",`:                      {"$schema"},
		`"$schema":"https://example.com/x",`: {"$schema"},
		`"$schema":null,`:                    {"$schema"},
		`"$schema":1,`:                       {"$schema"},
		``:                                   {"$schema"},
		`"$schema":"` + SchemaURL + `",`:     nil,
		`"$schema":"` + SchemaURL + ` ",`:    {"$schema"},
		`"$schema":"` + strings.ToUpper(SchemaURL) + `",`: {"$schema"},
	} {
		_, ps := ParseCard(json.RawMessage(`{` + raw + `"name":"a.b/c","version":"1","description":"d"}`))
		if d := cmp.Diff(want, fields(ps, Error)); d != "" {
			t.Errorf("%s: errors (-want +got):\n%s", raw, d)
		}
	}
}
