package load

import (
	"encoding/json"
	"testing"
)

// A log message whose params do not decode is counted as malformed, not
// as a message with no level.
func TestLogsMalformedParams(t *testing.T) {
	var l Logs
	l.Note(json.RawMessage(`{"level":7,"data":"x"}`))
	l.Note(json.RawMessage(`{"data":"y"}`))
	s := l.summary(func(s string) string { return s })
	if s.Count != 2 || s.Levels["malformed"] != 1 || s.Levels["none"] != 1 {
		t.Errorf("%+v", s)
	}
}
