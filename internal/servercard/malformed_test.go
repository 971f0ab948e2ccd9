package servercard

import (
	"encoding/json"
	"strings"
	"testing"
)

// A live serverInfo that does not decode is a disagreement said, not a
// server that agrees by saying nothing; an identity of one is an error.
func TestMalformedServerInfo(t *testing.T) {
	d := Verify(Card{Name: "com.example/weather"}, Live{ServerInfo: json.RawMessage(`{"name":5}`)})
	if len(d) != 1 || d[0].Field != "serverInfo" || !strings.Contains(d[0].Message(), "does not decode") {
		t.Errorf("%+v", d)
	}
	if _, err := IdentityOf(json.RawMessage(`{"serverInfo":{"name":["a"]}}`)); err == nil {
		t.Error("a serverInfo whose name is no string made an identity")
	}
}
