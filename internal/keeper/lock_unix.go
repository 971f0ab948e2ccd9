//go:build unix

package keeper

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpv/mcpv/internal/safefile"

	"golang.org/x/sys/unix"
)

// errHeld: another keeper holds the lock.
var errHeld = errors.New("the lock is held")

// lock takes the session's lock file for the life of a keeper: an flock,
// so that two keepers of one name cannot both run, even in one process.
// The file holds the keeper's pid, for people. A lock taken on a file that
// was removed meanwhile (a keeper that just ended) is taken again.
func lock(path string) (*os.File, error) {
	for {
		f, err := safefile.OpenNoFollow(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, errHeld
			}
			return nil, err
		}
		held, err1 := f.Stat()
		now, err2 := os.Lstat(path)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			f.Truncate(0)
			f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
			return f, nil
		}
		f.Close()
	}
}

// unlock removes the lock file and releases it.
func unlock(f *os.File) {
	os.Remove(f.Name())
	f.Close()
}

// held says whether a keeper holds the lock at path.
func held(path string) bool {
	f, err := safefile.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(unix.Flock(int(f.Fd()), unix.LOCK_SH|unix.LOCK_NB), unix.EWOULDBLOCK)
}

// holder is the pid in the lock file at path while a keeper holds it,
// else 0.
func holder(path string) int {
	if !held(path) {
		return 0
	}
	b, _ := os.ReadFile(path) // unread, it holds no pid
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 1 {
		return pid
	}
	return 0
}

// terminate sends SIGTERM to the keeper of pid.
func terminate(pid int) { syscall.Kill(pid, syscall.SIGTERM) }

// alive says whether the process pid is alive: neither gone nor a
// zombie (a keeper whose parent never reaps it has ended all the same).
// A keeper in this very process (tests) is never waited for.
func alive(pid int) bool {
	if pid <= 1 || pid == os.Getpid() {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc here: kill's word stands
	}
	_, state, _ := strings.Cut(string(stat[bytes.LastIndexByte(stat, ')')+1:]), " ")
	return !strings.HasPrefix(state, "Z")
}

// ownSocket refuses a socket file at path that is not a socket, or not
// the user's.
func ownSocket(path string, fi os.FileInfo) error {
	if fi.Mode()&os.ModeSocket == 0 {
		return errors.New("is not a socket")
	}
	why, _, err := safefile.Judge(path, nil, fi, safefile.Mine)
	if err == nil && why != "" {
		err = errors.New(why)
	}
	return err
}
