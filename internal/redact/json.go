package redact

import (
	"bytes"
	"encoding/json"
	"strings"
)

// JSONForms are values as they may appear in a JSON message: as they are,
// escaped as a JSON string holds them, and escaped twice, as a JSON
// document held in a string (a tool's text that is JSON) holds them. A
// string is escaped as encoders do: the least escaping (JavaScript's
// JSON.stringify, Python's json.dumps(ensure_ascii=False)), Go's (<, > and
// & as \u003c...) and PHP's (/ as \/).
func JSONForms(values []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(v string) bool {
		if seen[v] {
			return false
		}
		seen[v] = true
		out = append(out, v)
		return true
	}
	for _, v := range values {
		add(v)
		for _, once := range escapes(v) {
			if once == v || !add(once) {
				continue
			}
			// Held in a document that is itself a string: escaped
			// again, by any of the encoders (PHP escapes a slash at
			// both levels: a/b is a\\\/b there).
			for _, twice := range escapes(once) {
				if twice != once {
					add(twice)
				}
			}
		}
	}
	return out
}

// escapes is v inside a JSON string, quotes left out: the least escaping,
// Go's, PHP's.
func escapes(v string) [3]string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	least := strings.TrimSuffix(b.String(), "\n")
	least = least[1 : len(least)-1]
	goForm, _ := json.Marshal(v)
	return [3]string{least, string(goForm[1 : len(goForm)-1]), strings.ReplaceAll(least, "/", `\/`)}
}
