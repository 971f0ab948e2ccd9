package surface

import (
	"encoding/json"
	"reflect"
)

// DiffJSON tells how one JSON object became another, member by member
// down the objects both hold: each change security-relevant, at its path
// from the object ("ui.visibility"), with the values before and after
// (made safe, secrets masked). It is for what a pin holds beside an
// item's definition (a tool's app), whose every member a host acts on.
func DiffJSON(label string, old, new json.RawMessage) []Change {
	var d differ
	d.jsonMembers(label, "", decode(old), decode(new))
	return d.changes
}

func (d *differ) jsonMembers(label, path string, o, n map[string]any) {
	for _, k := range memberKeys(o, n) {
		ov, inO := o[k]
		nv, inN := n[k]
		p := k
		if path != "" {
			p = path + pathKey(k)
		}
		om, oObj := ov.(map[string]any)
		nm, nObj := nv.(map[string]any)
		switch {
		case reflect.DeepEqual(ov, nv) && inO == inN:
		case oObj && nObj:
			d.jsonMembers(label, p, om, nm)
		case !inO:
			d.addClass(ClassSecurity, label, p, "%s added: %s", k, jsonText(nv, true))
		case !inN:
			d.addClass(ClassSecurity, label, p, "%s removed (was %s)", k, jsonText(ov, true))
		default:
			d.addClass(ClassSecurity, label, p, "%s changed from %s to %s", k, jsonText(ov, true), jsonText(nv, true))
		}
	}
}
