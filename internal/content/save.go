package content

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
)

const (
	maxName     = 100   // bytes in a file name Save writes, suffix and extension included
	maxExt      = 16    // letters after the dot; longer "extensions" are part of the name
	maxAttempts = 10000 // name-2 ... name-10000, then give up
)

// Save writes every binary block of a result into dir and returns the result
// rewritten so that each saved block has, instead of its base64 member,
// "path": "<file path>". The new member takes the place of "data" or "blob";
// every other byte of raw (members, key order, spacing) is kept.
//
// Binary blocks are content blocks of type "image" and "audio" ("data" +
// "mimeType"), embedded "resource" blocks whose resource has "blob" (the
// "path" goes into the resource object), and resources/read "contents" items
// with "blob". Blocks in "messages"[].content (prompts/get) count too.
//
// File names are safe and never outside dir:
//   - for resources, the last path segment of the uri (after dropping any query
//     or fragment and trailing slashes, percent-decoded), with every character
//     outside [A-Za-z0-9._-] replaced by '_' and leading dots and dashes removed;
//   - otherwise, or when that leaves nothing, "content-N", N being the block's
//     1-based position in its array (for prompts, the message's position);
//   - the extension comes from the mimeType (".bin" when unknown) unless the
//     name already has one (a final '.' and 1 to 16 ASCII letters and digits);
//   - a name is at most 100 bytes; a longer one is cut before the extension.
//
// Existing files are never overwritten: "-2", "-3", ... is added before the
// extension. dir is created (0o755) when the first file is written. Files are
// created 0o644 (less the umask). Paths are filepath.Join(dir, name), so a
// relative dir gives relative paths; they are relative to cwd, or to the
// process's working directory when cwd is "".
//
// A binary member that is not a string of valid base64 is an error naming the
// block; on any error, the files this call wrote are removed and Save returns
// nil, nil and the error. raw must have one of the shapes Text accepts.
// When there is nothing to save, raw itself is returned with no paths.
func Save(raw []byte, dir, cwd string) (rewritten []byte, paths []string, err error) {
	arr, s, err := locate(raw)
	if err != nil {
		return nil, nil, err
	}
	sv := &saver{raw: raw, dir: dir, cwd: cwd}
	rawjson.ForEachElement(arr, func(i int, el []byte) {
		if err != nil {
			return
		}
		n := i + 1
		switch s {
		case toolResult:
			err = sv.block(el, n, fmt.Sprintf("content block %d", n))
		case resourceResult:
			err = sv.contents(el, n, fmt.Sprintf("contents item %d", n))
		case promptResult:
			forEachMessageBlock(el, func(block []byte) {
				if err == nil {
					err = sv.block(block, n, fmt.Sprintf("message %d content", n))
				}
			})
		}
	})
	if err != nil {
		for _, p := range sv.paths {
			os.Remove(sv.onDisk(p))
		}
		return nil, nil, err
	}
	if len(sv.edits) == 0 {
		return raw, nil, nil
	}
	return sv.rewrite(), sv.paths, nil
}

// edit replaces raw[start:end] with repl.
type edit struct {
	start, end int
	repl       []byte
}

type saver struct {
	raw     []byte
	dir     string
	cwd     string // what a relative dir is relative to; "" is the process's
	dirMade bool
	paths   []string
	edits   []edit
}

