package keeper

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// peerUID is the uid of the peer process (SO_PEERCRED).
func peerUID(raw syscall.RawConn) (int, error) {
	return uidOf(raw, func(fd int) (int, error) {
		cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err != nil {
			return -1, err
		}
		return int(cred.Uid), nil
	})
}
