package config

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// maxFileSize bounds what is read of one config file. Claude Code's
// ~/.claude.json grows with its history; a few tens of megabytes are seen.
const maxFileSize = 128 << 20

// readFile reads a config file that must be a regular file (through
// symbolic links). It is opened without blocking, so a FIFO, a terminal or
// a device planted under a config file's name is refused instead of
// hanging mcpv, reading keystrokes or filling memory.
func readFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file but %s", kindOf(st.Mode()))
	}
	if st.Size() > maxFileSize {
		return nil, fmt.Errorf("larger than %d MiB", maxFileSize>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileSize {
		return nil, fmt.Errorf("larger than %d MiB", maxFileSize>>20)
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
