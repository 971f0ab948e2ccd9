package keeper

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// peerUID is the uid of the peer process (LOCAL_PEERCRED).
func peerUID(raw syscall.RawConn) (uid int, err error) {
	uid = -1
	if cerr := raw.Control(func(fd uintptr) {
		var cred *unix.Xucred
		if cred, err = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED); err == nil {
			uid = int(cred.Uid)
		}
	}); cerr != nil {
		return -1, cerr
	}
	return uid, err
}
