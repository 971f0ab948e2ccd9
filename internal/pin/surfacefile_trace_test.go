package pin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/trace"
)

// A trace is a surface: who the server said it was and the items of the
// lists the run asked for, every page.
func TestReadSurfaceFileOfATrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ci.trace.jsonl")
	w, err := trace.Create(path, time.Now(), nil, trace.Header{Mcpv: "dev"})
	if err != nil {
		t.Fatal(err)
	}
	s := w.Session()
	for _, m := range []string{
		`> {"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`< {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"real","version":"2"},"instructions":"Hi.","capabilities":{}}}`,
		`> {"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`< {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}],"nextCursor":"2"}}`,
		`> {"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"2"}}`,
		`< {"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"b","description":"second","inputSchema":{"type":"object"}}]}}`,
		`> {"jsonrpc":"2.0","id":4,"method":"resources/list"}`,
		`< {"jsonrpc":"2.0","id":4,"result":{"resources":[{"uri":"file:///r","name":"r"}]}}`,
	} {
		s.Message(strings.HasPrefix(m, "> "), []byte(m[2:]))
	}
	w.End(0, "")
	sf, err := ReadSurfaceFile(path, safefile.Read)
	if err != nil {
		t.Fatal(err)
	}
	if sf.Format != "trace" || len(sf.Servers) != 1 {
		t.Fatalf("%+v", sf)
	}
	srv := sf.Servers[0]
	if srv.Name != "real" || !srv.HasIdentity || *srv.Instructions != "Hi." || srv.ProtocolVersion != "2025-11-25" ||
		len(srv.Tools) != 2 || len(srv.Resources) != 1 || !srv.HasResources {
		t.Errorf("%+v", srv)
	}
	os.WriteFile(path, []byte(`{"type":"trace","version":9}`+"\n"), 0o600)
	if _, err := ReadSurfaceFile(path, safefile.Read); err == nil || !strings.Contains(err.Error(), "version 9") {
		t.Errorf("a trace of another version: %v", err)
	}
}
