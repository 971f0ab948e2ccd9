//go:build unix && e2e

package e2e

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// TestExamples runs every test file in examples/ as the docs tell users to
// (mcpv test examples/NAME.mcpv.yaml, from the checkout), and as CI runs it
// (CI set: a missing snapshot fails its step), and checks that nothing is
// written into the checkout either way. A file whose server needs the network (npx,
// uvx) is run by scripts/e2e-everything.sh, which CI runs: here its
// snapshots must be committed and the script must run it.
func TestExamples(t *testing.T) {
	testkit.SkipLong(t, "every example test file, run twice")
	files, err := filepath.Glob("../examples/*.mcpv.yaml")
	if err != nil || len(files) < 2 {
		t.Fatalf("examples: %q, %v", files, err)
	}
	script := readText(t, "../scripts/e2e-everything.sh")
	before := treeOf(t, "../examples")
	snapshot := regexp.MustCompile(`(?m)^\s*(?:- )?snapshot:\s*(\S+)\s*$`)
	ran := 0
	for _, f := range files {
		name := filepath.Base(f)
		text := readText(t, f)
		steps := snapshot.FindAllStringSubmatch(text, -1)
		for _, m := range steps {
			if _, err := os.Stat(filepath.Join("../examples", m[1])); err != nil {
				t.Errorf("%s: its snapshot %s is not committed: %v", name, m[1], err)
			}
		}
		if strings.Contains(text, "command: [npx") || strings.Contains(text, "command: [uvx") {
			if !strings.Contains(script, "examples/"+name) {
				t.Errorf("%s needs the network, and scripts/e2e-everything.sh does not run it", name)
			}
			continue
		}
		for _, ci := range []string{"CI=true", "CI="} {
			cmd := exec.Command(mcpvBin, "test", "examples/"+name)
			cmd.Dir = ".."
			cmd.Env = append(os.Environ(), ci, "NO_COLOR=1")
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "\nPASS ") || strings.Contains(string(out), "written to") {
				t.Errorf("%s mcpv test examples/%s: %v\n%s", ci, name, err, out)
			}
		}
		ran++
	}
	if ran == 0 {
		t.Error("no example runs without the network")
	}
	if after := treeOf(t, "../examples"); !maps.Equal(before, after) {
		t.Errorf("the examples wrote into the checkout: before %q, after %q", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
}

// The testing guide shows the everything server's example file as it is.
func TestTestingGuideShowsTheExample(t *testing.T) {
	guide := readText(t, "../docs/guide/testing.md")
	block := between(t, guide, "tests the reference \"everything\" server:\n\n```yaml\n", "```\n")
	if file := readText(t, "../examples/everything.mcpv.yaml"); block != file {
		t.Errorf("docs/guide/testing.md shows an example other than examples/everything.mcpv.yaml:\n%s", block)
	}
}

// The first command of the README and of the install guide calls a tool
// on the demo server from a fresh checkout, with nothing installed.
func TestFirstCommand(t *testing.T) {
	testkit.SkipLong(t, "the README's first command from a fresh checkout")
	for _, doc := range []string{"README.md", "docs/guide/install.md"} {
		block := between(t, readText(t, "../"+doc), "```sh\n", "```\n")
		var line string
		for l := range strings.Lines(block) {
			if strings.HasPrefix(l, "go run . call ") {
				line, _, _ = strings.Cut(l, "#")
			}
		}
		if line == "" {
			t.Errorf("%s: no 'go run . call' in its first sh block:\n%s", doc, block)
			continue
		}
		cmd := exec.Command("bash", "-c", line)
		cmd.Dir = ".."
		out, err := cmd.Output()
		if err != nil || !strings.Contains(string(out), `"text":"hello"`) {
			t.Errorf("%s: %s: %v\n%s", doc, line, err, out)
		}
	}
}

// treeOf is every file under dir with its content.
func treeOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The README's install block, followed in a login shell of a new user
// (the clone left out: this is the checkout), puts mcpv on PATH: the
// mcpv it runs last is the one it installed.
func TestInstallBlock(t *testing.T) {
	testkit.SkipLong(t, "the README's install block in a new user's login shell")
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command")
	}
	section := between(t, readText(t, "../README.md"), "## Install\n", "\n## ")
	block := between(t, section, "```sh\n", "```\n")
	var script []string
	for l := range strings.Lines(block) {
		if !strings.HasPrefix(l, "git clone ") {
			script = append(script, l)
		}
	}
	home := t.TempDir()
	// What Go's own install instructions have a user add to the profile.
	if err := os.WriteFile(filepath.Join(home, ".profile"), []byte("export PATH=$PATH:"+filepath.Dir(goBin)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	cmd := exec.Command("bash", "-l", "-e", "-c", strings.Join(script, "")+"command -v mcpv\n")
	cmd.Dir = ".."
	cmd.Env = []string{"HOME=" + home, "TERM=dumb", "PATH=/usr/bin:/bin",
		"GOMODCACHE=" + cache("GOMODCACHE"), "GOCACHE=" + cache("GOCACHE"), "GOPROXY=off", "GOTOOLCHAIN=local"}
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-2], "mcpv dev (") || lines[len(lines)-1] != filepath.Join(home, "go", "bin", "mcpv") {
		t.Errorf("the install block in a new login shell: %v\n%s", err, out)
	}
}
