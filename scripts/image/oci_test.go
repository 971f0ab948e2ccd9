package main

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func testImage() Image {
	files := func(bin string) []File {
		return []File{
			{Path: "/etc", Dir: true, Mode: 0o755},
			{Path: "/etc/passwd", Mode: 0o644, Data: []byte("root:x:0:0::/:/\n")},
			{Path: "/tmp", Dir: true, Mode: 0o777 | fs.ModeSticky},
			{Path: "/home", Dir: true, Mode: 0o755},
			{Path: "/home/u", Dir: true, Mode: 0o700, UID: 65532, GID: 65532},
			{Path: "/app", Mode: 0o755, Data: []byte(bin)},
		}
	}
	return Image{
		Tag:     "1.2.3",
		Created: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Config: Config{
			User: "65532:65532", Entrypoint: []string{"/app"}, Cmd: []string{"--help"},
			Labels: map[string]string{"org.opencontainers.image.version": "1.2.3", "other": "x"},
		},
		Platforms: []Platform{
			{OS: "linux", Architecture: "amd64", Files: files("amd64 binary")},
			{OS: "linux", Architecture: "arm64", Variant: "v8", Files: files("arm64 binary")},
		},
	}
}

func TestWriteThenRead(t *testing.T) {
	var buf bytes.Buffer
	digest, err := WriteImage(&buf, testImage())
	if err != nil {
		t.Fatal(err)
	}
	l, err := ReadImage(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if l.Tag != "1.2.3" || l.Digest != digest {
		t.Errorf("tag %q digest %s, want 1.2.3 and %s", l.Tag, l.Digest, digest)
	}
	if got := l.Index.Annotations; !cmp.Equal(got, map[string]string{"org.opencontainers.image.version": "1.2.3"}) {
		t.Errorf("index annotations %v: the OCI labels alone", got)
	}
	var platforms []string
	for _, img := range l.Images {
		p := img.Platform.OS + "/" + img.Platform.Architecture + img.Platform.Variant
		platforms = append(platforms, p)
		if img.Config.OS != img.Platform.OS || img.Config.Architecture != img.Platform.Architecture {
			t.Errorf("%s: config says %s/%s", p, img.Config.OS, img.Config.Architecture)
		}
		if want := img.Platform.Architecture + " binary"; string(img.Data["app"]) != want {
			t.Errorf("%s: /app holds %q, want %q", p, img.Data["app"], want)
		}
		if h := img.Files["home/u/"]; h == nil || h.Uid != 65532 || h.Mode != 0o700 {
			t.Errorf("%s: /home/u is %+v, want a directory of 65532 mode 0700", p, h)
		}
		if h := img.Files["tmp/"]; h == nil || h.Mode != 0o1777 {
			t.Errorf("%s: /tmp is %+v, want mode 01777", p, h)
		}
		if !img.Files["app"].ModTime.Equal(testImage().Created) {
			t.Errorf("%s: /app dated %v", p, img.Files["app"].ModTime)
		}
		if diff := cmp.Diff(testImage().Config, img.Config.Config); diff != "" {
			t.Errorf("%s: config (-want +got):\n%s", p, diff)
		}
	}
	if diff := cmp.Diff([]string{"linux/amd64", "linux/arm64v8"}, platforms); diff != "" {
		t.Errorf("platforms (-want +got):\n%s", diff)
	}

	var again bytes.Buffer
	if _, err := WriteImage(&again, testImage()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), again.Bytes()) {
		t.Error("the same image written twice gave different bytes")
	}
}

func TestReadRefusesATamperedBlob(t *testing.T) {
	var buf bytes.Buffer
	if _, err := WriteImage(&buf, testImage()); err != nil {
		t.Fatal(err)
	}
	// The manifests hold the word "layers"; one changed byte in a blob must
	// no longer match the digest that names it.
	data := buf.Bytes()
	i := bytes.Index(data, []byte(`"layers"`))
	if i < 0 {
		t.Fatal("no manifest found in the tar")
	}
	data[i+1] = 'L'
	if _, err := ReadImage(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "digest") {
		t.Errorf("ReadImage of a tampered layout: %v, want a digest mismatch", err)
	}
}

