package safefile

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A large file is read into one buffer of its size: the bytes allocated
// (which no machine's speed changes) are the file's, not the doubling
// buffers of io.ReadAll, about twice as many.
func TestReadAllocatesTheFileOnce(t *testing.T) {
	const size = 8 << 20
	path := filepath.Join(t.TempDir(), "data.jsonl")
	want := bytes.Repeat([]byte("x"), size)
	if err := os.WriteFile(path, want, 0o600); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := Read(path)
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, %v", len(got), err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > size+size/8 {
		t.Errorf("reading %d MiB allocated %.1f MiB", size>>20, float64(n)/(1<<20))
	}

}
