//go:build !unix

package commands

// runKeeperIfRequested: sessions are Unix sockets, so on other systems
// no test binary is made a keeper.
func runKeeperIfRequested() bool { return false }
