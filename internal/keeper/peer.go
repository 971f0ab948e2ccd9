package keeper

import (
	"fmt"
	"net"
	"os"
)

// checkPeer refuses a connection from another user than the keeper's.
func checkPeer(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a Unix socket connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	uid, err := peerUID(raw)
	if err != nil {
		return err
	}
	return samePeer(uid, os.Getuid())
}

// samePeer refuses a peer of another uid than the keeper's.
func samePeer(peer, own int) error {
	if peer != own {
		return fmt.Errorf("the peer is uid %d, not the session's owner (uid %d)", peer, own)
	}
	return nil
}
