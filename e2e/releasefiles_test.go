//go:build unix && e2e

package e2e

// What lets a user verify a release, as scripts/packages.sh makes it in
// CI (MCPV_PACKAGES): an SBOM of each archive that names every module
// its binary is built from (scripts/sbom writes it; read here as SPDX
// 2.3, by the fields a scanner reads), and checksums.txt, signed. The release signs
// with cosign, keylessly; CI cannot reach Sigstore, so the signature
// tried here is ssh-keygen's (docs/guide/install.md says which is which).

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// spdxDocument is what this reads of an SPDX 2.3 JSON document.
type spdxDocument struct {
	SPDXVersion  string `json:"spdxVersion"`
	DataLicense  string `json:"dataLicense"`
	SPDXID       string `json:"SPDXID"`
	Name         string `json:"name"`
	Namespace    string `json:"documentNamespace"`
	CreationInfo struct {
		Created string `json:"created"`
	} `json:"creationInfo"`
	Describes []string `json:"documentDescribes"`
	Packages  []struct {
		SPDXID    string `json:"SPDXID"`
		Checksums []struct {
			Algorithm     string `json:"algorithm"`
			ChecksumValue string `json:"checksumValue"`
		} `json:"checksums"`
		ExternalRefs []struct {
			ReferenceType    string `json:"referenceType"`
			ReferenceLocator string `json:"referenceLocator"`
		} `json:"externalRefs"`
	} `json:"packages"`
	Relationships []struct {
		Element string `json:"spdxElementId"`
		Type    string `json:"relationshipType"`
		Related string `json:"relatedSpdxElement"`
	} `json:"relationships"`
}

func TestSBOMNamesEveryModuleOfTheBinary(t *testing.T) {
	dir := packagesDir(t)
	for _, arch := range []string{"amd64", "arm64"} {
		archive := onePackage(t, dir, "mcpv_*_linux_"+arch+".tar.gz")
		data, err := os.ReadFile(archive)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(archive + ".spdx.json")
		if err != nil {
			t.Fatal(err)
		}
		var doc spdxDocument
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s.spdx.json: %v", archive, err)
		}
		if doc.SPDXVersion != "SPDX-2.3" || doc.DataLicense != "CC0-1.0" || doc.SPDXID != "SPDXRef-DOCUMENT" || doc.Name != filepath.Base(archive) ||
			doc.Namespace == "" || doc.CreationInfo.Created == "" || len(doc.Describes) != 1 || len(doc.Packages) == 0 {
			t.Fatalf("%s: header %q %q %q %q %q %q %q, %d packages", archive, doc.SPDXVersion, doc.DataLicense, doc.SPDXID, doc.Name, doc.Namespace, doc.CreationInfo.Created, doc.Describes, len(doc.Packages))
		}
		sum := sha256.Sum256(data)
		if first := doc.Packages[0]; first.SPDXID != doc.Describes[0] || len(first.Checksums) != 1 ||
			first.Checksums[0].Algorithm != "SHA256" || first.Checksums[0].ChecksumValue != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: the SBOM describes %q, whose checksums %+v are not the archive's SHA-256", archive, doc.Describes, first.Checksums)
		}
		ids := map[string]bool{"SPDXRef-DOCUMENT": true}
		purls := map[string]bool{}
		for _, p := range doc.Packages {
			if ids[p.SPDXID] {
				t.Errorf("%s: SPDXID %s twice", archive, p.SPDXID)
			}
			ids[p.SPDXID] = true
			for _, r := range p.ExternalRefs {
				if r.ReferenceType == "purl" {
					purls[r.ReferenceLocator] = true
				}
			}
		}
		for _, r := range doc.Relationships {
			if !ids[r.Element] || !ids[r.Related] {
				t.Errorf("%s: relationship %+v names an element the document lacks", archive, r)
			}
		}

		// What go version -m reads of the binary, each module as a purl.
		out, err := exec.Command("go", "version", "-m", filepath.Join(dir, "mcpv_linux_"+arch, "mcpv")).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"pkg:golang/github.com/mcpv/mcpv@v0.0.0-SNAPSHOT-ci"}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			switch {
			case len(f) == 2 && strings.HasSuffix(f[0], ":"):
				want = append(want, "pkg:golang/stdlib@"+f[1])
			case len(f) >= 3 && (f[0] == "dep" || f[0] == "=>"):
				want = append(want, "pkg:golang/"+f[1]+"@"+strings.ReplaceAll(f[2], "+", "%2B"))
			}
		}
		if len(want) < 10 {
			t.Fatalf("go version -m found %d modules:\n%s", len(want), out)
		}
		for _, p := range want {
			if !purls[p] {
				t.Errorf("%s: the SBOM lacks %s", archive, p)
			}
		}
	}
}

func TestSignedChecksums(t *testing.T) {
	dir := packagesDir(t)
	check := exec.Command("sha256sum", "-c", "checksums.txt")
	check.Dir = dir
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("sha256sum -c checksums.txt: %v\n%s", err, out)
	}
	sums, err := os.ReadFile(filepath.Join(dir, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".deb", ".rpm", "_linux_amd64.tar.gz", "_linux_amd64.tar.gz.spdx.json"} {
		if !strings.Contains(string(sums), want+"\n") {
			t.Errorf("checksums.txt names no %s file:\n%s", want, sums)
		}
	}
	// The command docs/guide/install.md gives, on the file as signed, and on
	// one changed by a byte.
	verify := func(content []byte) error {
		cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", filepath.Join(dir, "allowed_signers"),
			"-I", "mcpv-ci", "-n", "file", "-s", filepath.Join(dir, "checksums.txt.sig"))
		cmd.Stdin = bytes.NewReader(content)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Logf("ssh-keygen -Y verify: %s", out)
		}
		return err
	}
	if err := verify(sums); err != nil {
		t.Errorf("the signature of checksums.txt does not verify: %v", err)
	}
	tampered := bytes.Replace(sums, []byte("0"), []byte("1"), 1)
	if err := verify(tampered); err == nil {
		t.Error("a changed checksums.txt verifies")
	}
}
