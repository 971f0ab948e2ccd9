package main

import (
	"encoding/json"
	"runtime/debug"
	"slices"
	"testing"
)

func TestNewDescribesTheArchiveItsProgramAndModules(t *testing.T) {
	info := &debug.BuildInfo{
		GoVersion: "go1.26.8",
		Main:      debug.Module{Path: "github.com/mcpv/mcpv", Version: "v1.2.3"},
		Deps: []*debug.Module{
			{Path: "github.com/alecthomas/kong", Version: "v1.17.0", Sum: "h1:abc="},
			{Path: "example.com/Old", Version: "v1.0.0", Replace: &debug.Module{Path: "example.com/New", Version: "v1.0.1+incompatible"}},
		},
		Settings: []debug.BuildSetting{{Key: "GOOS", Value: "linux"}, {Key: "-trimpath", Value: "true"}},
	}
	doc := NewSBOM("mcpv_1.2.3_linux_amd64.tar.gz", []byte("archive"), []Program{{Path: "mcpv", Data: []byte("elf"), Info: info}}, "2026-01-02T03:04:05Z", "https://example.com/sbom/")
	if doc.DocumentNamespace != "https://example.com/sbom/mcpv_1.2.3_linux_amd64.tar.gz-"+doc.Packages[0].Checksums[0].ChecksumValue {
		t.Errorf("namespace %q", doc.DocumentNamespace)
	}
	if doc.Packages[0].PrimaryPackagePurpose != "ARCHIVE" || doc.Packages[1].Name != "mcpv" || doc.Packages[1].VersionInfo != "v1.2.3" {
		t.Errorf("first packages: %+v", doc.Packages[:2])
	}
	purls := map[string]string{}
	for _, p := range doc.Packages {
		for _, r := range p.ExternalRefs {
			purls[p.Name] = r.ReferenceLocator
		}
	}
	want := map[string]string{
		"github.com/mcpv/mcpv":       "pkg:golang/github.com/mcpv/mcpv@v1.2.3",
		"github.com/alecthomas/kong": "pkg:golang/github.com/alecthomas/kong@v1.17.0",
		"example.com/New":            "pkg:golang/example.com/New@v1.0.1%2Bincompatible",
		"stdlib":                     "pkg:golang/stdlib@go1.26.8",
	}
	for name, purl := range want {
		if purls[name] != purl {
			t.Errorf("%s: purl %q, want %q", name, purls[name], purl)
		}
	}
	var rels []string
	for _, r := range doc.Relationships {
		rels = append(rels, r.Element+" "+r.Type+" "+r.Related)
	}
	for _, r := range []string{
		"SPDXRef-DOCUMENT DESCRIBES SPDXRef-File",
		"SPDXRef-File CONTAINS SPDXRef-Program-1",
		"SPDXRef-Program-1 GENERATED_FROM SPDXRef-Package-go-github.com-mcpv-mcpv-v1.2.3",
		"SPDXRef-Program-1 DEPENDS_ON SPDXRef-Package-go-example.com-New-v1.0.1-incompatible",
	} {
		if !slices.Contains(rels, r) {
			t.Errorf("no relationship %q in %q", r, rels)
		}
	}
	if _, err := json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
}
