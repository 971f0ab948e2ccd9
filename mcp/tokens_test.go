package mcp

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTokens: two owners with the same token get tokens of the relay's
// own, and each progress goes back to its owner with the owner's token;
// released, or not the relay's, a token goes nowhere.
func TestTokens(t *testing.T) {
	t.Parallel()
	var toks Tokens[string]
	toks.Prefix = "r-"
	pa, releaseA := toks.Swap(json.RawMessage(`{"name":"x","_meta":{"progressToken":7}}`), "a")
	pb, releaseB := toks.Swap(json.RawMessage(`{"_meta":{"progressToken":7}}`), "b")
	defer releaseB()
	if diff := cmp.Diff(`{"_meta":{"progressToken":"r-1"},"name":"x"}`, string(pa)); diff != "" {
		t.Errorf("a's params (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(`{"_meta":{"progressToken":"r-2"}}`, string(pb)); diff != "" {
		t.Errorf("b's params (-want +got):\n%s", diff)
	}
	for _, tc := range []struct {
		params, owner, out string
		ok                 bool
	}{
		{`{"progressToken":"r-1","progress":1}`, "a", `{"progress":1,"progressToken":7}`, true},
		{`{"progressToken":"r-2","progress":2}`, "b", `{"progress":2,"progressToken":7}`, true},
		{`{"progressToken":7,"progress":3}`, "", "", false},
	} {
		owner, out, ok := toks.Back(json.RawMessage(tc.params))
		if owner != tc.owner || string(out) != tc.out || ok != tc.ok {
			t.Errorf("Back(%s) = %q, %s, %v; want %q, %s, %v", tc.params, owner, out, ok, tc.owner, tc.out, tc.ok)
		}
	}
	releaseA()
	if _, _, ok := toks.Back(json.RawMessage(`{"progressToken":"r-1","progress":4}`)); ok {
		t.Errorf("a released token still goes back")
	}
	same, release := toks.Swap(json.RawMessage(`{"name":"x"}`), "a")
	release()
	if string(same) != `{"name":"x"}` {
		t.Errorf("params without a token: %s", same)
	}
}

// TestTokensSwapWith: set replaces the token found in params with ours,
// and its params are the ones sent; the owner's token is kept apart from
// params, which may be let go of once sent; params set cannot carry ours
// are sent as they were, and take no token.
func TestTokensSwapWith(t *testing.T) {
	t.Parallel()
	var toks Tokens[string]
	toks.Prefix = "k"
	params := json.RawMessage(`{"_meta":{"progressToken":"mine"},"name":"x"}`)
	var gotTok, gotOurs string
	p, release := toks.SwapWith(params, "a", func(params, tok, ours json.RawMessage) (json.RawMessage, error) {
		gotTok, gotOurs = string(tok), string(ours)
		return json.RawMessage(`{"sent":true}`), nil
	})
	defer release()
	if string(p) != `{"sent":true}` || gotTok != `"mine"` || gotOurs != `"k1"` {
		t.Errorf("SwapWith = %s, with set(%s, %s)", p, gotTok, gotOurs)
	}
	copy(params, `{"_meta":{"progressToken":"gone"}`)
	owner, out, ok := toks.Back(json.RawMessage(`{"progressToken":"k1","progress":1}`))
	if owner != "a" || string(out) != `{"progress":1,"progressToken":"mine"}` || !ok {
		t.Errorf("Back = %q, %s, %v", owner, out, ok)
	}
	p, release = toks.SwapWith(params, "b", func(json.RawMessage, json.RawMessage, json.RawMessage) (json.RawMessage, error) {
		return nil, errors.New("no")
	})
	release()
	if string(p) != string(params) {
		t.Errorf("params set refused: %s", p)
	}
	if _, _, ok := toks.Back(json.RawMessage(`{"progressToken":"k2","progress":1}`)); ok {
		t.Errorf("a token set refused goes back")
	}
}
