package keeper

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// peerUID is the uid of the peer process (LOCAL_PEERCRED).
func peerUID(raw syscall.RawConn) (int, error) {
	return uidOf(raw, func(fd int) (int, error) {
		cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if err != nil {
			return -1, err
		}
		return int(cred.Uid), nil
	})
}
