package testkit

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
	"testing"
)

// Leak finds a secret in each encoding a server may echo it in, inside
// longer text, and nothing once each is masked.
func TestLeak(t *testing.T) {
	t.Parallel()
	const secret = `pw"q\x/y+z &é<9`
	goJSON, _ := json.Marshal(secret)
	twice, _ := json.Marshal(string(goJSON))
	std := base64.StdEncoding
	for name, text := range map[string]string{
		"as is":          "login failed for " + secret + ".",
		"JSON":           `{"m":` + string(goJSON) + `}`,
		"JSON twice":     `{"m":` + string(twice) + `}`,
		"ASCII JSON":     `{"m":"pw\"q\\x\/y+z &\u00e9\u003c9"}`,
		"query":          "?a=" + url.QueryEscape(secret) + "&b=1",
		"path":           "/x/" + url.PathEscape(secret) + "/y",
		"base64":         "token " + std.EncodeToString([]byte(secret)) + " end",
		"base64 raw url": base64.RawURLEncoding.EncodeToString([]byte(secret)),
		"base64 at 1":    std.EncodeToString([]byte("x" + secret + "tail")),
		"base64 at 2":    std.EncodeToString([]byte("xy" + secret + "tail")),
		"base64 in JSON": `"` + base64.URLEncoding.EncodeToString([]byte("user:"+secret)) + `"`,
		"URL in JSON":    `{"u":"https://h/?p=` + url.QueryEscape(secret) + `"}`,
		"XML":            `<failure message="pw&#34;q\x/y+z &amp;é&lt;9"/>`,
	} {
		if Leak(text, secret) == "" {
			t.Errorf("%s: %q not found in %q", name, secret, text)
		}
	}
	masked := "login failed for ***. " + std.EncodeToString([]byte("xy"))[:2] + "***" + " %2F***"
	if f := Leak(masked, secret); f != "" {
		t.Errorf("found %s in %q", f, masked)
	}
	if f := Leak(strings.Repeat("%zz\\u12", 10), secret); f != "" {
		t.Errorf("found %s in junk", f)
	}
}
