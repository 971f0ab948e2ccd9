//go:build unix

package oauth

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// tryLock takes an exclusive lock on f without waiting: false when another
// holds it.
func tryLock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EINTR) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// looseWhy and looseFix word a PermissionError.
func looseWhy(mode os.FileMode) string { return fmt.Sprintf("mode %04o", mode.Perm()) }
func looseFix(string) string           { return "chmod 600" }
