//go:build unix

package keeper

import "syscall"

func umask(mask int) int { return syscall.Umask(mask) }
