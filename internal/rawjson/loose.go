package rawjson

import "encoding/json"

// DecodeLoose decodes data into v as json.Unmarshal does and drops the
// error: v may come back as it was, or partly filled. It is not the way
// to decode: each of its few callers says why a value that does not
// decode is the same, there, as none.
func DecodeLoose(data []byte, v any) {
	_ = json.Unmarshal(data, v)
}
