//go:build unix

package trace

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Under a file size limit (a disk that fills), the writer is told the
// write failed, the process lives on (SIGXFSZ does not kill it), and the
// file holds whole lines alone.
func TestFileSizeLimit(t *testing.T) {
	if os.Getenv("MCPV_TRACE_FSIZE_CHILD") != "" {
		path := os.Getenv("MCPV_TRACE_FSIZE_CHILD")
		w, err := Create(path, time.Now(), nil, Header{Mcpv: "dev"})
		if err != nil {
			os.Exit(3)
		}
		failed := 0
		w.Failed = func(error) { failed++ }
		s := w.Session()
		for i := 0; i < 2000; i++ {
			s.Message(true, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"padding-padding-padding"}}`))
		}
		if w.End(0, "") == nil || failed != 1 {
			os.Exit(4)
		}
		os.Exit(0)
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	cmd := exec.Command("sh", "-c", `ulimit -f 20 && exec "$0" -test.run '^TestFileSizeLimit$'`, os.Args[0])
	cmd.Env = append(os.Environ(), "MCPV_TRACE_FSIZE_CHILD="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the writer under a 10 KiB limit: %v\n%s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) == 0 || len(data) > 20*512 || data[len(data)-1] != '\n' {
		t.Fatalf("%d bytes, ending %q", len(data), data[max(0, len(data)-40):])
	}
	if _, err := Read(data); err != nil {
		t.Error(err)
	}
}
