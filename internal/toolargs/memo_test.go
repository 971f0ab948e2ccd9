package toolargs

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// A batch or a session calling one tool many times compiles its schema
// once: the same bytes give the same Validator, also to callers racing for
// it, and an invalid schema gives its error each time.
func TestCompileOnce(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["memo-once"]}`)
	first, err := Compile(t.Context(), schema)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			v, err := Compile(t.Context(), append(json.RawMessage(nil), schema...))
			if err != nil || v != first {
				t.Errorf("Compile again: %p, %v; want %p", v, err, first)
			}
		})
	}
	wg.Wait()
	bad := json.RawMessage(`{"type":"no-such-type","description":"memo-once"}`)
	for range 2 {
		if _, err := Compile(t.Context(), bad); err == nil {
			t.Error("an invalid schema compiled")
		}
	}
}

// A compilation its caller gave up on still finishes, once, for the next
// caller.
func TestCompileGivenUpFinishes(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	m := schemaMemo{compile: func(s json.RawMessage) (*Validator, error) {
		calls.Add(1)
		close(started)
		<-release
		return compile(s)
	}}
	schema := json.RawMessage(`{"type":"integer"}`)
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("interrupted")
	errc := make(chan error, 1)
	go func() {
		_, err := m.get(ctx, schema)
		errc <- err
	}()
	<-started
	cancel(stop)
	if err := <-errc; !errors.Is(err, stop) {
		t.Fatalf("with its context ended: %v", err)
	}
	close(release)
	v, err := m.get(t.Context(), schema)
	if v == nil || err != nil {
		t.Fatalf("the next caller: %v, %v", v, err)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("compiled %d times, want once", n)
	}
}

// The memo is bounded: beyond memoEntries schemas it forgets the least
// recently used, and keeps the one in use.
func TestCompileMemoIsBounded(t *testing.T) {
	var m schemaMemo
	schema := func(i int) json.RawMessage {
		return json.RawMessage(`{"maximum":` + strconv.Itoa(i) + `}`)
	}
	hot, err := m.get(t.Context(), schema(0))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2*memoEntries; i++ {
		if _, err := m.get(t.Context(), schema(i)); err != nil {
			t.Fatal(err)
		}
		if again, _ := m.get(t.Context(), schema(0)); again != hot {
			t.Fatalf("after %d schemas the one in use was compiled again", i)
		}
	}
	if n := m.recent.Len(); n != memoEntries || len(m.entries) != memoEntries {
		t.Errorf("%d entries (%d in the index), want %d", n, len(m.entries), memoEntries)
	}
	big := json.RawMessage(`{"description":"` + string(make([]byte, memoBytes)) + `"}`)
	for i := range big[16 : len(big)-2] {
		big[16+i] = 'x'
	}
	if _, err := m.get(t.Context(), big); err != nil {
		t.Fatal(err)
	}
	if m.recent.Len() != 1 || m.size != len(big) {
		t.Errorf("after a schema of memoBytes: %d entries, %d bytes; want only it", m.recent.Len(), m.size)
	}
}
