// Command image writes mcpv's container image, for every platform given,
// as an OCI image layout in a tar file, without a container engine
// (oci.go). The release workflow and scripts/packages.sh build it as
// mcpv-image. A module of its own: nothing of it is in mcpv.
//
//	go build -o mcpv-image . && mcpv-image -version v1.2.3 -revision COMMIT -created 2026-11-23T10:00:00Z \
//	  -bin linux/amd64=dist/mcpv_linux_amd64_v1/mcpv -bin linux/arm64=dist/mcpv_linux_arm64_v8.0/mcpv \
//	  -o dist/mcpv-image.tar
//
// Each image is one layer on no base ("FROM scratch"): the static binary
// as /usr/local/bin/mcpv, the CA certificates it checks HTTPS servers
// with, a user mcpv (65532) whose home /home/mcpv holds the config and
// the state, and /tmp. It runs as that user; with no arguments it prints
// mcpv's help. The release copies the tar to the registry with
// "skopeo copy --all oci-archive:FILE:TAG docker://REF". Exit status: 0
// written (the image index's digest on stdout), 1 a file that cannot be
// read or written, 2 usage.
package main

import (
	"cmp"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"
)

// The user the image runs as: distroless's "nonroot" number, which no
// system account of a host uses.
const (
	uid  = 65532
	home = "/home/mcpv"
)

type binFlags []string

func (b *binFlags) String() string     { return strings.Join(*b, ",") }
func (b *binFlags) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	flags := flag.NewFlagSet("mcpv-image", flag.ExitOnError)
	var bins binFlags
	flags.Var(&bins, "bin", "OS/ARCH=PATH: the static mcpv for that platform (repeat for each)")
	version := flags.String("version", "", "the version, as mcpv --version says it (v1.2.3): the tag and the version label")
	revision := flags.String("revision", "", "the commit the binaries were built from")
	created := flags.String("created", "", "the commit's date, RFC 3339: the date of the image and its files")
	source := flags.String("source", "https://github.com/mcpv/mcpv", "the source label")
	ca := flags.String("ca", "/etc/ssl/certs/ca-certificates.crt", "the CA certificates (PEM) to put in the image")
	license := flags.String("license", "LICENSE", "the license file to put in the image")
	out := flags.String("o", "", "the tar file to write")
	flags.Parse(os.Args[1:])
	if flags.NArg() > 0 || len(bins) == 0 || *version == "" || *revision == "" || *created == "" || *out == "" {
		fail(2, "needs -bin (one or more), -version, -revision, -created and -o, and no arguments")
	}
	when, err := time.Parse(time.RFC3339, *created)
	if err != nil {
		fail(2, "-created: %v", err)
	}
	certs := read(*ca)
	licenseText := read(*license)

	img := Image{
		Tag:     *version,
		Created: when,
		Config: Config{
			User:       fmt.Sprintf("%d:%d", uid, uid),
			Env:        []string{"PATH=/usr/local/bin", "HOME=" + home},
			Entrypoint: []string{"/usr/local/bin/mcpv"},
			Cmd:        []string{"--help"},
			WorkingDir: home,
			// mcpv serve --http's port in the documentation's examples;
			// serve listens wherever --http says.
			ExposedPorts: map[string]any{"8808/tcp": struct{}{}},
			Labels: map[string]string{
				"org.opencontainers.image.title":       "mcpv",
				"org.opencontainers.image.description": "Scriptable command-line client for the Model Context Protocol",
				"org.opencontainers.image.source":      *source,
				"org.opencontainers.image.url":         *source,
				"org.opencontainers.image.version":     *version,
				"org.opencontainers.image.revision":    *revision,
				"org.opencontainers.image.created":     when.UTC().Format(time.RFC3339),
				"org.opencontainers.image.licenses":    "MIT",
			},
		},
	}
	for _, b := range bins {
		platform, path, ok := strings.Cut(b, "=")
		goos, goarch, ok2 := strings.Cut(platform, "/")
		if !ok || !ok2 {
			fail(2, "-bin %q: want OS/ARCH=PATH", b)
		}
		variant := ""
		if goarch == "arm64" {
			variant = "v8"
		}
		img.Platforms = append(img.Platforms, Platform{
			OS: goos, Architecture: goarch, Variant: variant,
			Files: files(read(path), certs, licenseText),
		})
	}
	f, err := os.Create(*out)
	if err != nil {
		fail(1, "%v", err)
	}
	digest, err := WriteImage(f, img)
	if err = cmp.Or(err, f.Close()); err != nil {
		os.Remove(*out)
		fail(1, "%v", err)
	}
	fmt.Println(digest)
}

// files is one platform's layer.
func files(bin, certs, license []byte) []File {
	dir := func(p string, mode fs.FileMode) File { return File{Path: p, Dir: true, Mode: mode} }
	file := func(p string, mode fs.FileMode, data []byte) File {
		return File{Path: p, Mode: mode, Data: data}
	}
	return []File{
		dir("/etc", 0o755),
		file("/etc/passwd", 0o644, fmt.Appendf(nil, "root:x:0:0:root:/root:/sbin/nologin\nmcpv:x:%d:%d:mcpv:%s:/sbin/nologin\n", uid, uid, home)),
		file("/etc/group", 0o644, fmt.Appendf(nil, "root:x:0:\nmcpv:x:%d:\n", uid)),
		dir("/etc/ssl", 0o755),
		dir("/etc/ssl/certs", 0o755),
		file("/etc/ssl/certs/ca-certificates.crt", 0o644, certs),
		dir("/home", 0o755),
		// The state directory must be its user's alone (docs/guide/files.md):
		// a volume mounted here takes this owner and mode when new.
		{Path: home, Dir: true, Mode: 0o700, UID: uid, GID: uid},
		dir("/tmp", 0o777|fs.ModeSticky),
		dir("/usr", 0o755),
		dir("/usr/local", 0o755),
		dir("/usr/local/bin", 0o755),
		file("/usr/local/bin/mcpv", 0o755, bin),
		dir("/usr/share", 0o755),
		dir("/usr/share/doc", 0o755),
		dir("/usr/share/doc/mcpv", 0o755),
		file("/usr/share/doc/mcpv/LICENSE", 0o644, license),
	}
}

func read(path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		fail(1, "%v", err)
	}
	return data
}

// fail ends the run with code after a message of what failed.
func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mcpv-image: "+format+"\n", args...)
	os.Exit(code)
}
