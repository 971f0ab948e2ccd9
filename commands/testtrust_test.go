package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/testfile"
)

// A test file mcpv test finds by itself runs only once its content is
// trusted (mcpv trust FILE), as a project config file's server: a cloned
// repository's file could start any command, or send the environment to
// a URL. A file named on the command line runs, as named.
func TestTestFoundFilesNeedTrust(t *testing.T) {
	t.Parallel()
	ping := demoServer + "steps:\n  - ping:\n"
	w, dir := testWorld(t, map[string]string{"smoke.mcpv.yaml": ping})
	os.Mkdir(filepath.Join(dir, testfile.Dir), 0o755)
	os.WriteFile(filepath.Join(dir, testfile.Dir, "more.yaml"), []byte(ping), 0o644)
	marker := filepath.Join(dir, "ran")
	os.WriteFile(filepath.Join(dir, "evil.mcpv.yaml"), []byte("server: {command: [sh, -c, 'touch "+marker+"']}\nsteps:\n  - ping:\n"), 0o644)

	r := w.mcpv(t, "", "test")
	want := "mcpv: evil.mcpv.yaml is not trusted: a test file found without being named runs only once trusted; review it, then run: mcpv trust evil.mcpv.yaml (or name it: mcpv test evil.mcpv.yaml)\n" +
		"mcpv: smoke.mcpv.yaml is not trusted: a test file found without being named runs only once trusted; review it, then run: mcpv trust smoke.mcpv.yaml (or name it: mcpv test smoke.mcpv.yaml)\n" +
		"mcpv: mcpv-tests/more.yaml is not trusted: a test file found without being named runs only once trusted; review it, then run: mcpv trust mcpv-tests/more.yaml (or name it: mcpv test mcpv-tests/more.yaml)\n"
	if r.code != exitcode.Usage || r.stdout != "" || r.stderr != want {
		t.Errorf("untrusted: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and:\n%s", r.code, r.stdout, r.stderr, want)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("an untrusted test file's server ran")
	}

	r = w.mcpv(t, "", "trust", "smoke.mcpv.yaml", "mcpv-tests/more.yaml")
	var rec struct {
		File   string
		SHA256 string
		Test   bool
	}
	if err := json.Unmarshal([]byte(strings.SplitN(r.stdout, "\n", 2)[0]), &rec); r.code != 0 || err != nil ||
		rec.File != filepath.Join(dir, "smoke.mcpv.yaml") || !rec.Test || len(rec.SHA256) != 64 {
		t.Errorf("trust: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	os.Remove(filepath.Join(dir, "evil.mcpv.yaml"))
	if r := w.mcpv(t, "", "test"); r.code != 0 || !strings.Contains(r.stdout, "(2 files, ") {
		t.Errorf("trusted: exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}

	// A change needs trust again.
	os.WriteFile(filepath.Join(dir, "smoke.mcpv.yaml"), []byte(ping+"  - info:\n"), 0o644)
	if r := w.mcpv(t, "", "test"); r.code != exitcode.Usage || !strings.HasPrefix(r.stderr, "mcpv: smoke.mcpv.yaml is not trusted") {
		t.Errorf("changed: exit %d, stderr %q", r.code, r.stderr)
	}
	// Named, it runs: the way for CI, whose checkout is its own.
	if r := w.mcpv(t, "", "test", "smoke.mcpv.yaml", testfile.Dir); r.code != 0 || !strings.Contains(r.stdout, "(2 files, ") {
		t.Errorf("named: exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}
}

// A found file's name is the repository's: it is shown escaped.
func TestTestUntrustedNameEscaped(t *testing.T) {
	t.Parallel()
	name := "a\x1b]0;owned\a.mcpv.yaml"
	w, _ := testWorld(t, map[string]string{})
	if err := os.WriteFile(filepath.Join(w.env.Cwd, name), []byte(demoServer+"steps:\n  - ping:\n"), 0o644); err != nil {
		t.Skip("no such file names here:", err)
	}
	r := w.mcpv(t, "", "test")
	if r.code != exitcode.Usage || strings.ContainsAny(r.stderr, "\x1b\a") || !strings.Contains(r.stderr, `a\x1b]0;owned\x07.mcpv.yaml is not trusted`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// In mcpv-tests itself, a file named as "a.yaml" is still one mcpv test
// finds by itself: trust records it as a test file, and a later mcpv test
// from the parent directory runs it.
func TestTrustTestFileFromItsDirectory(t *testing.T) {
	t.Parallel()
	ping := demoServer + "steps:\n  - ping:\n"
	w, dir := testWorld(t, map[string]string{})
	tests := filepath.Join(dir, testfile.Dir)
	if err := os.Mkdir(tests, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tests, "a.yaml"), []byte(ping), 0o644); err != nil {
		t.Fatal(err)
	}
	w.env.Cwd = tests
	r := w.mcpv(t, "", "trust", "a.yaml")
	var rec struct {
		File string
		Test bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &rec); r.code != 0 || err != nil || rec.File != filepath.Join(tests, "a.yaml") || !rec.Test {
		t.Fatalf("trust: exit %d, stderr %q, stdout %q", r.code, r.stderr, r.stdout)
	}
	w.env.Cwd = dir
	if r := w.mcpv(t, "", "test"); r.code != 0 || !strings.Contains(r.stdout, "(1 file") {
		t.Errorf("trusted: exit %d, stderr %q:\n%s", r.code, r.stderr, r.stdout)
	}
}
