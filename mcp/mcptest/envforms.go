package mcptest

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
)

// envFormBlocks are the text blocks of env-forms' result, the
// environment written as an echoing tool may write it, one block for
// each way; and the environment.
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
		strings.Join(each, "\n"), string(doc), asciiJSON(string(doc))} {
		blocks = append(blocks, map[string]string{"type": "text", "text": t})
	}
	return blocks, env
}

// echoCall answers a tools/call of echo=MODE: the strings of its
// arguments, written every way envFormBlocks writes an environment, in
// an error, a tool's error or a log message.
func (s *Spec) echoCall(m msg, id json.RawMessage, out specOut) {
	var lines []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch x := v.(type) {
		case string:
			if key == "env" {
				key, x = x, ""
				x, _ = EnvValue(s.named.environ, key)
			}
			lines = append(lines, key+"="+x)
		case map[string]any:
			for k, e := range x {
				walk(k, e)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		}
	}
	var args any
	json.Unmarshal(member(m.Params, "arguments"), &args)
	walk("", args)
	text := EchoText(lines)
	switch s.named.echo {
	case "error":
		out.send(s.errorLineData(id, -32000, "refused: "+text, mustJSON(map[string]any{"echo": text})))
	case "tool-error":
		out.send(s.resultLine(id, m.Method, mustJSON(map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": true})))
	default:
		out.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"error","data":` + mustString(text) + `}}`)
		out.send(s.resultLine(id, m.Method, json.RawMessage(`{"content":[{"type":"text","text":"ok"}]}`)))
	}
}

// EchoText is lines (KEY=VALUE) written every way an echoing tool may
// write them, as envFormBlocks writes an environment, a block a line: for
// the echo of a fake, or of a test's own.
func EchoText(lines []string) string {
	blocks, _ := envFormBlocks(lines)
	var texts []string
	for _, b := range blocks {
		texts = append(texts, b["text"])
	}
	return strings.Join(texts, "\n")
}
