//go:build unix && e2e

package e2e

// A snapshot release as GoReleaser lays it out, served on 127.0.0.1, for
// the ways into CI (docs/guide/ci.md) to install mcpv from.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// snapshot is the release the tests serve, made once a run from
// releaseBin; mu guards dir, which is empty until it is made.
var snapshot struct {
	mu  sync.Mutex
	dir string
}

// snapshotRelease returns a directory holding a release as GoReleaser
// lays it out in dist/: checksums.txt and the archives. With
// MCPV_RELEASE_DIST set (to the dist/ of scripts/release-check.sh) it is
// that one; otherwise it is made once a run as .goreleaser.yaml makes one
// (releaseBin; the binary, README.md and LICENSE in a tar.gz named
// mcpv_VERSION_OS_ARCH.tar.gz; sha256 lines in checksums.txt), beside a
// stand-in archive for another system, which the action must not take.
// The tests only read it.
func snapshotRelease(t *testing.T) string {
	t.Helper()
	if dist := os.Getenv("MCPV_RELEASE_DIST"); dist != "" {
		abs, err := filepath.Abs(dist)
		if err != nil {
			t.Fatal(err)
		}
		return abs
	}
	bin := releaseBin(t)
	snapshot.mu.Lock()
	defer snapshot.mu.Unlock()
	if snapshot.dir != "" {
		return snapshot.dir
	}
	dist := filepath.Join(binDir, "dist")
	if err := os.MkdirAll(dist, 0o755); err != nil {
		t.Fatal(err)
	}
	host := fmt.Sprintf("mcpv_%s_%s_%s.tar.gz", snapshotVersion, runtime.GOOS, runtime.GOARCH)
	other := "linux"
	if runtime.GOOS == "linux" {
		other = "darwin"
	}
	archives := map[string][]byte{
		host: tarGz(t, map[string]string{"mcpv": bin, "README.md": "../README.md", "LICENSE": "../LICENSE"}),
		fmt.Sprintf("mcpv_%s_%s_%s.tar.gz", snapshotVersion, other, runtime.GOARCH): []byte("not this system's"),
	}
	var sums strings.Builder
	for _, name := range slices.Sorted(maps.Keys(archives)) {
		sum := sha256.Sum256(archives[name])
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), name)
		if err := os.WriteFile(filepath.Join(dist, name), archives[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dist, "checksums.txt"), []byte(sums.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	snapshot.dir = dist
	return dist
}

// tarGz makes a tar.gz of files (name in the archive: file on disk).
func tarGz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		mode := int64(0o644)
		if name == "mcpv" {
			mode = 0o755
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write(data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	gz.Close()
	return buf.Bytes()
}

// releaseServer serves dist on 127.0.0.1; tamper, when set, serves
// another archive, sound but not the release's, in place of every archive.
type releaseServer struct {
	url    string
	tag    string // the release's tag: v and its version
	mu     sync.Mutex
	tamper bool
	served []string
}

func serveRelease(t *testing.T, dist string) *releaseServer {
	_, _, version := hostArchive(t, dist)
	rs := &releaseServer{tag: version}
	files := http.FileServer(http.Dir(dist))
	impostor := filepath.Join(t.TempDir(), "mcpv")
	os.WriteFile(impostor, []byte("#!/bin/sh\necho mcpv v6.6.6\n"), 0o755)
	other := tarGz(t, map[string]string{"mcpv": impostor})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		rs.served = append(rs.served, r.URL.Path)
		tamper := rs.tamper
		rs.mu.Unlock()
		// As GitHub serves a repository's releases: /releases/latest/download/
		// and /releases/download/TAG/ lead to the files of this one.
		if rest, ok := strings.CutPrefix(r.URL.Path, "/releases/latest/download/"); ok {
			r.URL.Path = "/" + rest
		} else if rest, ok := strings.CutPrefix(r.URL.Path, "/releases/download/"+rs.tag+"/"); ok {
			r.URL.Path = "/" + rest
		}
		if tamper && strings.HasPrefix(r.URL.Path, "/mcpv_") {
			w.Write(other)
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rs.url = srv.URL
	return rs
}

func (rs *releaseServer) setTamper(on bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.tamper = on
}

func (rs *releaseServer) servedPaths() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return slices.Clone(rs.served)
}

// hostArchive finds this machine's archive in the release's checksums.txt:
// its name, its SHA-256 and the release's version.
func hostArchive(t *testing.T, dist string) (name, sum, version string) {
	t.Helper()
	sums, err := os.ReadFile(filepath.Join(dist, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	suffix := "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	for line := range strings.Lines(string(sums)) {
		if f := strings.Fields(line); len(f) == 2 && strings.HasPrefix(f[1], "mcpv_") && strings.HasSuffix(f[1], suffix) {
			return f[1], f[0], "v" + strings.TrimSuffix(strings.TrimPrefix(f[1], "mcpv_"), suffix)
		}
	}
	t.Fatalf("checksums.txt names no archive for this machine:\n%s", sums)
	return "", "", ""
}
