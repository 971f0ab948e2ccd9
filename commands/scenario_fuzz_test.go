package commands

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/load"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testkit"
)

// FuzzScenarioFile reads any bytes as mcpv load --scenario reads a file a
// cloned repository holds: as a test file no one trusted (its ${VAR}s
// refused), then as load's steps. Nothing panics; memory stays within
// the file's values (YAML's aliases bounded) and a bound a byte; each
// mistake is a one-line usage error that names the file.
//
//	go test ./commands -run '^$' -fuzz '^FuzzScenarioFile$' -fuzztime 1m
func FuzzScenarioFile(f *testing.F) {
	testkit.SeedFuzz(f, []string{
		"steps:\n  - list-tools:\n    capture: {tool: '.tools[0].name'}\n  - name: first call\n    call: '{{tool}} n=1'\n    expect: {jq: '.content[0].text == \"ok\"'}\n" +
			"    capture: {said: '.content[0].text'}\n  - call: x said={{said}}\n    think: 10ms..1s\n  - ping:\n    skip: not this time\n",
		"steps:\n  - call: echo message=@msg.txt\n  - read: 'file:///{{uri}}'\n  - get: greet who=${USER}\n",
		"steps:\n  - snapshot: s.json\n  - lint: {}\n  - cost: {}\n",
		"steps:\n  - call: echo --timeout 1s\n  - run: call echo\n  - list-prompts: --jq .prompts\n",
		"steps:\n  - call: {tool: add, args: {a: 1, b: '{{n}}'}}\n    within: 2s\n    expect: {error-code: -32602, exit: 1}\n",
		"x-a: &a {call: echo}\nsteps: [*a, *a, *a]\n",
		"steps:\n  - ping:\n    skip: all\n",
		"server: {command: [srv]}\nsteps: []\n",
	}, testkit.HostileYAML())
	dir := f.TempDir()
	env := connect.Env{Environ: []string{"HOME=" + dir, "USER=u"}, Cwd: dir, GOOS: runtime.GOOS}
	o := readOptions(env, nil, false)
	o.EnvTrusted = func(string, []byte) error { return errors.New("not trusted") }
	path := filepath.Join(dir, "scenario.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		var file *testfile.File
		var errs testfile.Errors
		var steps int
		var err error
		testkit.AllocBounded(t, len(data), 64<<20, 4096, func() {
			if file, errs = testfile.Read(o, path); len(errs) == 0 {
				var s []load.Step
				s, err = load.ScenarioSteps(file, safefile.Tree{Dir: file.Dir}.Read, exitCode)
				steps = len(s)
			}
		})
		for _, e := range errs {
			if e.Msg == "" || strings.Contains(e.Msg, "\n") {
				t.Errorf("mistake %q", e.Msg)
			}
		}
		if len(errs) > 0 {
			return
		}
		if err != nil {
			var ue *errkind.UsageError
			if !errors.As(err, &ue) {
				t.Fatalf("not a usage error: %v", err)
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, path) {
					t.Errorf("a mistake that does not name the file: %q", line)
				}
			}
			return
		}
		if steps == 0 {
			t.Fatal("a scenario read with no step")
		}
	})
}
