package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// This file reads the top level of a JSON object without decoding its values.
// Results travel through mcpv as the bytes the server sent; a 100 MB result must
// not be copied or re-encoded just to find the "id" next to it. Member values are
// returned as sub-slices of the input.

var errNotObject = errors.New("not a JSON object")

// ForEachMember calls fn for each member of the JSON object in data, in the order
// the members appear, with the decoded key and the raw value (a sub-slice of data).
// It checks that data is one valid JSON object and nothing else.
func ForEachMember(data []byte, fn func(key string, value []byte) error) error {
	if !json.Valid(data) {
		return errors.New("invalid JSON")
	}
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errNotObject
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for i < len(data) {
		end := valueEnd(data, i)
		var key string
		if err := json.Unmarshal(data[i:end], &key); err != nil {
			return fmt.Errorf("object key: %w", err)
		}
		i = skipSpace(data, end)
		i = skipSpace(data, i+1) // the ':'
		end = valueEnd(data, i)
		if err := fn(key, data[i:end]); err != nil {
			return err
		}
		i = skipSpace(data, end)
		if i < len(data) && data[i] == '}' {
			return nil
		}
		i = skipSpace(data, i+1) // the ','
	}
	return errNotObject
}

// IsObject reports whether data holds a JSON object (it does not validate it).
func IsObject(data []byte) bool {
	i := skipSpace(data, 0)
	return i < len(data) && data[i] == '{'
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// valueEnd returns the index just past the JSON value that starts at data[i].
// The input must already be known to be valid JSON.
func valueEnd(data []byte, i int) int {
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				i = stringEnd(data, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default:
		for i < len(data) {
			switch data[i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return i
			}
			i++
		}
		return i
	}
}

// stringEnd returns the index just past the string literal starting at data[i].
func stringEnd(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}
