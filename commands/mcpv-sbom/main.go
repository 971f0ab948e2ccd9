// Command mcpv-sbom writes the software bill of materials of a release
// archive (.tar.gz, .zip) or of a Go binary, as SPDX 2.3 JSON, from the
// build information of the Go programs it holds (internal/spdx):
//
//	go run ./commands/mcpv-sbom -version v1.2.3 -created 2026-11-23T10:00:00Z -o mcpv_1.2.3_linux_amd64.tar.gz.spdx.json mcpv_1.2.3_linux_amd64.tar.gz
//
// The document is dated by the commit the programs were built from, so the
// same archive gives the same bytes.
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

	"github.com/mcpv/mcpv/internal/spdx"
)

func main() {
	out := flag.String("o", "", "the document to write (default: stdout)")
	version := flag.String("version", "", "the version the programs were released as (v1.2.3; default: what their build recorded, which -trimpath builds outside a tagged checkout leave as (devel))")
	created := flag.String("created", "", "the document's date, RFC 3339: the commit's (default: the commit time the programs' build recorded)")
	namespace := flag.String("namespace", "https://github.com/mcpv/mcpv/sbom", "the document namespace's prefix")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: mcpv-sbom [-o FILE] [-created DATE] ARCHIVE|BINARY")
		os.Exit(2)
	}
	file := flag.Arg(0)
	data, err := os.ReadFile(file)
	if err != nil {
		fail("%v", err)
	}
	programs, err := programsIn(file, data)
	if err != nil {
		fail("%s: %v", file, err)
	}
	if len(programs) == 0 {
		fail("%s holds no Go program", file)
	}
	if *created == "" {
		if *created = vcsTime(programs[0].Info); *created == "" {
			fail("%s: its program records no commit time: give -created", file)
		}
	}
	if *version != "" {
		for _, p := range programs {
			p.Info.Main.Version = *version
		}
	}
	doc := spdx.New(filepath.Base(file), data, programs, *created, *namespace)
	text, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		fail("%v", err)
	}
	text = append(text, '\n')
	if *out == "" {
		_, err = os.Stdout.Write(text)
	} else {
		err = os.WriteFile(*out, text, 0o644)
	}
	if err != nil {
		fail("%v", err)
	}
}

// programsIn finds the Go programs of an archive, or the file itself.
func programsIn(name string, data []byte) ([]spdx.Program, error) {
	var found []spdx.Program
	try := func(path string, content []byte) {
		if info, err := buildinfo.Read(bytes.NewReader(content)); err == nil {
			found = append(found, spdx.Program{Path: path, Data: content, Info: info})
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
		found = append(found, spdx.Program{Data: data, Info: info})
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

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "mcpv-sbom: "+format+"\n", args...)
	os.Exit(1)
}
