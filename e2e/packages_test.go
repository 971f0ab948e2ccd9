//go:build unix && e2e

package e2e

// The .deb and .rpm the release makes (.goreleaser.yaml's nfpms), as
// scripts/packages.sh makes them in CI: MCPV_PACKAGES names its output.
// The .deb is installed with dpkg and removed again only where
// MCPV_PACKAGES_INSTALL=1 says this machine may be changed (.ci/run,
// as root on Debian).

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// packagesDir is the output of scripts/packages.sh, or a skip.
func packagesDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MCPV_PACKAGES")
	if dir == "" {
		t.Skip("MCPV_PACKAGES names no output of scripts/packages.sh: bash scripts/packages.sh DIR && MCPV_PACKAGES=DIR go test -tags e2e -run 'TestPackages|TestSBOM|TestSignedChecksums' ./e2e")
	}
	return dir
}

// onePackage is the one file of dir that matches pattern.
func onePackage(t *testing.T, dir, pattern string) string {
	t.Helper()
	found, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil || len(found) != 1 {
		t.Fatalf("want one %s in %s, found %v (%v)", pattern, dir, found, err)
	}
	return found[0]
}

// The files every package installs, beside which the zsh completion and
// the license go where each system keeps them.
var packagedFiles = []string{
	"/usr/bin/mcpv",
	"/usr/share/bash-completion/completions/mcpv",
	"/usr/share/fish/vendor_completions.d/mcpv.fish",
	"/usr/share/man/man1/mcpv.1.gz",
}

func TestPackagesDebHoldsItsFiles(t *testing.T) {
	dir := packagesDir(t)
	for _, arch := range []string{"amd64", "arm64"} {
		deb := onePackage(t, dir, "mcpv_*_"+arch+".deb")
		files, control, err := debFiles(deb)
		if err != nil {
			t.Fatalf("%s: %v", deb, err)
		}
		var regular []string
		for name, hdr := range files {
			if hdr.Typeflag == '0' {
				regular = append(regular, name)
			}
			if hdr.Uid != 0 || hdr.Gid != 0 {
				t.Errorf("%s: %s owned by %d:%d, not root", deb, name, hdr.Uid, hdr.Gid)
			}
		}
		want := append(slices.Clone(packagedFiles), "/usr/share/zsh/vendor-completions/_mcpv", "/usr/share/doc/mcpv/copyright")
		slices.Sort(want)
		slices.Sort(regular)
		if diff := cmp.Diff(want, regular); diff != "" {
			t.Errorf("%s: files (-want +got):\n%s", deb, diff)
		}
		if mode := files["/usr/bin/mcpv"].Mode; mode != 0o755 {
			t.Errorf("%s: /usr/bin/mcpv has mode %o", deb, mode)
		}
		for k, v := range map[string]string{"Package": "mcpv", "Architecture": arch, "Version": "0.0.0~SNAPSHOT-ci", "Section": "utils"} {
			if control[k] != v {
				t.Errorf("%s: control %s is %q, want %q", deb, k, control[k], v)
			}
		}
	}
}

func TestPackagesRPMHoldsItsFiles(t *testing.T) {
	dir := packagesDir(t)
	for arch, rpmArch := range map[string]string{"amd64": "x86_64", "arm64": "aarch64"} {
		rpm := onePackage(t, dir, "mcpv-*."+rpmArch+".rpm")
		info, err := rpmFiles(rpm)
		if err != nil {
			t.Fatalf("%s: %v", rpm, err)
		}
		var regular []string
		for name, mode := range info.Files {
			if mode&0o170000 == 0o100000 {
				regular = append(regular, name)
			}
		}
		want := append(slices.Clone(packagedFiles), "/usr/share/zsh/site-functions/_mcpv", "/usr/share/licenses/mcpv/LICENSE")
		slices.Sort(want)
		slices.Sort(regular)
		if diff := cmp.Diff(want, regular); diff != "" {
			t.Errorf("%s (%s): files (-want +got):\n%s", rpm, arch, diff)
		}
		if mode := info.Files["/usr/bin/mcpv"] & 0o7777; mode != 0o755 {
			t.Errorf("%s: /usr/bin/mcpv has mode %o", rpm, mode)
		}
		if info.Name != "mcpv" || info.Arch != rpmArch || !strings.HasPrefix(info.Version, "0.0.0") {
			t.Errorf("%s: name %q version %q arch %q", rpm, info.Name, info.Version, info.Arch)
		}
		// Where rpm is installed, it must read the same list.
		if _, err := exec.LookPath("rpm"); err == nil {
			out, err := exec.Command("rpm", "-qlp", rpm).Output()
			if err != nil {
				t.Fatalf("rpm -qlp %s: %v", rpm, err)
			}
			for _, f := range want {
				if !slices.Contains(strings.Fields(string(out)), f) {
					t.Errorf("rpm -qlp %s lacks %s:\n%s", rpm, f, out)
				}
			}
		}
	}
}

