//go:build linux || darwin

package keeper

import "syscall"

// uidOf runs get on the connection's descriptor.
func uidOf(raw syscall.RawConn, get func(fd int) (int, error)) (int, error) {
	uid, gerr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, gerr = get(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, gerr
}
