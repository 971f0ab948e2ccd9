package main

// NewSBOM writes a software bill of materials, an SPDX 2.3 JSON
// document (https://spdx.github.io/spdx-spec/v2.3/), for a file that
// holds Go programs (a release archive, or a binary): the file, each
// program in it, and the modules and Go toolchain each was built from,
// as the program's own build information records them (debug/buildinfo,
// what "go version -m" prints). For a static Go binary that is the whole
// of what it is made of.

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime/debug"
	"strings"
)

// Document is the part of SPDX 2.3 this writes.
type Document struct {
	SPDXVersion       string         `json:"spdxVersion"`
	DataLicense       string         `json:"dataLicense"`
	SPDXID            string         `json:"SPDXID"`
	Name              string         `json:"name"`
	DocumentNamespace string         `json:"documentNamespace"`
	CreationInfo      CreationInfo   `json:"creationInfo"`
	DocumentDescribes []string       `json:"documentDescribes"`
	Packages          []Package      `json:"packages"`
	Relationships     []Relationship `json:"relationships"`
}

// CreationInfo says who made the document and when.
type CreationInfo struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

// Package is a file, a program or a module.
type Package struct {
	SPDXID                string        `json:"SPDXID"`
	Name                  string        `json:"name"`
	VersionInfo           string        `json:"versionInfo,omitempty"`
	DownloadLocation      string        `json:"downloadLocation"`
	FilesAnalyzed         bool          `json:"filesAnalyzed"`
	Checksums             []Checksum    `json:"checksums,omitempty"`
	LicenseConcluded      string        `json:"licenseConcluded"`
	LicenseDeclared       string        `json:"licenseDeclared"`
	CopyrightText         string        `json:"copyrightText"`
	PrimaryPackagePurpose string        `json:"primaryPackagePurpose,omitempty"`
	ExternalRefs          []ExternalRef `json:"externalRefs,omitempty"`
	Comment               string        `json:"comment,omitempty"`
}

// Checksum is a package's checksum.
type Checksum struct {
	Algorithm     string `json:"algorithm"`
	ChecksumValue string `json:"checksumValue"`
}

// ExternalRef is a package URL (purl), by which scanners match a module
// with advisories.
type ExternalRef struct {
	ReferenceCategory string `json:"referenceCategory"`
	ReferenceType     string `json:"referenceType"`
	ReferenceLocator  string `json:"referenceLocator"`
}

// Relationship ties two elements.
type Relationship struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

// Program is one Go program found in the file.
type Program struct {
	Path string // where it is in the file ("" for the file itself)
	Data []byte
	Info *debug.BuildInfo
}

const noAssertion = "NOASSERTION"

// New describes the file named name, of content data, holding programs.
// created is the document's date (RFC 3339, the commit's for a release);
// namespace is a URI prefix made unique by the file's digest.
func NewSBOM(name string, data []byte, programs []Program, created, namespace string) *Document {
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])
	doc := &Document{
		SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT",
		Name:              name,
		DocumentNamespace: strings.TrimSuffix(namespace, "/") + "/" + name + "-" + digest,
		CreationInfo:      CreationInfo{Created: created, Creators: []string{"Tool: mcpv-sbom"}},
		DocumentDescribes: []string{"SPDXRef-File"},
	}
	doc.Packages = append(doc.Packages, Package{
		SPDXID: "SPDXRef-File", Name: name, DownloadLocation: noAssertion,
		Checksums:        []Checksum{{"SHA256", digest}},
		LicenseConcluded: noAssertion, LicenseDeclared: noAssertion, CopyrightText: noAssertion,
		PrimaryPackagePurpose: purpose(name),
	})
	doc.Relationships = append(doc.Relationships, Relationship{"SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-File"})
	seen := map[string]bool{}
	for i, p := range programs {
		progID := fmt.Sprintf("SPDXRef-Program-%d", i+1)
		if p.Path == "" {
			progID = "SPDXRef-File"
		} else {
			psum := sha256.Sum256(p.Data)
			doc.Packages = append(doc.Packages, Package{
				SPDXID: progID, Name: p.Path, VersionInfo: mainVersion(p.Info),
				DownloadLocation: noAssertion, Checksums: []Checksum{{"SHA256", hex.EncodeToString(psum[:])}},
				LicenseConcluded: noAssertion, LicenseDeclared: noAssertion, CopyrightText: noAssertion,
				PrimaryPackagePurpose: "APPLICATION",
				Comment:               buildComment(p.Info),
			})
			doc.Relationships = append(doc.Relationships, Relationship{"SPDXRef-File", "CONTAINS", progID})
		}
		mods := []*debug.Module{{Path: p.Info.Main.Path, Version: mainVersion(p.Info), Sum: p.Info.Main.Sum}}
		mods = append(mods, p.Info.Deps...)
		mods = append(mods, &debug.Module{Path: "stdlib", Version: p.Info.GoVersion})
		for j, m := range mods {
			if m.Replace != nil {
				m = m.Replace
			}
			id := moduleID(m.Path, m.Version)
			if !seen[id] {
				seen[id] = true
				doc.Packages = append(doc.Packages, modulePackage(id, m))
			}
			rel := "DEPENDS_ON"
			if j == 0 {
				rel = "GENERATED_FROM" // the program is built from its main module
			}
			doc.Relationships = append(doc.Relationships, Relationship{progID, rel, id})
		}
	}
	return doc
}

