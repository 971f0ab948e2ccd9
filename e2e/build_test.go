//go:build unix && e2e

package e2e

// The programs the tests run, each built once a run into the directory
// TestMain makes and removes: mcpv before any test (every test runs it),
// the demo server and the release's mcpv when a test first asks for them.
// Linking a program is most of what a build costs when nothing changed,
// and each test building its own linked the same binaries a dozen times.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// binDir holds the run's programs; TestMain makes it and removes it.
var binDir string

// goBuild builds the program of pkg (relative to e2e) into binDir as name,
// with the go build flags given and env added to the environment.
func goBuild(name, pkg string, env []string, flags ...string) (string, error) {
	bin := filepath.Join(binDir, name)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		return "", err
	}
	cmd := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bin, pkg)...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

// buildMcpv builds the mcpv the tests run, with the revision of the
// checkout stamped where there is one (TestVersion reads it).
func buildMcpv() (string, error) {
	return goBuild("mcpv", "..", nil, "-buildvcs=true")
}

var demoServer = sync.OnceValues(func() (string, error) {
	return goBuild("demo-server", "../examples/demo-server", nil)
})

// demoBin is the go-sdk demo server (examples/demo-server), built on first
// use.
func demoBin(t *testing.T) string {
	t.Helper()
	bin, err := demoServer()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// The stamps of the release the tests build, as GoReleaser's -ldflags
// write them.
const (
	snapshotVersion = "0.0.0-SNAPSHOT-e2e"
	snapshotCommit  = "0123456789abcdef"
	snapshotDate    = "2026-01-02T03:04:05Z"
)

var releaseBuild = sync.OnceValues(func() (string, error) {
	const pkg = "github.com/mcpv/mcpv/commands"
	return goBuild("release/mcpv", "..", []string{"CGO_ENABLED=0"}, "-trimpath", "-ldflags",
		"-s -w -X "+pkg+".Version=v"+snapshotVersion+" -X "+pkg+".Commit="+snapshotCommit+" -X "+pkg+".Date="+snapshotDate)
})

// releaseBin is mcpv built as .goreleaser.yaml builds a release (go build
// -trimpath, CGO_ENABLED=0, the version, commit and date in -ldflags),
// built on first use. It recompiles every package without their paths, so
// the tests that need it are long ones.
func releaseBin(t *testing.T) string {
	t.Helper()
	testkit.SkipLong(t, "builds mcpv as a release is built")
	bin, err := releaseBuild()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}
