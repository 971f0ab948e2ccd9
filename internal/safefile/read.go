// Package safefile reads and writes files whose names someone else may
// have chosen (a project's config file, a test file and the files it
// names), so that no name can hang mcpv, fill its memory, or lead it out
// of the directory tree it was given.
package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxSize bounds what is read of one file. Claude Code's ~/.claude.json
// grows with its history; a few tens of megabytes are seen.
const MaxSize = 128 << 20

// Read reads a file that must be a regular file (through symbolic links).
// It is opened without blocking, so a FIFO, a terminal or a device planted
// under the file's name is refused instead of hanging mcpv, reading
// keystrokes or filling memory; a file larger than MaxSize is refused.
func Read(path string) ([]byte, error) { return readChecked(path) }

// Open opens a file to be read in parts, by the rule of Read but for its
// size, which is returned and not bounded: the reader holds what it reads.
func Open(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, 0, err
	}
	st, err := regular(f)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

// regular is f's information, when f is a regular file.
func regular(f *os.File) (fs.FileInfo, error) {
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file but %s", kindOf(st.Mode()))
	}
	return st, err
}

// readOpen reads a file opened without blocking, by the rule of Read.
func readOpen(f *os.File) ([]byte, error) {
	st, err := regular(f)
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxSize {
		return nil, fmt.Errorf("larger than %d MiB", MaxSize>>20)
	}
	// One buffer of the size the file says (and a byte more, to see it
	// grew): io.ReadAll's doubling would allocate twice a large file.
	data := make([]byte, 0, st.Size()+1)
	for len(data) <= MaxSize {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // the file grew: let append find room
		}
		n, err := f.Read(data[len(data):min(cap(data), MaxSize+1)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if len(data) > MaxSize {
		return nil, fmt.Errorf("larger than %d MiB", MaxSize>>20)
	}
	return data, nil
}

// kindOf names what a path that is not a regular file is.
func kindOf(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// ReadOwn is Read for a file that decides what mcpv lets through (a pin
// file): it must also be the user's own, or the system's (root's), and
// writable by no one else, or another user of the machine could swap
// what the user approved for what they would have approved.
func ReadOwn(path string) ([]byte, error) { return readChecked(path, othersMayWrite) }

// ReadPrivate is ReadOwn for a file that holds a secret (a bearer token):
// no other user may read it either, as ssh refuses a private key others
// can read.
func ReadPrivate(path string) ([]byte, error) {
	return readChecked(path, othersMayWrite, othersMayRead)
}

// ReadMine reads a file of mcpv's own places (a server's state, a cached
// verdict), of at most max bytes: a regular file at path itself (a link
// is refused, not followed; a named pipe is not waited on), the user's and
// readable by nobody else, or its access list on Windows.
func ReadMine(path string, max int64) ([]byte, error) {
	f, err := OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file but %s", path, kindOf(fi.Mode()))
	}
	if why := ""; err == nil {
		if why, _, err = Judge(path, f, fi, Mine|Unread); err == nil && why != "" {
			err = fmt.Errorf("%s %s", path, why)
		}
	}
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(data)) > max {
		err = fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return data, err
}

// readChecked opens path without blocking and, when it passes each
// check, reads it by readOpen.
func readChecked(path string, checks ...func(string, fs.FileInfo) error) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	for _, check := range checks {
		if err := check(path, st); err != nil {
			return nil, err
		}
	}
	return readOpen(f)
}