func TestWriteRefusesAFileWithoutItsDirectory(t *testing.T) {
	img := testImage()
	img.Platforms[0].Files = append(img.Platforms[0].Files, File{Path: "/usr/bin/x", Data: []byte("x")})
	if _, err := WriteImage(new(bytes.Buffer), img); err == nil || !strings.Contains(err.Error(), `"usr/bin"`) {
		t.Errorf("Write: %v, want an error naming usr/bin", err)
	}
}

func TestIndexJSONNamesTheTag(t *testing.T) {
	var buf bytes.Buffer
	if _, err := WriteImage(&buf, testImage()); err != nil {
		t.Fatal(err)
	}
	l, err := ReadImage(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"oci-layout", "index.json", "blobs/", "blobs/sha256/"}
	if diff := cmp.Diff(want, l.Entries[:4]); diff != "" {
		t.Errorf("first entries (-want +got):\n%s", diff)
	}
	raw, _ := json.Marshal(l.Index)
	if !strings.Contains(string(raw), `"platform":{"architecture":"arm64","os":"linux","variant":"v8"}`) {
		t.Errorf("index %s lacks arm64's platform", raw)
	}
}

// index.json names the image index by the tag, and each platform's
// manifest, with its platform, by a tag of its own: a tool that unpacks
// one image of a layout by its tag, as umoci does (--image DIR:TAG,
// which walks from the entries so named to every manifest they reach,
// and refuses a tag that reaches more than one), takes each platform by
// its tag; skopeo takes the whole index by the tag, as the release pushes
// it.
func TestIndexJSONTagsEachPlatform(t *testing.T) {
	var buf bytes.Buffer
	if _, err := WriteImage(&buf, testImage()); err != nil {
		t.Fatal(err)
	}
	var outer Index
	blobs := map[string][]byte{}
	for tr := tar.NewReader(&buf); ; {
		hdr, err := tr.Next()
		if err != nil {
			break
		}
		data, _ := io.ReadAll(tr)
		if hdr.Name == "index.json" {
			json.Unmarshal(data, &outer)
		}
		blobs["sha256:"+strings.TrimPrefix(hdr.Name, "blobs/sha256/")] = data
	}
	// The manifests a tag reaches, as umoci resolves it.
	reached := func(tag string) (platforms []string) {
		var walk func(d Descriptor)
		walk = func(d Descriptor) {
			if d.MediaType == MediaTypeManifest {
				var m Manifest
				json.Unmarshal(blobs[d.Digest], &m)
				var c ImageConfig
				json.Unmarshal(blobs[m.Config.Digest], &c)
				platforms = append(platforms, c.OS+"/"+c.Architecture)
				return
			}
			var idx Index
			json.Unmarshal(blobs[d.Digest], &idx)
			for _, m := range idx.Manifests {
				walk(m)
			}
		}
		for _, d := range outer.Manifests {
			if d.Annotations[RefName] == tag {
				walk(d)
			}
		}
		return platforms
	}
	for tag, want := range map[string][]string{
		"1.2.3":             {"linux/amd64", "linux/arm64"},
		"1.2.3-linux-amd64": {"linux/amd64"},
		"1.2.3-linux-arm64": {"linux/arm64"},
	} {
		if got := reached(tag); !cmp.Equal(got, want) {
			t.Errorf("tag %s reaches %v, want %v", tag, got, want)
		}
	}
	for _, d := range outer.Manifests[1:] {
		if d.Platform == nil {
			t.Errorf("index.json's entry %s does not say its platform", d.Annotations[RefName])
		}
	}

	img := testImage()
	img.Platforms = append(img.Platforms, img.Platforms[0])
	if _, err := WriteImage(new(bytes.Buffer), img); err == nil || !strings.Contains(err.Error(), "linux/amd64: given twice") {
		t.Errorf("Write with linux/amd64 twice: %v", err)
	}
}

// A layout whose index.json tags a platform otherwise than its
// platform says is refused: a tag must name what it says.
func TestReadRefusesAMisnamedPlatform(t *testing.T) {
	var buf bytes.Buffer
	if _, err := WriteImage(&buf, testImage()); err != nil {
		t.Fatal(err)
	}
	data := bytes.Replace(buf.Bytes(), []byte(`"1.2.3-linux-arm64"`), []byte(`"1.2.3-linux-amd64"`), 1)
	if _, err := ReadImage(bytes.NewReader(data)); err == nil || !strings.Contains(err.Error(), "tagged 1.2.3-linux-arm64") {
		t.Errorf("ReadImage of a misnamed platform: %v", err)
	}
}
