package mcptest

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// envForms is the result of env-forms: the environment written as an
// echoing tool may write it, one text block for each way.
func envForms(environ []string) string {
	blocks, env := envFormBlocks(environ)
	b, _ := json.Marshal(map[string]any{"content": blocks, "structuredContent": map[string]any{"env": env}})
	return string(b)
}

// envFormsQuestion is the params of a question (elicitation/create) of
// env-forms: its message holds the environment in every way envForms
// writes it.
func envFormsQuestion(environ []string) string {
	blocks, _ := envFormBlocks(environ)
	var texts []string
	for _, b := range blocks {
		texts = append(texts, b["text"])
	}
	b, _ := json.Marshal(map[string]any{"message": strings.Join(texts, "\n\n"), "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}})
	return string(b)
}

// envFormBlocks are the text blocks of envForms, and the environment.
func envFormBlocks(environ []string) ([]map[string]string, map[string]string) {
	environ = slices.Sorted(slices.Values(environ))
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
	return blocks, env
}
