//go:build unix && e2e

package e2e

// Readers of the file lists of a .deb and an .rpm, with the standard
// library alone: CI need not have rpm, and reads both as a user's
// package manager would before installing.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// debFiles returns the paths a .deb installs (an ar archive whose
// data.tar.gz holds them), without "./", directories ending in "/", and
// its control file's fields.
func debFiles(path string) (map[string]*tar.Header, map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if !bytes.HasPrefix(data, []byte("!<arch>\n")) {
		return nil, nil, errors.New("not an ar archive")
	}
	members := map[string][]byte{}
	for rest := data[8:]; len(rest) >= 60; {
		name := strings.TrimSuffix(strings.TrimSpace(string(rest[:16])), "/")
		size, err := strconv.Atoi(strings.TrimSpace(string(rest[48:58])))
		if err != nil || size < 0 || 60+size > len(rest) {
			return nil, nil, fmt.Errorf("ar member %q: bad size", name)
		}
		members[name] = rest[60 : 60+size]
		rest = rest[60+size+size%2:]
	}
	if string(members["debian-binary"]) != "2.0\n" {
		return nil, nil, fmt.Errorf("debian-binary is %q", members["debian-binary"])
	}
	files, _, err := tarGzFiles(members["data.tar.gz"], "")
	if err != nil {
		return nil, nil, fmt.Errorf("data.tar.gz: %w", err)
	}
	_, control, err := tarGzFiles(members["control.tar.gz"], "control")
	if err != nil {
		return nil, nil, fmt.Errorf("control.tar.gz: %w", err)
	}
	fields := map[string]string{}
	for line := range strings.Lines(string(control)) {
		if k, v, ok := strings.Cut(line, ": "); ok && !strings.HasPrefix(k, " ") {
			fields[k] = strings.TrimSpace(v)
		}
	}
	return files, fields, nil
}

// tarGzFiles lists a tar.gz, and returns the content of the file named
// want.
func tarGzFiles(data []byte, want string) (map[string]*tar.Header, []byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, nil, err
	}
	files := map[string]*tar.Header{}
	var wanted []byte
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return files, wanted, nil
		}
		if err != nil {
			return nil, nil, err
		}
		name := strings.TrimPrefix(hdr.Name, "./")
		files["/"+name] = hdr
		if want != "" && name == want {
			if wanted, err = io.ReadAll(tr); err != nil {
				return nil, nil, err
			}
		}
	}
}

// rpmInfo is what rpmFiles reads of an .rpm's header.
type rpmInfo struct {
	Name, Version, Release, Arch string
	Files                        map[string]uint16 // path: mode
}

// The header tags and types rpmFiles reads (rpm's lib/rpmtag.h).
const (
	rpmTagName       = 1000
	rpmTagVersion    = 1001
	rpmTagRelease    = 1002
	rpmTagFileModes  = 1030
	rpmTagArch       = 1022
	rpmTagDirIndexes = 1116
	rpmTagBaseNames  = 1117
	rpmTagDirNames   = 1118
)

// rpmFiles reads an .rpm's lead, its signature header and its header,
// and returns its name, version, architecture and files.
func rpmFiles(path string) (*rpmInfo, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) < 96 || !bytes.Equal(data[:4], []byte{0xed, 0xab, 0xee, 0xdb}) {
		return nil, errors.New("no rpm lead")
	}
	rest := data[96:]
	if _, n, err := rpmHeader(rest); err != nil {
		return nil, fmt.Errorf("signature header: %w", err)
	} else {
		rest = rest[(n+7)/8*8:]
	}
	tags, _, err := rpmHeader(rest)
	if err != nil {
		return nil, fmt.Errorf("header: %w", err)
	}
	str := func(tag int) string {
		if v := tags[tag]; len(v.strings) == 1 {
			return v.strings[0]
		}
		return ""
	}
	info := &rpmInfo{Name: str(rpmTagName), Version: str(rpmTagVersion), Release: str(rpmTagRelease), Arch: str(rpmTagArch), Files: map[string]uint16{}}
	base, dirs, index, modes := tags[rpmTagBaseNames].strings, tags[rpmTagDirNames].strings, tags[rpmTagDirIndexes].ints, tags[rpmTagFileModes].ints
	if len(index) != len(base) || len(modes) != len(base) {
		return nil, fmt.Errorf("%d base names, %d dir indexes, %d modes", len(base), len(index), len(modes))
	}
	for i, b := range base {
		if int(index[i]) >= len(dirs) {
			return nil, fmt.Errorf("file %q: dir index %d of %d", b, index[i], len(dirs))
		}
		info.Files[dirs[index[i]]+b] = uint16(modes[i])
	}
	return info, nil
}

type rpmValue struct {
	strings []string
	ints    []uint32
}

// rpmHeader reads one header structure (magic, index entries, store) and
// returns its string and integer values by tag, and its length.
func rpmHeader(b []byte) (map[int]rpmValue, int, error) {
	if len(b) < 16 || !bytes.Equal(b[:3], []byte{0x8e, 0xad, 0xe8}) {
		return nil, 0, errors.New("no header magic")
	}
	n, size := int(binary.BigEndian.Uint32(b[8:])), int(binary.BigEndian.Uint32(b[12:]))
	if n > 1<<16 || size > 1<<28 || 16+16*n+size > len(b) {
		return nil, 0, errors.New("header larger than the file")
	}
	store := b[16+16*n : 16+16*n+size]
	values := map[int]rpmValue{}
	for i := range n {
		e := b[16+16*i:]
		tag, typ := int(binary.BigEndian.Uint32(e)), binary.BigEndian.Uint32(e[4:])
		off, count := int(binary.BigEndian.Uint32(e[8:])), int(binary.BigEndian.Uint32(e[12:]))
		if off > len(store) {
			return nil, 0, fmt.Errorf("tag %d: offset %d past the store", tag, off)
		}
		var v rpmValue
		switch typ {
		case 3, 4: // int16, int32 arrays
			width := int(typ-2) * 2
			if off+width*count > len(store) {
				return nil, 0, fmt.Errorf("tag %d: past the store", tag)
			}
			for j := range count {
				p := store[off+width*j:]
				if width == 2 {
					v.ints = append(v.ints, uint32(binary.BigEndian.Uint16(p)))
				} else {
					v.ints = append(v.ints, binary.BigEndian.Uint32(p))
				}
			}
		case 6, 8, 9: // string, string array, i18n string
			p := store[off:]
			for range count {
				s, tail, ok := bytes.Cut(p, []byte{0})
				if !ok {
					return nil, 0, fmt.Errorf("tag %d: unterminated string", tag)
				}
				v.strings, p = append(v.strings, string(s)), tail
			}
		default:
			continue
		}
		values[tag] = v
	}
	return values, 16 + 16*n + size, nil
}
