package mcptest

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"os"
	"slices"
	"strings"
)

// envForms is the result of env-forms: the environment written as an
// echoing tool may write it, one text block for each way.
func envForms() string {
	environ := slices.Sorted(slices.Values(os.Environ()))
	text := strings.Join(environ, "\n")
	env := map[string]string{}
	var each []string
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
		each = append(each, k+"="+base64.StdEncoding.EncodeToString([]byte(v))+" "+base64.RawURLEncoding.EncodeToString([]byte(v)))
	}
	doc, _ := json.Marshal(env)
	var blocks []map[string]string
	for _, t := range []string{text, url.QueryEscape(text), url.PathEscape(text),
		base64.StdEncoding.EncodeToString([]byte(text)), base64.RawURLEncoding.EncodeToString([]byte(text)),
		base64.StdEncoding.EncodeToString([]byte("x" + text)), base64.StdEncoding.EncodeToString([]byte("xy" + text)),
		strings.Join(each, "\n"), string(doc)} {
		blocks = append(blocks, map[string]string{"type": "text", "text": t})
	}
	b, _ := json.Marshal(map[string]any{"content": blocks, "structuredContent": map[string]any{"env": env}})
	return string(b)
}
