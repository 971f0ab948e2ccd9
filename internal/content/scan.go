package content

// The values handled here are sub-slices of JSON that locate has already
// validated, so neither the member walks nor the scanners below check syntax.

func isArray(value []byte) bool { return len(value) > 0 && value[0] == '[' }

// offsetIn returns where sub starts in raw. sub must be a sub-slice of raw
// (both end at the same place in the backing array), which holds for every
// slice rawjson and forEachElement hand out.
func offsetIn(raw, sub []byte) int { return cap(raw) - cap(sub) }
