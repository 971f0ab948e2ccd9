package rawjson

import "encoding/json"

// DecodeLoose decodes data into v as json.Unmarshal does and drops the
// error, for a value whose members, when they are not there or do not
// decode, are read as not given: the members a peer did not send, or sent
// wrong, are taken as absent, and no verdict, exit code or message sent
// turns on the failure.
//
// What a failure leaves is json.Unmarshal's: data that is not JSON at all
// (or v that is no non-nil pointer) leaves v as it was; a value of the
// wrong type for a field or element leaves that one as it was and goes on
// to fill the rest, so v may come back partly filled. A caller must read
// v's zero or prior values as absent, not as sent.
func DecodeLoose(data []byte, v any) {
	_ = json.Unmarshal(data, v)
}
