package check

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A check that ignores its context past its time, then keeps writing its
// notes and what it sent, is left to itself: the runner returns the
// time's outcome, and nothing it does afterwards (masking, recording)
// touches what the check goes on writing. Run under -race, where the
// runner once rewrote t.out while the abandoned check still wrote it.
func TestOverrunCheckIsLeftAlone(t *testing.T) {
	r := newRunner(t.Context(), &Target{Server: "overrun"}, Options{CheckTimeout: time.Millisecond, Secrets: []string{"s3cret"}}.withDefaults())
	r.facts = &facts{}
	r.leaveAfter = time.Millisecond
	stop, ended := make(chan struct{}), make(chan struct{})
	c := &Check{ID: "test.overrun", run: func(ct *T) {
		defer close(ended)
		for {
			ct.Note("still writing s3cret")
			ct.Sent("more s3cret")
			ct.Got("and more")
			select {
			case <-stop:
				return
			default:
			}
			time.Sleep(time.Microsecond)
		}
	}}
	out := r.runCheck(context.Background(), c, nil)
	// The check writes on while the runner's outcome is read and kept.
	for range 100 {
		_ = out.Message + out.Sent + strings.Join(out.Notes, "")
	}
	close(stop)
	select {
	case <-ended:
	case <-time.After(time.Minute):
		t.Fatal("the check did not stop when told")
	}
	if out.Status != Inconclusive || !strings.Contains(out.Message, "--check-timeout") {
		t.Errorf("outcome %+v; want inconclusive, naming --check-timeout", out)
	}
	if strings.Contains(out.Sent+strings.Join(out.Notes, ""), "s3cret") {
		t.Errorf("a secret in the outcome: %+v", out)
	}
}
