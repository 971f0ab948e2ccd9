package oauth

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock takes an exclusive lock on f without waiting (LockFileEx).
func tryLock(f *os.File) (bool, error) {
	var ol windows.Overlapped
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}

func unlock(f *os.File) {
	var ol windows.Overlapped
	windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}

// looseWhy and looseFix word a PermissionError: the access list decides
// here, and icacls mends it.
func looseWhy(os.FileMode) string { return "its access list allows it" }
func looseFix(path string) string {
	return `icacls "` + path + `" /inheritance:r /grant:r "%USERNAME%:F"`
}
