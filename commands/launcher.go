// Whether the launcher that started mcpv still runs: the npm package's
// (scripts/npm-launcher/mcpv.js) holds one end of a pipe while it runs,
// and names mcpv's end in MCPV_LAUNCHER_FD. Killed with SIGKILL, it
// passes no signal on; its end closes all the same, on every system.

package commands

import (
	"io"
	"os"
	"strconv"
)

// LauncherGone returns a channel closed when the launcher that started
// mcpv has ended, which main takes as a SIGTERM; nil when no launcher
// named a pipe. The variable leaves the environment first, so that no
// process mcpv starts (a server, a keeper, whose descriptor 3 is its
// own) watches a pipe it does not hold.
func LauncherGone() <-chan struct{} {
	v, ok := os.LookupEnv("MCPV_LAUNCHER_FD")
	os.Unsetenv("MCPV_LAUNCHER_FD")
	fd, err := strconv.Atoi(v)
	if !ok || err != nil || fd < 3 {
		return nil
	}
	f := launcherPipe(fd)
	if f == nil {
		return nil
	}
	gone := make(chan struct{})
	go func() { // launcher watcher: ends when the launcher's end of the pipe closes
		io.Copy(io.Discard, f)
		close(gone)
	}()
	return gone
}
