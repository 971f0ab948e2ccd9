package pin

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/surface"
)

func TestReadSurfaceFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	read := func(p string) ([]byte, error) { return os.ReadFile(p) }

	pinPath := write("pins.json", string((&File{Servers: []*Server{record(t, demo())}}).Marshal()))
	sf, err := ReadSurfaceFile(pinPath, read)
	if err != nil || sf.Format != "pin" || len(sf.Servers) != 1 || sf.Servers[0].Name != "demo" || len(sf.Servers[0].Tools) != 2 ||
		!sf.Servers[0].HasIdentity || *sf.Servers[0].Instructions != "Use add to add." {
		t.Fatalf("pin: %+v, %v", sf, err)
	}
	data, _ := os.ReadFile(pinPath)
	if line := sf.Lines("tool", "echo"); line == 0 || !strings.Contains(strings.Split(string(data), "\n")[line-1], `"name": "echo"`) {
		t.Errorf("the line of tool echo: %d", line)
	}
	if line := sf.Lines("resource template", "demo://items/{id}"); line == 0 {
		t.Errorf("the template has no line")
	}

	snap := surface.Snapshot{Tools: demo().Tools}
	snapPath := write("demo.json", string(snap.Marshal()))
	sf, err = ReadSurfaceFile(snapPath, read)
	if err != nil || sf.Format != "snapshot" || sf.Servers[0].Name != "demo" || sf.Servers[0].HasIdentity || sf.Servers[0].HasResources {
		t.Fatalf("snapshot: %+v, %v", sf, err)
	}
	write("demo.responses.json", `{"server":{"serverInfo":{"name":"rec"},"instructions":"Hi."},"resources":[{"uri":"a://1","resource":{"uri":"a://1","name":"one"}}]}`)
	sf, err = ReadSurfaceFile(snapPath, read)
	if err != nil || sf.Format != "recording" || !sf.Servers[0].HasIdentity || *sf.Servers[0].Instructions != "Hi." || len(sf.Servers[0].Resources) != 1 {
		t.Fatalf("recording: %+v, %v", sf, err)
	}

	for name, content := range map[string]string{"junk.json": "not json", "other.json": `{"hello": 1}`} {
		if _, err := ReadSurfaceFile(write(name, content), read); err == nil || !strings.Contains(err.Error(), "not a pin file, snapshot or recording") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ReadSurfaceFile(filepath.Join(dir, "none.json"), read); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
