package check

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// The checks of a retry look for the prompt that asks for input once a
// run, whichever of them asks first: each prompt is got without answers
// once, and every check still retries it with its own.
func TestInputAskedForOnceARun(t *testing.T) {
	t.Parallel()
	ids := []string{"modern.input-missing", "modern.input-extra", "modern.input-invalid", "modern.request-state", "modern.input-declined"}
	tg, srv := fake{transport: "http", era: "modern", change: mrtrChange()}.targetServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
	defer cancel()
	report, err := Run(ctx, tg, Options{Only: ids, Strict: true, CheckTimeout: patient(20 * time.Second)})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, r := range report.Results {
		if r.Status != Passed {
			t.Errorf("%s", describeResult(r))
		}
	}
	first := map[string]int{}
	retries := 0
	for _, r := range srv.Requests() {
		if r.RPCMethod != "prompts/get" {
			continue
		}
		params := member(json.RawMessage(r.Body), "params")
		if member(params, "inputResponses") != nil {
			retries++
			continue
		}
		first[str1(member(params, "name"))]++
	}
	for name, n := range first {
		if n != 1 {
			t.Errorf("prompt %q got without answers %d times in one run, not once", name, n)
		}
	}
	if first["ask"] == 0 {
		t.Errorf("the prompt that asks was never got (seen: %v)", first)
	}
	if retries < len(ids) {
		t.Errorf("%d retries, fewer than the %d checks that retry", retries, len(ids))
	}
}
