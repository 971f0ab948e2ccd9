//go:build unix && e2e

package e2e

// The other ways into CI that docs/guide/ci.md gives, run as printed but
// for where the release is: the plain shell recipe and the GitLab CI job,
// against a snapshot release served on 127.0.0.1; and the GitHub workflows
// it shows, checked against action.yml's inputs.

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/mcpv/mcpv/internal/testkit"
)

// swap replaces old, which must be in s, with new.
func swap(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q is no longer in:\n%s", old, s)
	}
	return strings.ReplaceAll(s, old, new)
}

// between returns the text of s after start, up to end.
func between(t *testing.T, s, start, end string) string {
	t.Helper()
	_, rest, ok := strings.Cut(s, start)
	text, _, ok2 := strings.Cut(rest, end)
	if !ok || !ok2 {
		t.Fatalf("no %q ... %q", start, end)
	}
	return text
}

func readText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ciWorkspace makes a checkout with the test files in mcpv-tests/: a
// passing suite, and with failing, a failing one besides.
func ciWorkspace(t *testing.T, failing bool) string {
	t.Helper()
	dir := t.TempDir()
	tests := filepath.Join(dir, "mcpv-tests")
	os.Mkdir(tests, 0o755)
	os.WriteFile(filepath.Join(tests, "good.yaml"), []byte(actionSuite), 0o644)
	if failing {
		os.WriteFile(filepath.Join(tests, "bad.yaml"), []byte(strings.Replace(actionSuite, "sum == 2", "sum == 3", 1)), 0o644)
	}
	return dir
}

// runScript runs a script in bash -e, as CI systems run a job's lines.
func runScript(t *testing.T, dir, script string, env ...string) (code int, out string) {
	t.Helper()
	cmd := exec.Command("bash", "-e", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "CI=true")
	cmd.Env = append(cmd.Env, env...)
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(b)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(b)
}

// The guide's shell recipe installs the release's mcpv and runs the test
// files, ending with mcpv test's exit code; an archive other than the one
// checksums.txt names stops it before mcpv is unpacked.
func TestShellRecipe(t *testing.T) {
	testkit.SkipLong(t, "installs a release")
	t.Parallel()
	demo := demoBin(t)
	dist := snapshotRelease(t)
	release := serveRelease(t, dist)
	_, _, version := hostArchive(t, dist)
	section := between(t, readText(t, "../docs/guide/ci.md"), "## Any other CI system\n", "\nKeep ")
	script := between(t, section, "```sh\n", "```\n")
	script = swap(t, script, "version=v1.2.3 platform=linux_amd64", "version="+version+" platform="+runtime.GOOS+"_"+runtime.GOARCH)
	script = swap(t, script, "https://github.com/mcpv/mcpv/releases/download/$version", release.url)
	env := "DEMO_SERVER=" + demo

	dir := ciWorkspace(t, false)
	if code, out := runScript(t, dir, script, env); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if tests, _ := junitCounts(t, filepath.Join(dir, "mcpv-junit.xml")); tests != 2 {
		t.Errorf("the JUnit report has %d tests, not 2", tests)
	}

	dir = ciWorkspace(t, true)
	if code, out := runScript(t, dir, script, env); code != 1 {
		t.Errorf("a failing step: exit %d, not 1:\n%s", code, out)
	}

	dir = ciWorkspace(t, false)
	release.setTamper(true)
	defer release.setTamper(false)
	code, out := runScript(t, dir, script, env)
	if _, err := os.Stat(filepath.Join(dir, "mcpv")); code == 0 || err == nil || !strings.Contains(out, "FAILED") {
		t.Errorf("a changed archive: exit %d, mcpv unpacked: %v:\n%s", code, err == nil, out)
	}
}

// The GitLab CI job installs the release with the action's script and
// writes the JUnit report GitLab collects.
func TestGitLabJob(t *testing.T) {
	testkit.SkipLong(t, "installs a release")
	t.Parallel()
	var jobs map[string]struct {
		Variables map[string]string
		Script    []string
		Artifacts struct {
			When    string
			Reports struct{ JUnit string }
		}
	}
	if err := yaml.Unmarshal([]byte(readText(t, "../examples/ci/gitlab-ci.yml")), &jobs); err != nil {
		t.Fatalf("gitlab-ci.yml: %v", err)
	}
	job, ok := jobs["mcpv"]
	if !ok || job.Artifacts.When != "always" || job.Artifacts.Reports.JUnit == "" {
		t.Fatalf("gitlab-ci.yml: no job mcpv that always keeps a JUnit report: %+v", jobs)
	}
	demo := demoBin(t)
	dist := snapshotRelease(t)
	release := serveRelease(t, dist)
	_, _, version := hostArchive(t, dist)
	repo, _ := filepath.Abs("..")
	bin, state := t.TempDir(), t.TempDir()
	script := strings.Join(job.Script, "\n")
	script = swap(t, script, "https://raw.githubusercontent.com/mcpv/mcpv/$MCPV_VERSION/scripts/ci/mcpv-ci.sh", "file://"+repo+"/scripts/ci/mcpv-ci.sh")
	script = swap(t, script, "/tmp/mcpv-ci.sh", filepath.Join(state, "mcpv-ci.sh"))
	script = swap(t, script, "MCPV_INSTALL_DIR=/usr/local/bin", "MCPV_INSTALL_DIR="+bin)
	var env []string
	for k, v := range job.Variables {
		env = append(env, k+"="+v)
	}
	env = append(env, "MCPV_VERSION="+version, "MCPV_RELEASE_URL="+release.url, "GITLAB_CI=true", "DEMO_SERVER="+demo,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	dir := ciWorkspace(t, false)
	if code, out := runScript(t, dir, script, env...); code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if tests, _ := junitCounts(t, filepath.Join(dir, job.Artifacts.Reports.JUnit)); tests < 2 {
		t.Errorf("the JUnit report has %d tests", tests)
	}
	dir = ciWorkspace(t, true)
	if code, out := runScript(t, dir, script, env...); code != 1 {
		t.Errorf("a failing step: exit %d, not 1:\n%s", code, out)
	}
	if _, failures := junitCounts(t, filepath.Join(dir, job.Artifacts.Reports.JUnit)); failures != 1 {
		t.Errorf("the JUnit report has %d failures, not 1", failures)
	}
}

// The workflows the guide and examples/ci show give the action only the
// inputs it has, and every one it requires.
func TestWorkflowExamples(t *testing.T) {
	var a action
	if err := yaml.Unmarshal([]byte(readText(t, "../action.yml")), &a); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"examples/ci/github-workflow.yml": readText(t, "../examples/ci/github-workflow.yml"),
		"docs/guide/ci.md":                between(t, readText(t, "../docs/guide/ci.md"), "```yaml\n# .github/workflows/mcp.yml\n", "```"),
	} {
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Uses string
					With map[string]string
				}
			}
		}
		if err := yaml.Unmarshal([]byte(text), &wf); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		used := 0
		for _, job := range wf.Jobs {
			for _, step := range job.Steps {
				if !strings.HasPrefix(step.Uses, "mcpv/mcpv@") {
					continue
				}
				used++
				for in := range step.With {
					if _, ok := a.Inputs[in]; !ok {
						t.Errorf("%s: the action has no input %q", name, in)
					}
				}
				for in, spec := range a.Inputs {
					if _, given := step.With[in]; spec.Required && !given {
						t.Errorf("%s: the required input %q is missing", name, in)
					}
				}
			}
		}
		if used == 0 {
			t.Errorf("%s uses no mcpv/mcpv action", name)
		}
	}
}
