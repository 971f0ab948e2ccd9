package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// initBudget is what a package outside the standard library may allocate
// in its init, by the bytes and allocations GODEBUG=inittrace=1 reports:
// nothing is paid at start-up on a path that does not use it (tables,
// regular expressions and schemas are built on first use). The exceptions
// are libraries that build tables mcpv cannot defer.
var initBudget = map[string]struct{ bytes, allocs int }{
	// gojq's builtin function definitions (a map literal, built at init).
	"github.com/itchyny/gojq": {256 << 10, 2600},
	// libyaml's tables.
	"go.yaml.in/yaml/v4/internal/libyaml": {40 << 10, 420},
	// The build information of a build without -ldflags (a release sets
	// the version, commit and date and reads none).
	"github.com/mcpv/mcpv/commands": {40 << 10, 420},
}

// defaultBudget is every other package's.
var defaultBudget = struct{ bytes, allocs int }{8 << 10, 80}

// totalBudget is what every package's init together may allocate, the
// standard library's included: many packages each under their own budget
// still add up. It holds an earlier release's 3,251 allocations: 340 KiB
// in 3,246 were measured when the packages' tables and expressions became
// lazy.Values, from 343 KiB in 3,348 when sync.OnceValue made them (two
// allocations each, at init). Building kong's model,
// the rest of start-up, has its budget in commands' TestModelBuildCost.
// The keychain (go-keyring) added 1.7 KB in 18: godbus's table of
// transports (14) and three more modules in the build information
// (commands' 4): 342 KiB in 3,268 measured, the budget 2 allocations above.
// Measured since in an environment of the test's own, with no variable:
// 339 KiB in 3,261 to 3,263 allocations (100 runs: the runtime's own init
// varies by a few), the budget 7 above the most.
var totalBudget = struct{ bytes, allocs int }{344 << 10, 3270}

// notLinked are standard-library packages that build tables at init, for
// what only a command or two would need: mcpv does without them.
var notLinked = []string{"runtime/metrics", "html/template", "encoding/xml"}

// TestStartupInitCost: each package's init, as the mcpv binary runs it,
// within its budget. Allocations are counted, not timed: they are the same
// on every machine.
func TestStartupInitCost(t *testing.T) {
	testkit.SkipLong(t, "builds mcpv and runs it under GODEBUG=inittrace")
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	bin := filepath.Join(t.TempDir(), "mcpv")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// An environment of its own: the runtime's copy of the environment is
	// a map, whose allocations grow with the variables a machine has
	// (3,261 with none, 3,268 with 50, 3,273 with 120): a CI run with more
	// variables than the last failed the budget by one.
	cmd := exec.Command(bin, "--version")
	cmd.Env = []string{"GODEBUG=inittrace=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mcpv --version: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`^init (\S+) @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)
	seen, totalBytes, totalAllocs := 0, 0, 0
	for l := range strings.Lines(string(out)) {
		m := line.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		seen++
		pkg := m[1]
		bytes, _ := strconv.Atoi(m[2])
		allocs, _ := strconv.Atoi(m[3])
		totalBytes += bytes
		totalAllocs += allocs
		if !strings.Contains(strings.Split(pkg, "/")[0], ".") {
			continue // the standard library
		}
		budget, ok := initBudget[pkg]
		if !ok {
			budget = defaultBudget
		}
		if bytes > budget.bytes || allocs > budget.allocs {
			t.Errorf("init %s: %d bytes in %d allocations, over its budget of %d bytes in %d", pkg, bytes, allocs, budget.bytes, budget.allocs)
		}
	}
	if totalBytes > totalBudget.bytes || totalAllocs > totalBudget.allocs {
		t.Errorf("init of every package: %d bytes in %d allocations, over the budget of %d bytes in %d", totalBytes, totalAllocs, totalBudget.bytes, totalBudget.allocs)
	}
	if seen < 20 {
		t.Fatalf("only %d init lines in:\n%s", seen, out)
	}
}

// The binary links none of notLinked, and compiles no regular expression
// at init: a package-level one is built on first use (sync.OnceValue).
func TestStartupLinksNothingItDefers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range notLinked {
		if slices.Contains(deps, pkg) {
			t.Errorf("mcpv links %s, whose init every start pays for", pkg)
		}
	}
	atInit := regexp.MustCompile(`(?m)^(?:var\s+\w+|\t\w+)\s*=\s*regexp\.MustCompile\(`)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "k6" || d.Name() == "wintest" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := atInit.Find(src); m != nil {
			t.Errorf("%s compiles a regular expression at init: %s", path, strings.TrimSpace(string(m)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
