package main

// WriteImage writes a container image as an OCI image layout
// (https://github.com/opencontainers/image-spec/blob/main/image-layout.md)
// in a tar file, without a container engine: an image index, which names
// a manifest for each platform, each with its config and one
// gzip-compressed layer of the files given. index.json names the image
// index by the tag, and each manifest, with its platform, by a tag of its
// own, TAG-OS-ARCH (PlatformTag), as the layout specification's own
// example does: a tool that takes one image of a layout by its tag
// (umoci's --image DIR:TAG, which finds two manifests under the index's
// tag and calls it ambiguous) takes a platform by its tag.
//
// The same input gives the same bytes: every entry is dated by the
// image's creation time, the blobs are written in a fixed order, and
// gzip's header carries no name or time. skopeo, crane and oras copy
// such a tar to a registry ("skopeo copy --all oci-archive:FILE:TAG
// docker://REF").

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// The media types of the image-spec, v1.
const (
	MediaTypeIndex    = "application/vnd.oci.image.index.v1+json"
	MediaTypeManifest = "application/vnd.oci.image.manifest.v1+json"
	MediaTypeConfig   = "application/vnd.oci.image.config.v1+json"
	MediaTypeLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
	// RefName is the annotation by which tools pick an image of a layout.
	RefName = "org.opencontainers.image.ref.name"
)

// File is one entry of a layer: a regular file (Data), or a directory
// when Dir is set. Path is absolute or relative to the root; parents are
// not made for it, so list them first.
type File struct {
	Path     string
	Mode     fs.FileMode // permission bits, with fs.ModeSticky where wanted
	UID, GID int
	Dir      bool
	Data     []byte
}

// Platform is one image of the index: what it runs on and its files.
type Platform struct {
	OS, Architecture, Variant string
	Files                     []File
}

// Config is what every platform's image runs and says of itself, the
// fields of the image-spec's config that mcpv's image uses.
type Config struct {
	User         string            `json:"User,omitempty"`
	Env          []string          `json:"Env,omitempty"`
	Entrypoint   []string          `json:"Entrypoint,omitempty"`
	Cmd          []string          `json:"Cmd,omitempty"`
	WorkingDir   string            `json:"WorkingDir,omitempty"`
	ExposedPorts map[string]any    `json:"ExposedPorts,omitempty"`
	Labels       map[string]string `json:"Labels,omitempty"`
}

// Image is the whole layout: the platforms, what they share, the tag
// the index is named by, and the creation time every date takes.
type Image struct {
	Tag       string
	Created   time.Time
	Config    Config
	Platforms []Platform
}

// Descriptor points at a blob, as the image-spec's descriptors do.
type Descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Platform    *PlatformSpec     `json:"platform,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// PlatformSpec is a descriptor's platform.
type PlatformSpec struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
	Variant      string `json:"variant,omitempty"`
}

// Index is an image index (and index.json).
type Index struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Manifests     []Descriptor      `json:"manifests"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

