// Command sbom writes the software bill of materials of a release
// archive (.tar.gz, .zip) or of a Go binary, as SPDX 2.3 JSON, from the
// build information of the Go programs it holds (spdx.go). The release's
// sboms run it on each archive (.goreleaser.yaml: the release workflow and
// scripts/release-check.sh build it onto PATH as mcpv-sbom), and so does
// scripts/packages.sh in CI. A module of its own: nothing of it is in mcpv.
//
//	go build -o mcpv-sbom . && mcpv-sbom -version v1.2.3 -created 2026-11-23T10:00:00Z -o mcpv_1.2.3_linux_amd64.tar.gz.spdx.json mcpv_1.2.3_linux_amd64.tar.gz
//
// The document is dated by the commit the programs were built from, so the
// same archive gives the same bytes. Exit status: 0 written, 1 a file
// that cannot be read or holds no Go program, 2 usage.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"debug/buildinfo"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
)

func main() {
	flags := flag.NewFlagSet("mcpv-sbom", flag.ExitOnError)
	out := flags.String("o", "", "the document to write (default: stdout)")
	version := flags.String("version", "", "the version the programs were released as (v1.2.3; default: what their build recorded, which -trimpath builds outside a tagged checkout leave as (devel))")
	created := flags.String("created", "", "the document's date, RFC 3339: the commit's (default: the commit time the programs' build recorded)")
	namespace := flags.String("namespace", "https://github.com/mcpv/mcpv/sbom", "the document namespace's prefix")
	flags.Parse(os.Args[1:])
	if flags.NArg() != 1 {
		fail(2, "usage: mcpv-sbom [-o FILE] [-version V] [-created DATE] ARCHIVE|BINARY")
	}
	file := flags.Arg(0)
	data, err := os.ReadFile(file)
	if err != nil {
		fail(1, "%v", err)
	}
	programs, err := programsIn(file, data)
	if err != nil {
		fail(1, "%s: %v", file, err)
	}
	if len(programs) == 0 {
		fail(1, "%s holds no Go program", file)
	}
	if *created == "" {
		if *created = vcsTime(programs[0].Info); *created == "" {
			fail(1, "%s: its program records no commit time: give -created", file)
		}
	}
	if *version != "" {
		for _, p := range programs {
			p.Info.Main.Version = *version
		}
	}
	doc := NewSBOM(filepath.Base(file), data, programs, *created, *namespace)
	text, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		fail(1, "%v", err)
	}
	text = append(text, '\n')
	if *out == "" {
		_, err = os.Stdout.Write(text)
	} else {
		err = os.WriteFile(*out, text, 0o644)
	}
	if err != nil {
		fail(1, "%v", err)
	}
}

// programsIn finds the Go programs of an archive, or the file itself.
func programsIn(name string, data []byte) ([]Program, error) {
	var found []Program
	try := func(path string, content []byte) {
		if info, err := buildinfo.Read(bytes.NewReader(content)); err == nil {
			found = append(found, Program{Path: path, Data: content, Info: info})
		}
	}
	switch {
	case strings.HasSuffix(name, ".tar.gz") || strings.HasSuffix(name, ".tgz"):
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		tr := tar.NewReader(zr)
		for {
			hdr, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			if hdr.Typeflag == tar.TypeReg {
				content, err := io.ReadAll(tr)
				if err != nil {
					return nil, err
				}
				try(hdr.Name, content)
			}
		}
	case strings.HasSuffix(name, ".zip"):
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, err
		}
		for _, f := range zr.File {
			if f.Mode().IsRegular() {
				rc, err := f.Open()
				if err != nil {
					return nil, err
				}
				content, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					return nil, err
				}
				try(f.Name, content)
			}
		}
	default:
		info, err := buildinfo.Read(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		found = append(found, Program{Data: data, Info: info})
	}
	return found, nil
}

// vcsTime is the commit time the program's build recorded, if any.
func vcsTime(info *debug.BuildInfo) string {
	for _, s := range info.Settings {
		if s.Key == "vcs.time" {
			return s.Value
		}
	}
	return ""
}

// fail ends the run with code after a message of what failed.
func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mcpv-sbom: "+format+"\n", args...)
	os.Exit(code)
}