func purpose(name string) string {
	for _, ext := range []string{".tar.gz", ".tgz", ".zip", ".tar"} {
		if strings.HasSuffix(name, ext) {
			return "ARCHIVE"
		}
	}
	return "APPLICATION"
}

// moduleID is a module's SPDXID: letters, digits, "." and "-" alone,
// each run of anything else a "-".
func moduleID(path, version string) string {
	var b strings.Builder
	b.WriteString("SPDXRef-Package-go-")
	dash := false
	for _, r := range path + "-" + version {
		if r < 128 && (r == '.' || r == '-' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z') {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return b.String()
}

func modulePackage(id string, m *debug.Module) Package {
	p := Package{
		SPDXID: id, Name: m.Path, VersionInfo: m.Version, DownloadLocation: noAssertion,
		LicenseConcluded: noAssertion, LicenseDeclared: noAssertion, CopyrightText: noAssertion,
		PrimaryPackagePurpose: "LIBRARY",
		ExternalRefs:          []ExternalRef{{"PACKAGE-MANAGER", "purl", purl(m.Path, m.Version)}},
	}
	if m.Path == "stdlib" {
		p.DownloadLocation = "https://go.dev/dl/"
		p.Comment = "the Go standard library and runtime linked into the program"
	} else if m.Version != "" && m.Version != "(devel)" {
		p.DownloadLocation = "https://proxy.golang.org/" + escapePath(m.Path) + "/@v/" + m.Version + ".zip"
	}
	if m.Sum != "" {
		p.Comment = "go.sum hash " + m.Sum
	}
	return p
}

// purl is a Go module's package URL (github.com/package-url/purl-spec,
// type golang): its path's segments percent-encoded where needed.
func purl(path, version string) string {
	if path == "stdlib" {
		return "pkg:golang/stdlib@" + version
	}
	p := "pkg:golang/" + path
	if version != "" && version != "(devel)" {
		p += "@" + strings.ReplaceAll(version, "+", "%2B")
	}
	return p
}

// escapePath is the module proxy's case-encoding of a path: each
// capital letter as "!" and its lower case.
func escapePath(path string) string {
	var b strings.Builder
	for _, r := range path {
		if 'A' <= r && r <= 'Z' {
			b.WriteByte('!')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mainVersion is the main module's version: the one NewSBOM's caller set
// (a release's tag), else what the build recorded.
func mainVersion(info *debug.BuildInfo) string {
	return info.Main.Version
}

// buildComment says how the program was built, as its build settings
// record it.
func buildComment(info *debug.BuildInfo) string {
	var parts []string
	for _, s := range info.Settings {
		switch s.Key {
		case "GOOS", "GOARCH", "CGO_ENABLED", "-trimpath", "vcs.revision", "vcs.time":
			parts = append(parts, s.Key+"="+s.Value)
		}
	}
	return "built with " + info.GoVersion + " " + strings.Join(parts, " ")
}
