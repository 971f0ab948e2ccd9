package keeper

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// peerUID is the uid of the peer process (SO_PEERCRED).
func peerUID(raw syscall.RawConn) (uid int, err error) {
	uid = -1
	if cerr := raw.Control(func(fd uintptr) {
		var cred *unix.Ucred
		if cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			uid = int(cred.Uid)
		}
	}); cerr != nil {
		return -1, cerr
	}
	return uid, err
}
