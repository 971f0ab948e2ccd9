package toolargs

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
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
	// A caller that gives up does not spoil the schema for the next one.
	ctx, cancel := context.WithCancelCause(t.Context())
	stop := errors.New("interrupted")
	cancel(stop)
	if _, err := Compile(ctx, schema); !errors.Is(err, stop) {
		t.Errorf("with its context ended: %v", err)
	}
	if v, err := Compile(t.Context(), schema); v != first || err != nil {
		t.Errorf("after an interrupted caller: %p, %v", v, err)
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
