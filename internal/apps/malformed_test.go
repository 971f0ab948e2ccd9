package apps

import (
	"encoding/json"
	"testing"
)

// A tool whose _meta is no object says so, rather than naming no app in
// silence; a result whose content blocks are of the wrong types has no
// content a host can be sure to show.
func TestMalformedToolAndResult(t *testing.T) {
	if a, ok := OfTool(json.RawMessage(`{"name":"t","_meta":"ui://x"}`)); ok || !Invalid(a.Problems) {
		t.Errorf("ok %v, problems %+v", ok, a.Problems)
	}
	var r Report
	r.Valid = true
	r.AddCall(nil, json.RawMessage(`{"content":[{"type":"text","text":"hi"},{"type":"text","text":7}]}`))
	if r.Valid || !Invalid(r.Problems) {
		t.Errorf("valid %v, problems %+v", r.Valid, r.Problems)
	}
}
