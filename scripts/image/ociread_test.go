package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Layout is an image layout as ReadImage finds it, every blob checked against
// the digest and size that name it.
type Layout struct {
	Tag     string // the index.json entry's ref name
	Digest  string // the image index's
	Index   Index
	Images  []PlatformImage
	Entries []string // the tar's own entries, in order
}

// PlatformImage is one manifest of the index, its tag in index.json,
// its config, and its layers' files by path (directories end in "/").
type PlatformImage struct {
	Platform PlatformSpec
	Tag      string
	Manifest Manifest
	Config   ImageConfig
	Files    map[string]*tar.Header
	Data     map[string][]byte // the regular files' content
}

// Read reads a layout tar as Write writes one: index.json naming one image
// index, of single-platform manifests with gzip-compressed tar layers,
// and each of those manifests by its platform's tag. The mismatch of a
// digest, a size or a layer's diff_id is an error, and so is a tag that
// names two things or a manifest that index.json does not name as the
// image index does.
func ReadImage(r io.Reader) (*Layout, error) {
	l := &Layout{}
	blobs := map[string][]byte{}
	var outer []byte
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		l.Entries = append(l.Entries, hdr.Name)
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, err
		}
		switch {
		case hdr.Name == "index.json":
			outer = data
		case strings.HasPrefix(hdr.Name, "blobs/sha256/"):
			blobs["sha256:"+strings.TrimPrefix(hdr.Name, "blobs/sha256/")] = data
		}
	}
	if outer == nil {
		return nil, errors.New("no index.json")
	}
	blob := func(d Descriptor) ([]byte, error) {
		data, ok := blobs[d.Digest]
		if !ok {
			return nil, fmt.Errorf("blob %s (%s) is missing", d.Digest, d.MediaType)
		}
		if digestOf(data) != d.Digest || int64(len(data)) != d.Size {
			return nil, fmt.Errorf("blob %s: its content has digest %s and size %d, not the %d named", d.Digest, digestOf(data), len(data), d.Size)
		}
		return data, nil
	}
	var top Index
	if err := json.Unmarshal(outer, &top); err != nil {
		return nil, fmt.Errorf("index.json: %w", err)
	}
	if len(top.Manifests) == 0 || top.Manifests[0].MediaType != MediaTypeIndex {
		return nil, errors.New("index.json does not name the image index first")
	}
	l.Tag, l.Digest = top.Manifests[0].Annotations[RefName], top.Manifests[0].Digest
	data, err := blob(top.Manifests[0])
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &l.Index); err != nil {
		return nil, fmt.Errorf("image index: %w", err)
	}
	if len(top.Manifests) != 1+len(l.Index.Manifests) {
		return nil, fmt.Errorf("index.json names %d entries, not the image index and its %d manifests", len(top.Manifests), len(l.Index.Manifests))
	}
	tags := map[string]bool{l.Tag: true}
	for i, d := range l.Index.Manifests {
		if d.Platform == nil {
			return nil, fmt.Errorf("manifest %s has no platform", d.Digest)
		}
		named := top.Manifests[1+i]
		tag := PlatformTag(l.Tag, *d.Platform)
		if named.Digest != d.Digest || named.Platform == nil || *named.Platform != *d.Platform || named.Annotations[RefName] != tag {
			return nil, fmt.Errorf("index.json's entry %d is not manifest %s of %s/%s, tagged %s", 1+i, d.Digest, d.Platform.OS, d.Platform.Architecture, tag)
		}
		if tags[tag] {
			return nil, fmt.Errorf("index.json names two entries %s", tag)
		}
		tags[tag] = true
		img := PlatformImage{Platform: *d.Platform, Tag: tag, Files: map[string]*tar.Header{}, Data: map[string][]byte{}}
		if data, err = blob(d); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &img.Manifest); err != nil {
			return nil, fmt.Errorf("manifest %s: %w", d.Digest, err)
		}
		if data, err = blob(img.Manifest.Config); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &img.Config); err != nil {
			return nil, fmt.Errorf("config %s: %w", img.Manifest.Config.Digest, err)
		}
		if len(img.Config.RootFS.DiffIDs) != len(img.Manifest.Layers) {
			return nil, fmt.Errorf("manifest %s: %d layers, %d diff_ids", d.Digest, len(img.Manifest.Layers), len(img.Config.RootFS.DiffIDs))
		}
		for i, ld := range img.Manifest.Layers {
			if ld.MediaType != MediaTypeLayer {
				return nil, fmt.Errorf("layer %s: media type %q", ld.Digest, ld.MediaType)
			}
			if data, err = blob(ld); err != nil {
				return nil, err
			}
			zr, err := gzip.NewReader(bytes.NewReader(data))
			if err != nil {
				return nil, fmt.Errorf("layer %s: %w", ld.Digest, err)
			}
			raw, err := io.ReadAll(zr)
			if err != nil {
				return nil, fmt.Errorf("layer %s: %w", ld.Digest, err)
			}
			if got := digestOf(raw); got != img.Config.RootFS.DiffIDs[i] {
				return nil, fmt.Errorf("layer %s: uncompressed digest %s, diff_id %s", ld.Digest, got, img.Config.RootFS.DiffIDs[i])
			}
			lr := tar.NewReader(bytes.NewReader(raw))
			for {
				hdr, err := lr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					return nil, fmt.Errorf("layer %s: %w", ld.Digest, err)
				}
				img.Files[hdr.Name] = hdr
				if hdr.Typeflag == tar.TypeReg {
					if img.Data[hdr.Name], err = io.ReadAll(lr); err != nil {
						return nil, err
					}
				}
			}
		}
		l.Images = append(l.Images, img)
	}
	return l, nil
}
