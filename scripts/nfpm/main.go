// Command nfpm packs mcpv's .deb and .rpm as the release does, for CI
// (scripts/packages.sh), with nfpm's own library
// (github.com/goreleaser/nfpm/v2, the one GoReleaser's nfpms use), from
// the one description both read: the nfpms entry of .goreleaser.yaml.
//
//	go run . -config ../../.goreleaser.yaml -version 1.2.3 -date 2026-11-23T10:00:00Z \
//	  -bin linux/amd64=PATH -o DIR
//
// It reads only the fields it knows, and refuses an entry with any
// other: a field added to .goreleaser.yaml that this does not apply
// would make CI try a package the release does not make. The templates
// {{ .Version }} and {{ .CommitDate }} are filled in as GoReleaser fills
// them; the binary goes into bindir, as GoReleaser puts a build's binary.
// Relative sources are read from the directory it runs in (the
// repository, where the release's before hooks write build/).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/template"
	"time"

	"github.com/goreleaser/nfpm/v2"
	_ "github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
	_ "github.com/goreleaser/nfpm/v2/rpm"
	"gopkg.in/yaml.v3"
)

// entry is the part of GoReleaser's nfpms entry this applies.
type entry struct {
	ID          string         `yaml:"id"`
	PackageName string         `yaml:"package_name"`
	IDs         []string       `yaml:"ids"`
	Formats     []string       `yaml:"formats"`
	Vendor      string         `yaml:"vendor"`
	Homepage    string         `yaml:"homepage"`
	Maintainer  string         `yaml:"maintainer"`
	Description string         `yaml:"description"`
	License     string         `yaml:"license"`
	Bindir      string         `yaml:"bindir"`
	Section     string         `yaml:"section"`
	Priority    string         `yaml:"priority"`
	MTime       time.Time      `yaml:"mtime"`
	Contents    files.Contents `yaml:"contents"`
	// FileNameTemplate may only be GoReleaser's {{ .ConventionalFileName }}:
	// pack names each file its format's own way, as that template does.
	FileNameTemplate string `yaml:"file_name_template"`
}

// conventional stands for {{ .ConventionalFileName }} while the entry is
// filled, so that a file_name_template of anything else is refused.
const conventional = "<conventional file name>"

type binFlags []string

func (b *binFlags) String() string     { return strings.Join(*b, ",") }
func (b *binFlags) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	var bins binFlags
	config := flag.String("config", ".goreleaser.yaml", "GoReleaser's configuration, whose nfpms entry describes the packages")
	version := flag.String("version", "", "the version without its v, as GoReleaser's {{ .Version }}")
	date := flag.String("date", "", "the commit's date, RFC 3339, as {{ .CommitDate }}")
	flag.Var(&bins, "bin", "OS/ARCH=PATH: the binary of that platform (repeat for each)")
	out := flag.String("o", "", "the directory to write the packages into")
	flag.Parse()
	if flag.NArg() > 0 || *version == "" || *date == "" || len(bins) == 0 || *out == "" {
		fail(2, "needs -version, -date, -bin (one or more) and -o, and no arguments")
	}
	e, err := readEntry(*config, *version, *date)
	if err != nil {
		fail(1, "%s: %v", *config, err)
	}
	for _, b := range bins {
		platform, path, ok := strings.Cut(b, "=")
		goos, goarch, ok2 := strings.Cut(platform, "/")
		if !ok || !ok2 {
			fail(2, "-bin %q: want OS/ARCH=PATH", b)
		}
		for _, format := range e.Formats {
			name, err := pack(e, format, goos, goarch, *version, path, *out)
			if err != nil {
				fail(1, "%s %s/%s: %v", format, goos, goarch, err)
			}
			fmt.Println(name)
		}
	}
}

// readEntry returns the config's one nfpms entry, its templates filled.
func readEntry(config, version, date string) (*entry, error) {
	data, err := os.ReadFile(config)
	if err != nil {
		return nil, err
	}
	var doc struct {
		NFPMs yaml.Node `yaml:"nfpms"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.NFPMs.Kind != yaml.SequenceNode || len(doc.NFPMs.Content) != 1 {
		return nil, fmt.Errorf("want one nfpms entry")
	}
	raw, err := yaml.Marshal(doc.NFPMs.Content[0])
	if err != nil {
		return nil, err
	}
	tmpl, err := template.New("nfpms").Option("missingkey=error").Parse(string(raw))
	if err != nil {
		return nil, err
	}
	var filled bytes.Buffer
	vars := struct{ Version, CommitDate, ConventionalFileName string }{version, date, conventional}
	if err := tmpl.Execute(&filled, vars); err != nil {
		return nil, fmt.Errorf("nfpms: %v (scripts/nfpm fills {{ .Version }}, {{ .CommitDate }} and {{ .ConventionalFileName }} alone)", err)
	}
	dec := yaml.NewDecoder(&filled)
	dec.KnownFields(true)
	var e entry
	if err := dec.Decode(&e); err != nil {
		return nil, fmt.Errorf("nfpms: %v (scripts/nfpm/main.go applies the fields of its entry type alone: teach it the new one)", err)
	}
	if e.PackageName == "" || e.Bindir == "" || len(e.Formats) == 0 {
		return nil, fmt.Errorf("nfpms: package_name, bindir and formats are needed")
	}
	if e.FileNameTemplate != "" && e.FileNameTemplate != conventional {
		return nil, fmt.Errorf("nfpms: file_name_template %q: scripts/nfpm names each file its format's conventional way alone ({{ .ConventionalFileName }})", e.FileNameTemplate)
	}
	return &e, nil
}

// pack writes one package into dir and returns its path.
func pack(e *entry, format, goos, goarch, version, bin, dir string) (string, error) {
	packager, err := nfpm.Get(format)
	if err != nil {
		return "", err
	}
	contents := append(files.Contents{{
		Source: bin, Destination: filepath.Join(e.Bindir, "mcpv"),
		FileInfo: &files.ContentFileInfo{Mode: 0o755},
	}}, e.Contents...)
	info := nfpm.WithDefaults(&nfpm.Info{
		Name: e.PackageName, Arch: goarch, Platform: goos, Version: version,
		Section: e.Section, Priority: e.Priority, Maintainer: e.Maintainer,
		Description: e.Description, Vendor: e.Vendor, Homepage: e.Homepage,
		License: e.License, MTime: e.MTime,
		Overridables: nfpm.Overridables{Contents: contents},
	})
	if err := nfpm.PrepareForPackager(info, format); err != nil {
		return "", err
	}
	name := filepath.Join(dir, packager.ConventionalFileName(info))
	f, err := os.Create(name)
	if err != nil {
		return "", err
	}
	if err := packager.Package(info, f); err != nil {
		f.Close()
		os.Remove(name)
		return "", err
	}
	return name, f.Close()
}

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "nfpm: "+format+"\n", args...)
	os.Exit(code)
}
