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

// ownProcess reports whether pid is a live process of this user: one of
// another user's (EPERM) is not a login of ours, whatever it listens on.
func ownProcess(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}
