package subscription

import (
	"slices"
	"testing"
)

func TestShared(t *testing.T) {
	var s Shared[string]
	if fwd, _ := s.Subscribe("a", "u"); !fwd {
		t.Error("the first subscriber is not forwarded")
	}
	if fwd, _ := s.Subscribe("a", "u"); fwd {
		t.Error("a second subscribe of the same holder is forwarded")
	}
	fwd, undo := s.Subscribe("b", "u")
	if fwd {
		t.Error("a second holder is forwarded")
	}
	undo()
	if s.Holds("b", "u") || !s.Holds("a", "u") {
		t.Error("undo took back the wrong note")
	}
	s.Subscribe("b", "u")
	if s.Unsubscribe("a", "u") {
		t.Error("an unsubscribe is forwarded while b holds u")
	}
	if s.Unsubscribe("a", "u") {
		t.Error("an unsubscribe of a holder that holds nothing is forwarded while b holds u")
	}
	if !s.Unsubscribe("c", "v") {
		t.Error("an unsubscribe of what no one holds is not left to the server")
	}
	s.Subscribe("b", "v")
	s.Subscribe("a", "v")
	if got := s.Leave("b"); !slices.Equal(got, []string{"u"}) {
		t.Errorf("b leaving ends %v", got)
	}
	if !s.Holds("a", "v") || s.Holds("b", "v") {
		t.Error("after b left")
	}
}
