//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
)

// A group watcher ends a server's process group when mcpv dies without
// ending it, however mcpv dies (SIGKILL included), where the kernel does
// not do it (Linux's parent-death signal does; macOS has none). It is a
// small shell that holds the read end of a pipe only mcpv can write to: a
// line "done" (the server has been reaped) lets it go; end of file (mcpv is
// gone) makes it signal the group as a second Ctrl-C would, TERM and then
// KILL. It ignores the terminal's signals, which go to mcpv.
const groupWatcherScript = `trap '' INT HUP TERM QUIT
IFS= read -r line
[ "$line" = done ] && exit 0
kill -s TERM -- "-$1" 2>/dev/null || exit 0
sleep 2
kill -s KILL -- "-$1" 2>/dev/null
exit 0`

type groupWatcher struct {
	w    *os.File // the pipe's write end; closing it without "done" fires
	once sync.Once
}

// watchGroup starts a watcher of process group pgid.
func watchGroup(pgid int) (*groupWatcher, error) {
	r, w, err := os.Pipe() // close-on-exec: no other child holds it
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command("/bin/sh", "-c", groupWatcherScript, "mcpv-watch", strconv.Itoa(pgid))
	cmd.Stdin = r
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	go cmd.Wait() // group watcher reaper: reaps it, whenever it ends
	return &groupWatcher{w: w}, nil
}

// done tells the watcher the group has ended in order.
func (g *groupWatcher) done() {
	g.once.Do(func() {
		g.w.Write([]byte("done\n"))
		g.w.Close()
	})
}
