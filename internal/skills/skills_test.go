package skills

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// client is a modern client of a mcptest.SkillsServer, and the server.
func client(t *testing.T, tamper *atomic.Bool) (*mcp.Client, *mcptest.HTTPServer) {
	t.Helper()
	srv := mcptest.SkillsServer(t, true, tamper)
	tr, err := mcp.NewHTTPTransport(mcp.HTTPOptions{URL: srv.URL, Mode: mcp.ModeStreamable})
	if err != nil {
		t.Fatal(err)
	}
	sess := mcp.NewSession(tr, mcp.SessionOptions{})
	t.Cleanup(func() { sess.Close(context.Background()) })
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	c, err := mcp.Initialize(ctx, sess, mcp.ClientOptions{ProtocolVersion: mcp.ModernVersion})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	return c, srv
}

// reads counts the resources/read requests srv received.
func reads(srv *mcptest.HTTPServer) int {
	n := 0
	for _, q := range srv.Requests() {
		if q.RPCMethod == "resources/read" {
			n++
		}
	}
	return n
}

func TestFind(t *testing.T) {
	t.Parallel()
	c, srv := client(t, new(atomic.Bool))
	for _, arg := range []string{"pdf-processing", "skill://pdf-processing/SKILL.md"} {
		s, err := Find(t.Context(), c, arg)
		if err != nil || s.URI != "skill://pdf-processing/SKILL.md" || s.Name != "pdf-processing" || len(s.Resources) != 2 {
			t.Errorf("Find(%s) = %+v, %v", arg, s, err)
		}
	}
	if s, err := Find(t.Context(), c, "acme/support/refunds"); err != nil || s.URI != "skill://acme/support/refunds/SKILL.md" || !s.Dynamic {
		t.Errorf("Find by path = %+v, %v", s, err)
	}
	var r *Refusal
	_, err := Find(t.Context(), c, "refunds")
	if !errors.As(err, &r) || err.Error() != `2 skills are called "refunds": name one by its URI ("skill://acme/billing/refunds/SKILL.md", "skill://acme/support/refunds/SKILL.md")` {
		t.Errorf("a name two skills share: %v", err)
	}
	_, err = Find(t.Context(), c, "pdf-procesing")
	if !errors.As(err, &r) || !strings.Contains(err.Error(), `lists no skill "pdf-procesing"; did you mean "pdf-processing"?`) {
		t.Errorf("a misspelt name: %v", err)
	}
	if n := reads(srv); n != 0 {
		t.Errorf("Find read %d files; nothing is read ahead of need", n)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	c, _ := client(t, new(atomic.Bool))
	pdf, err := Find(t.Context(), c, "pdf-processing")
	if err != nil {
		t.Fatal(err)
	}
	data, res, err := Load(t.Context(), c, pdf, func(format string, args ...any) { t.Errorf("warning for a verified skill: "+format, args...) })
	if err != nil || string(data) != mcptest.SkillMD || !strings.Contains(string(res), `"contents"`) {
		t.Errorf("Load = %q, %s, %v", data, res, err)
	}
	refunds, err := Find(t.Context(), c, "acme/billing/refunds")
	if err != nil {
		t.Fatal(err)
	}
	var warned []string
	Load(t.Context(), c, refunds, func(format string, args ...any) { warned = append(warned, format) })
	if len(warned) != 1 || !strings.Contains(warned[0], "not verified against digests") {
		t.Errorf("warnings for a dynamic skill: %q", warned)
	}
}

func TestPull(t *testing.T) {
	t.Parallel()
	var tamper atomic.Bool
	c, srv := client(t, &tamper)
	pdf, err := Find(t.Context(), c, "pdf-processing")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	noWarn := func(format string, args ...any) { t.Errorf("warning: "+format, args...) }
	p, err := Pull(t.Context(), c, pdf, dir, false, noWarn)
	if err != nil {
		t.Fatalf("Pull = %v", err)
	}
	dest := filepath.Join(dir, "pdf-processing")
	if p.URI != pdf.URI || p.Dir != dest || len(p.Files) != 2 || p.Files[1].Path != filepath.Join(dest, "references", "FORMS.md") || p.Files[1].Digest != mcptest.Digest(mcptest.FormsMD) {
		t.Errorf("Pull = %+v", p)
	}
	for rel, want := range map[string]string{"SKILL.md": mcptest.SkillMD, "references/FORMS.md": mcptest.FormsMD} {
		if b, err := os.ReadFile(filepath.Join(dest, rel)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v", rel, b, err)
		}
	}

	var r *Refusal
	if _, err := Pull(t.Context(), c, pdf, dir, false, noWarn); !errors.As(err, &r) || err.Error() != dest+" exists; pass --force to replace it" {
		t.Errorf("Pull again = %v", err)
	}
	refunds, _ := Find(t.Context(), c, "acme/billing/refunds")
	before := reads(srv)
	if _, err := Pull(t.Context(), c, refunds, dir, false, noWarn); !errors.As(err, &r) || !strings.Contains(err.Error(), "publishes dynamic content") {
		t.Errorf("Pull of a dynamic skill = %v", err)
	}
	if reads(srv) != before {
		t.Error("a dynamic skill's files were read before the refusal")
	}

	// A file that fails its digest: nothing written, the directory there
	// left as it was, no temporary directory left behind.
	os.WriteFile(filepath.Join(dest, "mine.txt"), []byte("kept"), 0o644)
	tamper.Store(true)
	var se *Error
	if _, err := Pull(t.Context(), c, pdf, dir, true, noWarn); !errors.As(err, &se) {
		t.Errorf("Pull of a tampered skill = %v, want a *Error", err)
	}
	if b, err := os.ReadFile(filepath.Join(dest, "mine.txt")); err != nil || string(b) != "kept" {
		t.Errorf("the directory changed after a refused pull: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in %s, want the one skill directory", len(entries), dir)
	}
	tamper.Store(false)
	if _, err := Pull(t.Context(), c, pdf, dir, true, noWarn); err != nil {
		t.Fatalf("Pull --force = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, "mine.txt")); !os.IsNotExist(err) {
		t.Errorf("force kept what was in the directory: %v", err)
	}
}

func TestSafeName(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]bool{
		"pdf-processing": true, "refunds.v2": true,
		"": false, ".": false, "..": false, "a/b": false, `a\b`: false, "/abs": false, "a\x1bb": false, "a\u202eb": false,
	} {
		if got := safeName(name); got != want {
			t.Errorf("safeName(%q) = %v, want %v", name, got, want)
		}
	}
}

// TestPullFollowsNoLink: a link in the skill's place (to a directory
// outside, to the home directory, one that loops), as a cloned repository
// may hold one, is refused without --force, and with it replaced by the
// skill's own directory: nothing is written through it.
func TestPullFollowsNoLink(t *testing.T) {
	t.Parallel()
	c, _ := client(t, new(atomic.Bool))
	pdf, err := Find(t.Context(), c, "pdf-processing")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("mine"), 0o600)
	for name, target := range map[string]string{"a directory outside": t.TempDir(), "the home directory": home, "a loop": "pdf-processing"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			dest := filepath.Join(dir, "pdf-processing")
			if err := os.Symlink(target, dest); err != nil {
				t.Fatal(err)
			}
			if _, err := Pull(t.Context(), c, pdf, dir, false, t.Logf); !errors.As(err, new(*Refusal)) {
				t.Errorf("Pull over a link = %v, want it refused", err)
			}
			if _, err := Pull(t.Context(), c, pdf, dir, true, t.Logf); err != nil {
				t.Fatalf("Pull --force over a link = %v", err)
			}
			if fi, err := os.Lstat(dest); err != nil || !fi.IsDir() {
				t.Errorf("%s is not the skill's own directory: %v", dest, err)
			}
			if target != "pdf-processing" {
				entries, _ := os.ReadDir(target)
				for _, e := range entries {
					if e.Name() != ".bashrc" {
						t.Errorf("written through the link: %s", filepath.Join(target, e.Name()))
					}
				}
			}
		})
	}
}
