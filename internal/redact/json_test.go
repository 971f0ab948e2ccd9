package redact

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/testkit"
)

func TestJSONForms(t *testing.T) {
	got := JSONForms([]string{`a/b"c&d`, "pässwörd-😀", "plain-token-value"})
	for _, want := range []string{
		`p\u00e4ssw\u00f6rd-\ud83d\ude00`, // by Python, past ASCII
		`a/b"c&d`,                         // as it is
		`a/b\"c&d`,                        // escaped the least (JavaScript, Python)
		`a/b\"c\u0026d`,                   // by Go
		`a\/b\"c&d`,                       // by PHP
		`a/b\\\"c&d`,                      // twice
		`a\\/b\\\"c&d`,                    // PHP's, escaped again
		`a\\\/b\\\"c&d`,                   // PHP's, escaped again by PHP
		`a/b\\\"c\\u0026d`,                // Go's, escaped again
		"plain-token-value",               // nothing to escape: one form
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no form %s in %q", want, got)
		}
	}
	if n := len(got); n != len(slices.Compact(slices.Sorted(slices.Values(got)))) {
		t.Errorf("forms repeated: %q", got)
	}
	if slices.Index(got, "plain-token-value") != len(got)-1 {
		t.Errorf("a value with nothing to escape has more than one form: %q", got)
	}
}

// A PHP server's JSON writes / as \/: a secret with a slash is masked
// there too.
func TestJSONFormsMaskPHP(t *testing.T) {
	s := NewScrubber(nil)
	s.Add(JSONForms([]string{"https://h.example/cb?k=s3cr3t"})...)
	php := `{"text":"https:\/\/h.example\/cb?k=s3cr3t"}`
	if got := string(s.Mask([]byte(php))); got != `{"text":"`+Mask+`"}` {
		t.Errorf("masked: %s", got)
	}
}

// What mcpv sends under a secret's name is known to be one, at any
// depth of a tool's or a prompt's arguments and of an answer to a
// server's question, and all of what such a member holds; names about
// a secret, MCP's progress token and ordinary words are not.
func TestSent(t *testing.T) {
	for msg, want := range map[string][]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"login","arguments":{"user":"bob","password":"hunter2","db":{"conn":[{"apiKey":"k-1"}]},"n":3},"_meta":{"progressToken":"p-1234"}}}`: {"hunter2", "k-1"},
		`{"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"p","arguments":{"credentials":{"user":"bob","pin":"0000"},"db_pass":"x\"y"}}}`:                                                     {"bob", "0000", `x"y`},
		`{"jsonrpc":"2.0","id":"s1","result":{"action":"accept","content":{"token":"t-9","keyword":"go"}}}`:                                                                                                  {"t-9"},
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"x","arguments":{"dbPass":"pw-1","userPwd":"pw-2","compass":"north"}}}`:                                                              {"pw-1", "pw-2"},
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"token_type":"bearer","max_tokens":"100","keyword":"k","author":"ada","key":"user:42","secret_name":"n"}}}`:         nil,
		`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"password":"not an argument"}}`:                                                                                                             nil,
		`not json {"params":{"arguments":{"password":`: nil,
	} {
		if diff := cmp.Diff(want, Sent([]byte(msg))); diff != "" {
			t.Errorf("Sent(%s) (-want +got):\n%s", msg, diff)
		}
	}
}

// Sent reads what a message sends in one pass, however deep it nests or
// whatever it holds, and finds only strings the message holds.
func FuzzSent(f *testing.F) {
	deep := `{"params":{"arguments":` + strings.Repeat(`{"password":[`, 50_000) + `"s3cr3t"` + strings.Repeat(`]}`, 50_000) + `}}`
	testkit.SeedFuzz(f, []string{`{"id":1,"method":"tools/call","params":{"name":"x","arguments":{"db":{"password":"hunter2"}}}}`, deep}, testkit.HostileJSON())
	f.Fuzz(func(t *testing.T, msg []byte) {
		for _, s := range Sent(msg) {
			if js, _ := json.Marshal(s); !bytes.Contains(msg, []byte(s)) && !bytes.Contains(msg, js[1:len(js)-1]) && !strings.ContainsRune(string(msg), '\\') {
				t.Errorf("Sent(%q) found %q, which it does not hold", msg, s)
			}
		}
	})
}
