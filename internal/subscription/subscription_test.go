package subscription

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func subscribe(t *testing.T, s *Shared[string], h, uri string) (bool, func(bool)) {
	t.Helper()
	fwd, done, err := s.Subscribe(context.Background(), h, uri)
	if err != nil {
		t.Fatal(err)
	}
	return fwd, done
}

func unsubscribe(t *testing.T, s *Shared[string], h, uri string) bool {
	t.Helper()
	fwd, done, err := s.Unsubscribe(context.Background(), h, uri)
	if err != nil {
		t.Fatal(err)
	}
	done()
	return fwd
}

func TestShared(t *testing.T) {
	var s Shared[string]
	fwd, done := subscribe(t, &s, "a", "u")
	if !fwd {
		t.Error("the first subscriber is not forwarded")
	}
	done(true)
	if fwd, _ := subscribe(t, &s, "a", "u"); fwd {
		t.Error("a second subscribe of the same holder is forwarded")
	}
	if fwd, _ := subscribe(t, &s, "b", "u"); fwd {
		t.Error("a second holder is forwarded")
	}
	if unsubscribe(t, &s, "a", "u") {
		t.Error("an unsubscribe is forwarded while b holds u")
	}
	if unsubscribe(t, &s, "a", "u") {
		t.Error("an unsubscribe of a holder that holds nothing is forwarded while b holds u")
	}
	if !unsubscribe(t, &s, "c", "v") {
		t.Error("an unsubscribe of what no one holds is not left to the server")
	}
	_, done = subscribe(t, &s, "b", "v")
	done(true)
	subscribe(t, &s, "a", "v")
	ended, leftDone := s.Leave("b")
	if !slices.Equal(ended, []string{"u"}) {
		t.Errorf("b leaving ends %v", ended)
	}
	if !s.Holds("a", "v") || s.Holds("b", "v") {
		t.Error("after b left")
	}
	leftDone("u")
	if fwd, _ := subscribe(t, &s, "c", "u"); !fwd {
		t.Error("a subscribe after the last holder left is not forwarded")
	}
}

// A refused subscribe takes its note back, and the next subscriber goes
// to the server again.
func TestSharedRefused(t *testing.T) {
	var s Shared[string]
	_, done := subscribe(t, &s, "a", "u")
	done(false)
	if s.Holds("a", "u") {
		t.Error("a refused subscriber holds u")
	}
	if fwd, _ := subscribe(t, &s, "b", "u"); !fwd {
		t.Error("the subscriber after a refusal is not forwarded")
	}
}

// A holder that joins while the first subscribe is on its way waits for
// its answer: it holds the subscription if the server took it, and goes
// to the server itself if it refused it (it was told it held one the
// server never made).
func TestSharedJoinWaitsForTheFirst(t *testing.T) {
	for _, took := range []bool{true, false} {
		var s Shared[string]
		_, doneA := subscribe(t, &s, "a", "u")
		joined := make(chan bool)
		go func() {
			fwd, done, err := s.Subscribe(context.Background(), "b", "u")
			if err != nil {
				t.Error(err)
			}
			done(true)
			joined <- fwd
		}()
		select {
		case <-joined:
			t.Fatal("b joined before a's subscribe was answered")
		case <-time.After(50 * time.Millisecond):
		}
		doneA(took)
		select {
		case fwd := <-joined:
			if fwd == took {
				t.Errorf("server took a's subscribe: %v; b forwarded: %v", took, fwd)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("b still waits after a's answer")
		}
		if !s.Holds("b", "u") {
			t.Errorf("b does not hold u (a's taken: %v)", took)
		}
	}
}

// The subscribe that follows the last holder's unsubscribe waits for it,
// so that it cannot reach the server first.
func TestSharedSubscribeWaitsForAnUnsubscribe(t *testing.T) {
	var s Shared[string]
	_, done := subscribe(t, &s, "a", "u")
	done(true)
	fwd, unsubscribed, err := s.Unsubscribe(context.Background(), "a", "u")
	if err != nil || !fwd {
		t.Fatalf("the last holder's unsubscribe: forward %v, %v", fwd, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := s.Subscribe(ctx, "b", "u"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a subscribe while the unsubscribe is in flight: %v, want it to wait to the deadline", err)
	}
	unsubscribed()
	if fwd, _ := subscribe(t, &s, "b", "u"); !fwd {
		t.Error("the subscribe after the unsubscribe is not forwarded")
	}
}
