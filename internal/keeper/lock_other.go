//go:build !unix

package keeper

import (
	"errors"
	"os"
)

var errHeld = errors.New("the lock is held")

// lock: sessions are refused on this system before a keeper starts.
func lock(string) (*os.File, error) { return nil, errors.New("no session locks on this system") }

func unlock(f *os.File) { f.Close() }

func held(string) bool { return false }

func holder(string) int { return 0 }

func terminate(int) {}

func alive(int) bool { return false }

func ownSocket(string, os.FileInfo) error {
	return errors.New("cannot say who owns a socket on this system")
}
