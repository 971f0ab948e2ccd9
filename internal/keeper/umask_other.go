//go:build !unix

package keeper

func umask(int) int { return 0 }