// block saves a ContentBlock if it is binary.
func (s *saver) block(block []byte, n int, where string) error {
	if !rawjson.IsObject(block) {
		return nil
	}
	var typ string
	var dataKey, data, mimeType, resource []byte
	err := rawjson.ForEachValidRawMember(block, func(key string, rawKey, value []byte) error {
		switch key {
		case "type":
			typ, _ = jsonString(value)
		case "data":
			dataKey, data = rawKey, value
		case "mimeType":
			mimeType = value
		case "resource":
			resource = value
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	switch typ {
	case "image", "audio":
		if dataKey == nil {
			return nil
		}
		mt, _ := jsonString(mimeType)
		return s.save(dataKey, data, "", mt, n, fmt.Sprintf("%s (%s)", where, typ), "data")
	case "resource":
		return s.contents(resource, n, where+" (resource)") // nothing for a resource that is no object
	}
	return nil
}

// contents saves a resource contents object if it has a blob.
func (s *saver) contents(item []byte, n int, where string) error {
	if !rawjson.IsObject(item) {
		return nil
	}
	var uri, mimeType string
	var blobKey, blob []byte
	err := rawjson.ForEachValidRawMember(item, func(key string, rawKey, value []byte) error {
		switch key {
		case "uri":
			uri, _ = jsonString(value)
		case "mimeType":
			mimeType, _ = jsonString(value)
		case "blob":
			blobKey, blob = rawKey, value
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if blobKey == nil {
		return nil
	}
	if uri != "" {
		where = fmt.Sprintf("%s %q", where, uri)
	}
	return s.save(blobKey, blob, uri, mimeType, n, where, "blob")
}

// save decodes the base64 value, writes it to a new file and records the
// edits that put "path" in place of the member.
func (s *saver) save(key, value []byte, uri, mimeType string, n int, where, member string) error {
	data, err := decodeBase64(value)
	if err != nil {
		return fmt.Errorf("%s: %s is not valid base64: %w", where, member, err)
	}
	stem, ext := fileName(uri, mimeType, n)
	p, err := s.create(stem, ext, data)
	if err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	s.paths = append(s.paths, p)
	k := offsetIn(s.raw, key)
	v := offsetIn(s.raw, value)
	s.edits = append(s.edits,
		edit{k, k + len(key), []byte(`"path"`)},
		edit{v, v + len(value), quote(p)})
	return nil
}

// create writes data to a new file in dir named stem+ext, or stem-2+ext, ...
func (s *saver) create(stem, ext string, data []byte) (string, error) {
	if !s.dirMade {
		if err := os.MkdirAll(s.onDisk(cmp.Or(s.dir, ".")), 0o755); err != nil {
			return "", err
		}
		s.dirMade = true
	}
	for i := 1; i <= maxAttempts; i++ {
		suffix := ""
		if i > 1 {
			suffix = "-" + strconv.Itoa(i)
		}
		name := stem
		if limit := maxName - len(suffix) - len(ext); len(name) > limit {
			name = name[:limit]
		}
		name += suffix + ext
		p := filepath.Join(s.dir, name)
		f, err := os.OpenFile(s.onDisk(p), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(s.onDisk(p))
			return "", err
		}
		return p, nil
	}
	return "", fmt.Errorf("no free file name for %s%s in %s", stem, ext, s.dir)
}

// onDisk is where path p is: relative to cwd when it is relative.
func (s *saver) onDisk(p string) string {
	if s.cwd == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.cwd, p)
}

// rewrite applies the edits to raw.
func (s *saver) rewrite() []byte {
	sort.Slice(s.edits, func(i, j int) bool { return s.edits[i].start < s.edits[j].start })
	size := len(s.raw)
	for _, e := range s.edits {
		size += len(e.repl) - (e.end - e.start)
	}
	out := make([]byte, 0, size)
	prev := 0
	for _, e := range s.edits {
		out = append(out, s.raw[prev:e.start]...)
		out = append(out, e.repl...)
		prev = e.end
	}
	return append(out, s.raw[prev:]...)
}

// decodeBase64 decodes a JSON string holding standard, padded base64
// (line breaks are ignored).
func decodeBase64(value []byte) ([]byte, error) {
	if len(value) < 2 || value[0] != '"' {
		return nil, errors.New("not a string")
	}
	src := value[1 : len(value)-1]
	if bytes.IndexByte(src, '\\') >= 0 {
		var str string
		if err := json.Unmarshal(value, &str); err != nil {
			return nil, err
		}
		src = []byte(str)
	}
	dst := make([]byte, base64.StdEncoding.DecodedLen(len(src)))
	n, err := base64.StdEncoding.Decode(dst, src)
	if err != nil {
		return nil, err
	}
	return dst[:n], nil
}

// quote returns p as a JSON string (without HTML escaping).
func quote(p string) []byte {
	b, _ := rawjson.Encode(p) // a string always encodes
	return b
}

// fileName returns the stem and extension of the file for a block.
func fileName(uri, mimeType string, n int) (stem, ext string) {
	if uri != "" {
		stem = sanitize(lastSegment(uri))
	}
	if e := filepath.Ext(stem); isExtension(e) && len(e) < len(stem) {
		stem, ext = stem[:len(stem)-len(e)], e
	}
	stem = cmp.Or(stem, "content-"+strconv.Itoa(n))
	return stem, cmp.Or(ext, extension(mimeType))
}

// isExtension reports whether e is '.' and 1 to 16 ASCII letters and digits.
func isExtension(e string) bool {
	if len(e) < 2 || len(e)-1 > maxExt || e[0] != '.' {
		return false
	}
	for _, r := range e[1:] {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// lastSegment returns the last path segment of uri, percent-decoded.
func lastSegment(uri string) string {
	if i := strings.IndexAny(uri, "?#"); i >= 0 {
		uri = uri[:i]
	}
	uri = strings.TrimRight(uri, "/")
	uri = uri[strings.LastIndexByte(uri, '/')+1:]
	if u, err := url.PathUnescape(uri); err == nil {
		uri = u
	}
	return uri
}

// sanitize keeps [A-Za-z0-9._-], turns every other character into '_', and
// removes leading dots and dashes and trailing dots. The result has no path
// separator and is never "." or "..".
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return strings.TrimRight(strings.TrimLeft(b.String(), ".-"), ".")
}

// preferred are the extensions chosen for common types, whatever the system's
// MIME tables say (they differ between machines and may lack audio types).
var preferred = &lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
		"image/png":        ".png",
		"image/jpeg":       ".jpg",
		"image/jpg":        ".jpg",
		"image/gif":        ".gif",
		"image/webp":       ".webp",
		"audio/wav":        ".wav",
		"audio/wave":       ".wav",
		"audio/x-wav":      ".wav",
		"audio/vnd.wave":   ".wav",
		"audio/mpeg":       ".mp3",
		"audio/mp3":        ".mp3",
		"application/pdf":  ".pdf",
		"application/json": ".json",
		"text/plain":       ".txt",
	}
}}

var preferredOrder = []string{".png", ".jpg", ".gif", ".webp", ".wav", ".mp3", ".pdf", ".json", ".txt"}

// extension returns the file extension for a MIME type, ".bin" when unknown.
func extension(mimeType string) string {
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return ".bin"
	}
	if e, ok := preferred.Get()[mt]; ok {
		return e
	}
	exts, _ := mime.ExtensionsByType(mt)
	for _, e := range preferredOrder {
		if slices.Contains(exts, e) {
			return e
		}
	}
	for _, e := range exts { // sorted
		if isExtension(e) {
			return e
		}
	}
	return ".bin"
}