// TestPackagesDebInstalls installs the .deb of this machine's
// architecture with dpkg, uses what it installed as a user would, and
// removes it.
func TestPackagesDebInstalls(t *testing.T) {
	dir := packagesDir(t)
	if os.Getenv("MCPV_PACKAGES_INSTALL") != "1" {
		t.Skip("MCPV_PACKAGES_INSTALL=1 (as root, on Debian) lets the test install the .deb and remove it")
	}
	if os.Geteuid() != 0 {
		t.Skip("installing a .deb needs root")
	}
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("no dpkg here")
	}
	if err := exec.Command("dpkg", "-s", "mcpv").Run(); err == nil {
		t.Skip("a package mcpv is installed already: left as it is")
	}
	if _, err := os.Lstat("/usr/bin/mcpv"); err == nil {
		t.Skip("/usr/bin/mcpv exists and no package owns it: left as it is")
	}
	deb := onePackage(t, dir, "mcpv_*_"+runtime.GOARCH+".deb")
	run := func(name string, args ...string) string {
		t.Helper()
		out, err := exec.Command(name, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	dpkg(t, "-i", deb)
	t.Cleanup(func() {
		if out, err := dpkgOnce("-r", "mcpv"); err != nil {
			t.Errorf("dpkg -r mcpv: %v\n%s", err, out)
		}
		for _, f := range packagedFiles {
			if _, err := os.Lstat(f); err == nil {
				t.Errorf("%s is left after dpkg -r", f)
			}
		}
	})

	if v := run("/usr/bin/mcpv", "--version"); !regexp.MustCompile(`^mcpv v0\.0\.0-SNAPSHOT-ci \(commit [0-9a-f]{12}, built 20`).MatchString(v) {
		t.Errorf("mcpv --version: %q", v)
	}
	installed, err := os.ReadFile("/usr/bin/mcpv")
	if err != nil {
		t.Fatal(err)
	}
	built, err := os.ReadFile(filepath.Join(dir, "mcpv_linux_"+runtime.GOARCH, "mcpv"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(installed, built) {
		t.Error("/usr/bin/mcpv is not the binary the release built")
	}
	if listed := run("dpkg", "-L", "mcpv"); !strings.Contains(listed, "/usr/share/man/man1/mcpv.1.gz") {
		t.Errorf("dpkg -L mcpv:\n%s", listed)
	}

	if _, err := exec.LookPath("man"); err == nil {
		if where := strings.TrimSpace(run("man", "-w", "mcpv")); where != "/usr/share/man/man1/mcpv.1.gz" {
			t.Errorf("man -w mcpv: %q", where)
		}
		cmd := exec.Command("man", "mcpv")
		cmd.Env = append(os.Environ(), "MANPAGER=cat", "MANWIDTH=80")
		if out, err := cmd.Output(); err != nil || !strings.Contains(string(out), "mcpv") || !strings.Contains(string(out), "EXIT STATUS") {
			t.Errorf("man mcpv: %v\n%.400s", err, out)
		}
	}

	// bash-completion loads completions/mcpv when mcpv is first completed;
	// without it, the file is what a user sources.
	load := `. /usr/share/bash-completion/completions/mcpv`
	if _, err := os.Stat("/usr/share/bash-completion/bash_completion"); err == nil {
		load = `. /usr/share/bash-completion/bash_completion && __load_completion mcpv`
	}
	if got := run("bash", "-c", load+" && complete -p mcpv"); !strings.Contains(got, "-F _mcpv mcpv") {
		t.Errorf("bash: complete -p mcpv after loading: %q", got)
	}
	if _, err := exec.LookPath("zsh"); err == nil {
		// Debian's zsh has vendor-completions in its default fpath.
		got := run("zsh", "-fc", `autoload -Uz compinit && compinit -u -D && print -r -- ${_comps[mcpv]}`)
		if strings.TrimSpace(got) != "_mcpv" {
			t.Errorf("zsh: the completion for mcpv is %q, want _mcpv", got)
		}
	}
	if _, err := exec.LookPath("fish"); err == nil {
		// fish loads vendor_completions.d on the first completion of mcpv
		// (--no-config would leave its completion path empty: a home of
		// the test's own keeps the user's config out instead).
		home := t.TempDir()
		cmd := exec.Command("fish", "-c", `complete -C 'mcpv list-t'`)
		cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_DATA_HOME="+home)
		if got, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(got), "list-tools") {
			t.Errorf("fish: completing 'mcpv list-t': %v %q", err, got)
		}
	}
}

// dpkg runs dpkg, waiting up to a minute for another dpkg or apt-get
// (the machine's own, another job's) to let go of its lock.
func dpkg(t *testing.T, args ...string) {
	t.Helper()
	if out, err := dpkgOnce(args...); err != nil {
		t.Fatalf("dpkg %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func dpkgOnce(args ...string) ([]byte, error) {
	for start := time.Now(); ; time.Sleep(time.Second) {
		out, err := exec.Command("dpkg", args...).CombinedOutput()
		if err == nil || !bytes.Contains(out, []byte("lock")) || time.Since(start) > time.Minute {
			return out, err
		}
	}
}
