// Command mcpv is a scriptable command-line client for the Model Context Protocol.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcpv/mcpv/commands"
	"github.com/mcpv/mcpv/output"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	// A write to a closed stdout must return EPIPE, not kill mcpv; unlike
	// signal.Ignore, this does not pass SIG_IGN on to the server.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	go func() { // lives as long as the process
		<-sigs
		cancel(commands.ErrInterrupted) // first: cancel on the wire, shut down in order
		<-sigs
		os.Exit(130) // second: at once; the server dies with mcpv
	}()
	os.Exit(commands.Main(ctx, os.Args[1:], output.System()))
}
