package mcp

import (
	"encoding/json"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// ListenFilter is what a subscriptions/listen asks to hear, its
// notifications member
// (https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions):
// the lists whose changes it asks for, by their change notification
// (List.Changed), and the resources whose updates.
type ListenFilter struct {
	Changes map[string]bool
	URIs    []string
}

// listenURIs is the member that names the resources.
const listenURIs = "resourceSubscriptions"

// Asks reports whether the filter asks for a list's change notification.
func (f ListenFilter) Asks(change string) bool { return f.Changes[change] }

// AnyChange reports whether the filter asks for some list's changes.
func (f ListenFilter) AnyChange() bool {
	for _, on := range f.Changes {
		if on {
			return true
		}
	}
	return false
}

// Ask makes the filter ask for a list's change notification too.
func (f *ListenFilter) Ask(change string) {
	lazy.Put(&f.Changes, change, true)
}

// Only is the filter's changes that keep says may be heard, and no
// resources.
func (f ListenFilter) Only(keep func(change string) bool) ListenFilter {
	var out ListenFilter
	for change, on := range f.Changes {
		if on && keep(change) {
			out.Ask(change)
		}
	}
	return out
}

// MarshalJSON writes the changes asked for in the order of Lists, then
// the resources when there are any.
func (f ListenFilter) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for _, change := range Changes {
		if f.Changes[change] {
			if len(b) > 1 {
				b = append(b, ',')
			}
			b = append(append(append(b, '"'), listenKey(change)...), `":true`...)
		}
	}
	if len(f.URIs) > 0 {
		uris, err := json.Marshal(f.URIs)
		if err != nil {
			return nil, err
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(b, `"`+listenURIs+`":`...), uris...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the members as encoding/json reads a struct's:
// names in any case, the last of two alike, a value of another type
// left out.
func (f *ListenFilter) UnmarshalJSON(data []byte) error {
	*f = ListenFilter{}
	return rawjson.ForEachMember(data, func(key string, v []byte) error {
		if strings.EqualFold(key, listenURIs) {
			var uris []string
			if json.Unmarshal(v, &uris) == nil {
				f.URIs = uris
			}
			return nil
		}
		for _, change := range Changes {
			var on bool
			if strings.EqualFold(key, listenKey(change)) && json.Unmarshal(v, &on) == nil {
				f.Ask(change)
				f.Changes[change] = on
			}
		}
		return nil
	})
}

// listenKey is the member a listen asks for a list's changes by.
func listenKey(change string) string {
	for _, l := range Lists {
		if l.Changed == change {
			return l.Listen
		}
	}
	return ""
}