// Manifest is one platform's image manifest.
type Manifest struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     string            `json:"mediaType"`
	Config        Descriptor        `json:"config"`
	Layers        []Descriptor      `json:"layers"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

// ImageConfig is one platform's config blob.
type ImageConfig struct {
	Created      string    `json:"created"`
	Architecture string    `json:"architecture"`
	OS           string    `json:"os"`
	Variant      string    `json:"variant,omitempty"`
	Config       Config    `json:"config"`
	RootFS       RootFS    `json:"rootfs"`
	History      []History `json:"history,omitempty"`
}

// RootFS lists the uncompressed layers' digests.
type RootFS struct {
	Type    string   `json:"type"`
	DiffIDs []string `json:"diff_ids"`
}

// History says how a layer was made.
type History struct {
	Created   string `json:"created"`
	CreatedBy string `json:"created_by"`
}

// Write writes img's layout to w as a tar and returns the digest of its
// image index (what a registry names the pushed image by).
func WriteImage(w io.Writer, img Image) (string, error) {
	if img.Tag == "" || len(img.Platforms) == 0 {
		return "", errors.New("an image needs a tag and at least one platform")
	}
	created := img.Created.UTC().Format(time.RFC3339)
	annotations := map[string]string{}
	for k, v := range img.Config.Labels {
		if strings.HasPrefix(k, "org.opencontainers.image.") {
			annotations[k] = v
		}
	}
	var blobs blobSet
	index := Index{SchemaVersion: 2, MediaType: MediaTypeIndex, Annotations: annotations}
	var tagged []Descriptor // each platform's manifest, by its own tag
	for _, p := range img.Platforms {
		layer, diffID, err := layerOf(p.Files, img.Created)
		if err != nil {
			return "", fmt.Errorf("%s/%s: %w", p.OS, p.Architecture, err)
		}
		cfg := ImageConfig{
			Created: created, Architecture: p.Architecture, OS: p.OS, Variant: p.Variant,
			Config:  img.Config,
			RootFS:  RootFS{Type: "layers", DiffIDs: []string{diffID}},
			History: []History{{Created: created, CreatedBy: "mcpv-image: mcpv and the files it needs, from scratch"}},
		}
		cfgDesc := blobs.addJSON(MediaTypeConfig, cfg)
		layerDesc := blobs.add(MediaTypeLayer, layer)
		manifest := Manifest{SchemaVersion: 2, MediaType: MediaTypeManifest, Config: cfgDesc, Layers: []Descriptor{layerDesc}, Annotations: annotations}
		desc := blobs.addJSON(MediaTypeManifest, manifest)
		desc.Platform = &PlatformSpec{Architecture: p.Architecture, OS: p.OS, Variant: p.Variant}
		index.Manifests = append(index.Manifests, desc)
		desc.Annotations = map[string]string{RefName: PlatformTag(img.Tag, *desc.Platform)}
		if slices.ContainsFunc(tagged, func(d Descriptor) bool { return d.Annotations[RefName] == desc.Annotations[RefName] }) {
			return "", fmt.Errorf("%s/%s: given twice", p.OS, p.Architecture)
		}
		tagged = append(tagged, desc)
	}
	top := blobs.addJSON(MediaTypeIndex, index)
	top.Annotations = map[string]string{RefName: img.Tag}
	outer, err := json.Marshal(Index{SchemaVersion: 2, MediaType: MediaTypeIndex, Manifests: append([]Descriptor{top}, tagged...)})
	if err != nil {
		return "", err
	}

	tw := tar.NewWriter(w)
	put := func(name string, mode int64, data []byte) error {
		hdr := &tar.Header{Name: name, Mode: mode, ModTime: img.Created, Format: tar.FormatPAX}
		if data == nil {
			hdr.Typeflag = tar.TypeDir
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := put("oci-layout", 0o644, []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return "", err
	}
	if err := put("index.json", 0o644, outer); err != nil {
		return "", err
	}
	for _, dir := range []string{"blobs/", "blobs/sha256/"} {
		if err := put(dir, 0o755, nil); err != nil {
			return "", err
		}
	}
	for _, b := range blobs.list {
		if err := put("blobs/sha256/"+strings.TrimPrefix(b.digest, "sha256:"), 0o644, b.data); err != nil {
			return "", err
		}
	}
	return top.Digest, tw.Close()
}

// PlatformTag is the tag index.json gives the manifest of platform p of
// the image tagged tag: "v1.2.3-linux-amd64".
func PlatformTag(tag string, p PlatformSpec) string { return tag + "-" + p.OS + "-" + p.Architecture }

// layerOf returns files as a gzip-compressed tar and the digest of the
// uncompressed tar (the config's diff_id).
func layerOf(files []File, mtime time.Time) ([]byte, string, error) {
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	seen := map[string]bool{}
	for _, f := range files {
		name := strings.TrimPrefix(path.Clean("/"+f.Path), "/")
		if name == "" || seen[name] {
			return nil, "", fmt.Errorf("file %q: empty or given twice", f.Path)
		}
		seen[name] = true
		if dir := path.Dir(name); dir != "." && !seen[dir] {
			return nil, "", fmt.Errorf("file %q: its directory %q is not listed before it", f.Path, dir)
		}
		hdr := &tar.Header{
			Name: name, Mode: int64(f.Mode.Perm()), Uid: f.UID, Gid: f.GID,
			ModTime: mtime, Format: tar.FormatPAX,
		}
		if f.Mode&fs.ModeSticky != 0 {
			hdr.Mode |= 0o1000
		}
		if f.Dir {
			hdr.Typeflag, hdr.Name = tar.TypeDir, name+"/"
		} else {
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(f.Data))
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, "", err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, "", err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, "", err
	}
	diffID := digestOf(raw.Bytes())
	var gz bytes.Buffer
	zw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return nil, "", err
	}
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return nil, "", err
	}
	if err := zw.Close(); err != nil {
		return nil, "", err
	}
	return gz.Bytes(), diffID, nil
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// blobSet keeps the blobs in the order they were added, each once.
type blobSet struct {
	list []blob
}

type blob struct {
	digest string
	data   []byte
}

func (s *blobSet) add(mediaType string, data []byte) Descriptor {
	d := digestOf(data)
	if !slices.ContainsFunc(s.list, func(b blob) bool { return b.digest == d }) {
		s.list = append(s.list, blob{d, data})
	}
	return Descriptor{MediaType: mediaType, Digest: d, Size: int64(len(data))}
}

func (s *blobSet) addJSON(mediaType string, v any) Descriptor {
	data, err := json.Marshal(v)
	if err != nil {
		// The types marshalled here hold strings, slices and maps only.
		panic(err)
	}
	return s.add(mediaType, data)
}
