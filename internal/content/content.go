// Package content turns tool results (and resource and prompt results) into
// what pipes want: the text, and binary blocks saved as files.
//
// Both functions read the result as raw JSON, as the server sent it: unknown
// block types and members are skipped by Text and copied unchanged by Save.
// locate checks raw once; the blocks inside it are walked without checking
// their syntax again.
package content

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
)

// shape is the kind of result a JSON object was recognised as.
type shape int

const (
	toolResult     shape = iota // {"content":[ContentBlock...]} (CallToolResult)
	resourceResult              // {"contents":[Text|BlobResourceContents...]} (resources/read)
	promptResult                // {"messages":[{"content":ContentBlock}...]} (prompts/get)
)

// errShape is returned for JSON that is none of the shapes above.
var errShape = errors.New(`not a tool, resource or prompt result (no "content", "contents" or "messages" array)`)

// locate finds the array the blocks are in. The first "content" array wins,
// then "contents", then "messages". arr is a sub-slice of raw.
func locate(raw []byte) (arr []byte, s shape, err error) {
	var found [3][]byte
	err = rawjson.ForEachMember(raw, func(key string, value []byte) error {
		if !isArray(value) {
			return nil
		}
		var k shape
		switch key {
		case "content":
			k = toolResult
		case "contents":
			k = resourceResult
		case "messages":
			k = promptResult
		default:
			return nil
		}
		if found[k] == nil {
			found[k] = value
		}
		return nil
	})
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %v", errShape, err)
	}
	for k, a := range found {
		if a != nil {
			return a, shape(k), nil
		}
	}
	return nil, 0, errShape
}

// Text returns the text of a CallToolResult's content blocks, in order, joined
// by "\n": "text" blocks' text, embedded "resource" blocks whose resource has
// "text", and the "uri" of "resource_link" blocks (a link has no text of its
// own; its URI is what a script can read next). It also works for a
// resources/read result ({"contents":[...]}: each item with "text") and a
// prompts/get result ({"messages":[{"content":{...block...}}]}; a "content"
// array of blocks is read too).
//
// Blocks without text (images, audio, blobs, unknown types, and anything that
// is not an object) are skipped, but if a block was saved by Save (it has
// "path"), its path is included as a line instead.
//
// It returns an error when raw is not one of these shapes (no "content",
// "contents" or "messages" array).
func Text(raw []byte) (string, error) {
	arr, s, err := locate(raw)
	if err != nil {
		return "", err
	}
	var lines []string
	add := func(line string, ok bool) {
		if ok {
			lines = append(lines, line)
		}
	}
	rawjson.ForEachElement(arr, func(_ int, el []byte) {
		switch s {
		case toolResult:
			add(blockText(el))
		case resourceResult:
			add(contentsText(el))
		case promptResult:
			forEachMessageBlock(el, func(block []byte) { add(blockText(block)) })
		}
	})
	return strings.Join(lines, "\n"), nil
}

// blockText returns the line for one ContentBlock.
func blockText(block []byte) (string, bool) {
	if !rawjson.IsObject(block) {
		return "", false
	}
	var typ string
	var text, uri, resource, path []byte
	_ = rawjson.ForEachValidMember(block, func(key string, value []byte) error {
		switch key {
		case "type":
			typ, _ = jsonString(value)
		case "text":
			text = value
		case "uri":
			uri = value
		case "resource":
			resource = value
		case "path":
			path = value
		}
		return nil
	})
	var s string
	var ok bool
	switch typ {
	case "text":
		s, ok = jsonString(text)
	case "resource":
		s, ok = contentsText(resource)
	case "resource_link":
		s, ok = jsonString(uri)
	}
	if ok {
		return s, true
	}
	return jsonString(path)
}

// contentsText returns the line for one resource contents object: its text,
// or the path Save put in place of its blob.
func contentsText(item []byte) (string, bool) {
	if !rawjson.IsObject(item) {
		return "", false
	}
	var text, path []byte
	_ = rawjson.ForEachValidMember(item, func(key string, value []byte) error {
		switch key {
		case "text":
			text = value
		case "path":
			path = value
		}
		return nil
	})
	if s, ok := jsonString(text); ok {
		return s, true
	}
	return jsonString(path)
}

// forEachMessageBlock calls fn with a PromptMessage's content block (or each
// block, if content is an array).
func forEachMessageBlock(msg []byte, fn func(block []byte)) {
	if !rawjson.IsObject(msg) {
		return
	}
	_ = rawjson.ForEachValidMember(msg, func(key string, value []byte) error {
		if key != "content" {
			return nil
		}
		if isArray(value) {
			rawjson.ForEachElement(value, func(_ int, b []byte) { fn(b) })
		} else {
			fn(value)
		}
		return nil
	})
}

// jsonString decodes value if it is a JSON string.
func jsonString(value []byte) (string, bool) {
	if len(value) == 0 || value[0] != '"' {
		return "", false
	}
	s, err := rawjson.String(value)
	return s, err == nil
}
