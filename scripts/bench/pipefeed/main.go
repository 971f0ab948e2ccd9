// Command pipefeed is the least a client can do for scripts/bench.sh's
// batch of pings: it starts the server, initializes, and keeps N pings in
// flight on the server's stdin, sending one more for each answer it reads,
// without decoding the answers. Its time beside the raw floor (the server
// reading the same messages from a file) is what talking over two pipes
// costs the server, whatever the client does.
//
//	pipefeed PINGS IN-FLIGHT SERVER [ARGS...]
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "pipefeed:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) < 3 {
		return fmt.Errorf("usage: pipefeed PINGS IN-FLIGHT SERVER [ARGS...]")
	}
	pings, err1 := strconv.Atoi(args[0])
	window, err2 := strconv.Atoi(args[1])
	if err1 != nil || err2 != nil || pings < 1 || window < 1 {
		return fmt.Errorf("PINGS and IN-FLIGHT are positive numbers")
	}
	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	r := bufio.NewReaderSize(out, 64<<10)
	io.WriteString(in, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipefeed","version":"1"}}}`+"\n")
	if _, err := r.ReadBytes('\n'); err != nil {
		return fmt.Errorf("initialize: %v", err)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	sent := 0
	send := func() error {
		sent++
		_, err := fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", sent)
		return err
	}
	for sent < min(window, pings) {
		if err := send(); err != nil {
			return err
		}
	}
	for got := 0; got < pings; got++ {
		if _, err := r.ReadBytes('\n'); err != nil {
			return fmt.Errorf("after %d answers: %v", got, err)
		}
		if sent < pings {
			if err := send(); err != nil {
				return err
			}
		}
	}
	in.Close()
	return cmd.Wait()
}
