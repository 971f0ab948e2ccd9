//go:build linux && e2e

package main

// The container image the release pushes (scripts/image), as
// scripts/packages.sh writes it in CI (MCPV_PACKAGES names its output):
// an OCI image layout in a tar, read back with every digest checked, its
// platforms, labels and files looked at, and its binary run, as root in
// the image's own files (chroot, as its user) where the test may.

import (
	"archive/tar"
	"bufio"
	"bytes"
	"debug/elf"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func readImage(t *testing.T) (*Layout, string) {
	t.Helper()
	dir := os.Getenv("MCPV_PACKAGES")
	if dir == "" {
		t.Skip("MCPV_PACKAGES names no output of scripts/packages.sh: bash scripts/packages.sh DIR && MCPV_PACKAGES=DIR go -C scripts/image test -tags e2e -run TestImage .")
	}
	f, err := os.Open(filepath.Join(dir, "mcpv-image.tar"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := ReadImage(f)
	if err != nil {
		t.Fatalf("mcpv-image.tar: %v", err)
	}
	return l, dir
}

func TestImageLayout(t *testing.T) {
	l, dir := readImage(t)
	if l.Tag != "v0.0.0-SNAPSHOT-ci" {
		t.Errorf("tag %q", l.Tag)
	}
	if digest, _ := os.ReadFile(filepath.Join(dir, "mcpv-image.digest")); strings.TrimSpace(string(digest)) != l.Digest {
		t.Errorf("mcpv-image printed digest %q, the index's is %s", digest, l.Digest)
	}
	var platforms []string
	for _, img := range l.Images {
		platforms = append(platforms, img.Platform.OS+"/"+img.Platform.Architecture+"/"+img.Platform.Variant)
	}
	if diff := cmp.Diff([]string{"linux/amd64/", "linux/arm64/v8"}, platforms); diff != "" {
		t.Errorf("platforms (-want +got):\n%s", diff)
	}
	wantFiles := []string{
		"etc/", "etc/group", "etc/passwd", "etc/ssl/", "etc/ssl/certs/", "etc/ssl/certs/ca-certificates.crt",
		"home/", "home/mcpv/", "tmp/", "usr/", "usr/local/", "usr/local/bin/", "usr/local/bin/mcpv",
		"usr/share/", "usr/share/doc/", "usr/share/doc/mcpv/", "usr/share/doc/mcpv/LICENSE",
	}
	for _, img := range l.Images {
		arch := img.Platform.Architecture
		if want := "v0.0.0-SNAPSHOT-ci-linux-" + arch; img.Tag != want {
			t.Errorf("%s: tagged %q in index.json, want %q (umoci --image DIR:TAG takes one platform by its tag)", arch, img.Tag, want)
		}
		c := img.Config.Config
		labels := c.Labels
		for k, want := range map[string]string{
			"org.opencontainers.image.title":    "mcpv",
			"org.opencontainers.image.source":   "https://github.com/mcpv/mcpv",
			"org.opencontainers.image.version":  "v0.0.0-SNAPSHOT-ci",
			"org.opencontainers.image.licenses": "MIT",
		} {
			if labels[k] != want {
				t.Errorf("%s: label %s is %q, want %q", arch, k, labels[k], want)
			}
		}
		if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(labels["org.opencontainers.image.revision"]) {
			t.Errorf("%s: revision label %q", arch, labels["org.opencontainers.image.revision"])
		}
		if !cmp.Equal(l.Index.Annotations, img.Manifest.Annotations) || l.Index.Annotations["org.opencontainers.image.version"] != "v0.0.0-SNAPSHOT-ci" {
			t.Errorf("%s: the index's and manifest's annotations are %v and %v, want the labels", arch, l.Index.Annotations, img.Manifest.Annotations)
		}
		if !slices.Equal(c.Entrypoint, []string{"/usr/local/bin/mcpv"}) || !slices.Equal(c.Cmd, []string{"--help"}) || c.User != "65532:65532" {
			t.Errorf("%s: entrypoint %q cmd %q user %q", arch, c.Entrypoint, c.Cmd, c.User)
		}
		if len(img.Manifest.Layers) != 1 {
			t.Errorf("%s: %d layers, want 1", arch, len(img.Manifest.Layers))
		}
		var files []string
		for name := range img.Files {
			files = append(files, name)
		}
		slices.Sort(files)
		if diff := cmp.Diff(wantFiles, files); diff != "" {
			t.Errorf("%s: files (-want +got):\n%s", arch, diff)
		}
		if h := img.Files["home/mcpv/"]; h == nil || h.Uid != 65532 || h.Gid != 65532 || h.Mode&0o777 != 0o700 {
			t.Errorf("%s: /home/mcpv is %+v: the state's home must be its user's alone", arch, h)
		}
		if h := img.Files["tmp/"]; h == nil || h.Mode != 0o1777 {
			t.Errorf("%s: /tmp is %+v", arch, h)
		}
		if !bytes.Contains(img.Data["etc/ssl/certs/ca-certificates.crt"], []byte("-----BEGIN CERTIFICATE-----")) {
			t.Errorf("%s: no CA certificates", arch)
		}
		if !bytes.Contains(img.Data["etc/passwd"], []byte("mcpv:x:65532:65532:mcpv:/home/mcpv:")) {
			t.Errorf("%s: /etc/passwd: %q", arch, img.Data["etc/passwd"])
		}

		bin := img.Data["usr/local/bin/mcpv"]
		built, err := os.ReadFile(filepath.Join(dir, "mcpv_linux_"+arch, "mcpv"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(bin, built) {
			t.Errorf("%s: /usr/local/bin/mcpv is not the release's build", arch)
		}
		f, err := elf.NewFile(bytes.NewReader(bin))
		if err != nil {
			t.Fatalf("%s: %v", arch, err)
		}
		if want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]; f.Machine != want {
			t.Errorf("%s: the binary is for %v", arch, f.Machine)
		}
		for _, p := range f.Progs {
			if p.Type == elf.PT_INTERP {
				t.Errorf("%s: the binary asks for a dynamic loader: scratch has none", arch)
			}
		}
		t.Logf("%s: layer %d bytes compressed, binary %d bytes", arch, img.Manifest.Layers[0].Size, len(bin))
	}
}

// TestImageRuns runs the host's image as a container engine would: the
// binary taken from the layer, with the entrypoint and command of the
// config; as root, in the layer's own files (chroot) as the image's user,
// where it starts a server and calls it.
func TestImageRuns(t *testing.T) {
	l, _ := readImage(t)
	i := slices.IndexFunc(l.Images, func(img PlatformImage) bool { return img.Platform.Architecture == runtime.GOARCH })
	if i < 0 {
		t.Skipf("no image for %s", runtime.GOARCH)
	}
	img := l.Images[i]
	c := img.Config.Config

	bin := filepath.Join(t.TempDir(), "mcpv")
	writeProgram(t, bin, img.Data["usr/local/bin/mcpv"], 0o755)
	out, err := exec.Command(bin, c.Cmd...).Output()
	if err != nil || !strings.Contains(string(out), "Usage: mcpv") {
		t.Errorf("mcpv %s: %v\n%.300s", strings.Join(c.Cmd, " "), err, out)
	}
	out, err = exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "mcpv v0.0.0-SNAPSHOT-ci (commit ") {
		t.Errorf("mcpv --version: %v %q", err, out)
	}

	if os.Geteuid() != 0 {
		t.Skip("running in the image's own files needs root (chroot)")
	}
	root := t.TempDir()
	// Parents before what they hold; modes and owners after every file is
	// written, parents last.
	names := slices.Sorted(maps.Keys(img.Files))
	for _, name := range names {
		p := filepath.Join(root, name)
		if img.Files[name].Typeflag == tar.TypeDir {
			err = os.MkdirAll(p, 0o755)
		} else {
			err = os.WriteFile(p, img.Data[name], 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range slices.Backward(names) {
		h := img.Files[name]
		p := filepath.Join(root, name)
		mode := os.FileMode(h.Mode & 0o777)
		if h.Mode&0o1000 != 0 {
			mode |= os.ModeSticky
		}
		if err := os.Chown(p, h.Uid, h.Gid); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	inImage := func(args ...string) (string, error) {
		cmd := exec.Command(c.Entrypoint[0], args...)
		cmd.Env = c.Env
		cmd.Dir = c.WorkingDir
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := inImage(c.Cmd...); err != nil || !strings.Contains(out, "Usage: mcpv") {
		t.Errorf("in the image, mcpv %s: %v\n%.300s", strings.Join(c.Cmd, " "), err, out)
	}
	// A stdio server started in the image, called: the state directory
	// under /home/mcpv is the user's, as mcpv requires it.
	got, err := inImage("-c", "call", "hello", "--", "/usr/local/bin/mcpv", "mock", "--tool", "hello=hi")
	if err != nil || !strings.Contains(got, `"text":"hi"`) {
		t.Errorf("in the image, mcpv call hello -- mcpv mock --tool hello=hi: %v\n%s", err, got)
	}

	// serve as docs/guide/install.md runs it in a container: on every
	// address, --allow-remote, the token from MCPV_HTTP_TOKEN; called from
	// outside the image.
	const token = "image-test-token-0123456789abcdef"
	serve := exec.Command(c.Entrypoint[0], "serve", "--http", "0.0.0.0:0", "--allow-remote", "--", "/usr/local/bin/mcpv", "mock", "--tool", "hello=hi")
	serve.Env = append(slices.Clone(c.Env), "MCPV_HTTP_TOKEN="+token)
	serve.Dir = c.WorkingDir
	serve.SysProcAttr = &syscall.SysProcAttr{Chroot: root, Credential: &syscall.Credential{Uid: 65532, Gid: 65532}}
	stderr, err := serve.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { serve.Process.Signal(syscall.SIGTERM); serve.Wait() }()
	var port string
	lines := bufio.NewReader(stderr)
	for port == "" {
		line, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("serve in the image: %q %v", line, err)
		}
		if m := regexp.MustCompile(`^mcpv: serving at http://[^ ]*:(\d+)/mcp`).FindStringSubmatch(line); m != nil {
			port = m[1]
		}
	}
	go io.Copy(io.Discard, lines)
	// The client is the image's own binary, run outside it.
	url := "http://127.0.0.1:" + port + "/mcp"
	out, err = exec.Command(bin, "-c", "-u", url, "-H", "Authorization: Bearer "+token, "call", "hello").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"text":"hi"`) {
		t.Errorf("mcpv -u %s call hello, to serve in the image: %v\n%s", url, err, out)
	}
	out, err = exec.Command(bin, "-c", "-u", url, "call", "hello").CombinedOutput()
	if err == nil {
		t.Errorf("serve in the image answered a call without the token:\n%s", out)
	}
}

// writeProgram writes a program to path by a child process, so that no
// descriptor of it open in this one is inherited by a program another
// test starts meanwhile (which makes running it fail with "text file busy").
func writeProgram(t *testing.T, path string, content []byte, mode os.FileMode) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `cat >"$1" && chmod "$2" "$1"`, "sh", path, fmt.Sprintf("%o", mode.Perm()))
	cmd.Stdin = bytes.NewReader(content)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("writing %s: %v: %s", path, err, out)
	}
}
