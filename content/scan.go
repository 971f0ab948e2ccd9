package content

import "github.com/mcpv/mcpv/internal/rawjson"

// The values handled here are sub-slices of JSON that rawjson.ForEachMember
// has already validated, so the scanners below do not check syntax.

func isArray(value []byte) bool { return len(value) > 0 && value[0] == '[' }

// forEachElement calls fn with the index and raw text (a sub-slice of arr)
// of each element of the JSON array arr.
func forEachElement(arr []byte, fn func(i int, el []byte)) {
	i := rawjson.SkipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return
	}
	i = rawjson.SkipSpace(arr, i+1)
	for n := 0; i < len(arr) && arr[i] != ']'; n++ {
		end := valueEnd(arr, i)
		fn(n, arr[i:end])
		i = rawjson.SkipSpace(arr, end)
		if i < len(arr) && arr[i] == ',' {
			i = rawjson.SkipSpace(arr, i+1)
		}
	}
}

// offsetIn returns where sub starts in raw. sub must be a sub-slice of raw
// (both end at the same place in the backing array), which holds for every
// slice rawjson and forEachElement hand out.
func offsetIn(raw, sub []byte) int { return cap(raw) - cap(sub) }

// valueEnd returns the index just past the JSON value that starts at data[i].
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
