//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package commands

import (
	"errors"
	"os"
)

func hideInput(*os.File) (func(), error) {
	return nil, errors.New("not supported on this system")
}
