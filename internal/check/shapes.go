package check

// The shapes the hand checks hold a result to, as pure functions of the
// result: a resource's contents, a prompt's messages, a content block, a
// completion's values. jsonrpc.schema asks them too, to leave to a hand
// check the defect it names (handClaims).

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"strings"
)

// contentsProblem says how a resources/read result breaks its schema.
func contentsProblem(res json.RawMessage) string {
	var r struct {
		Contents *[]map[string]json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(res, &r) != nil || r.Contents == nil {
		return "the result has no contents array"
	}
	for i, c := range *r.Contents {
		if p := resourceContentsProblem(c); p != "" {
			return fmt.Sprintf("contents[%d] %s", i, p)
		}
	}
	return ""
}

// resourceContentsProblem checks one TextResourceContents or BlobResourceContents.
func resourceContentsProblem(c map[string]json.RawMessage) string {
	if c == nil {
		return "is not a JSON object"
	}
	if _, ok := str(c["uri"]); !ok {
		return "has no uri string"
	}
	_, text := str(c["text"])
	blob, isBlob := str(c["blob"])
	switch {
	case !text && !isBlob:
		return "has neither a text nor a blob string"
	case isBlob:
		if _, err := base64.StdEncoding.DecodeString(blob); err != nil {
			return "has a blob that is not base64: " + clip(err.Error(), 80)
		}
	}
	if mt, ok := c["mimeType"]; ok {
		if _, isString := str(mt); !isString {
			return "has a mimeType that is not a string"
		}
	}
	return ""
}

// messagesProblem says how a prompts/get result breaks its schema.
func messagesProblem(res json.RawMessage) string {
	var r struct {
		Messages *[]struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(res, &r) != nil || r.Messages == nil {
		return "the result has no messages array"
	}
	for i, m := range *r.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Sprintf(`messages[%d] has role %q; the roles are "user" and "assistant"`, i, clip(m.Role, 40))
		}
		if p := contentBlockProblem(m.Content); p != "" {
			return fmt.Sprintf("messages[%d].content %s", i, p)
		}
	}
	return ""
}

// contentBlockProblem checks one content block: its type and the members its type requires.
func contentBlockProblem(raw json.RawMessage) string {
	var c map[string]json.RawMessage
	if json.Unmarshal(raw, &c) != nil {
		return "is not a JSON object"
	}
	typ, _ := str(c["type"])
	need := func(keys ...string) string {
		for _, k := range keys {
			if _, ok := str(c[k]); !ok {
				return fmt.Sprintf("of type %q has no %s string", typ, k)
			}
		}
		return ""
	}
	switch typ {
	case "text":
		return need("text")
	case "image", "audio":
		if p := need("data", "mimeType"); p != "" {
			return p
		}
		if _, err := base64.StdEncoding.DecodeString(str1(c["data"])); err != nil {
			return fmt.Sprintf("of type %q has data that is not base64", typ)
		}
		mt, _ := str(c["mimeType"])
		if parsed, _, err := mime.ParseMediaType(mt); err != nil || !strings.Contains(strings.Trim(parsed, "/"), "/") { // a type and a subtype
			return fmt.Sprintf("of type %q has the mimeType %q, which is no MIME type", typ, clip(mt, 60))
		}
	case "resource":
		var inner map[string]json.RawMessage
		if json.Unmarshal(c["resource"], &inner) != nil {
			return `of type "resource" has no resource object`
		}
		if p := resourceContentsProblem(inner); p != "" {
			return "has a resource that " + p
		}
	case "resource_link":
		return need("uri", "name")
	case "":
		return "has no type"
	default:
		return fmt.Sprintf("has type %q, which the specification does not have", clip(typ, 40))
	}
	return ""
}

// completionProblem says how a completion/complete result breaks what
// reading.completion holds it to: its values, at most 100 strings (the
// other members are the schema's, jsonrpc.schema's to judge).
func completionProblem(res json.RawMessage) string {
	values := member(member(res, "completion"), "values")
	var vs []string
	switch {
	case values == nil:
		return "the result has no completion.values"
	case json.Unmarshal(values, &vs) != nil || vs == nil:
		return "completion.values is no array of strings: it holds " + clip(string(values), 80)
	case len(vs) > 100:
		return fmt.Sprintf("completion.values has %d items", len(vs))
	}
	return ""
}
