package subscription

import (
	"encoding/json"
	"testing"
)

func TestAudienceOf(t *testing.T) {
	for _, tc := range []struct {
		method, params string
		want           Audience
		uri            string
	}{
		{"notifications/progress", `{"progressToken":"k1","progress":1}`, Requester, ""},
		{"notifications/resources/updated", `{"uri":"file:///x"}`, Holders, "file:///x"},
		{"notifications/subscriptions/acknowledged", `{}`, Listeners, ""},
		{"notifications/tools/list_changed", ``, Everyone, ""},
		{"notifications/resources/list_changed", ``, Everyone, ""},
		{"notifications/message", `{"level":"info","data":"x"}`, Busy, ""},
		{"notifications/tasks/status", `{}`, Busy, ""},
	} {
		a, uri := AudienceOf(tc.method, json.RawMessage(tc.params))
		if a != tc.want || uri != tc.uri {
			t.Errorf("%s: %v %q, want %v %q", tc.method, a, uri, tc.want, tc.uri)
		}
	}
}
