// Command sessionfloor is the least a command through an mcpv session
// keeper can do, for scripts/bench.sh: it connects to the keeper's socket,
// attaches, reads the keeper's hello, sends one request and prints the
// answer, decoding nothing. Its time beside a hello-world program is what
// the attach and one round trip through the keeper cost any client, before
// it parses a command line, finds a tool or prints a result.
//
//	sessionfloor SOCKET REQUEST
//
// REQUEST is one JSON-RPC request on one line, with "id":1; the keeper
// writes its answer as {"jsonrpc":"2.0","id":1,... (internal/keeper).
package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
)

// answerWait bounds the whole exchange.
const answerWait = 30 * time.Second

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "sessionfloor:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return errors.New("usage: sessionfloor SOCKET REQUEST")
	}
	c, err := net.Dial("unix", args[0])
	if err != nil {
		return err
	}
	defer c.Close()
	// A keeper that stops answering ends the run with an error, not a
	// bench that waits for ever.
	c.SetDeadline(time.Now().Add(answerWait))
	if _, err := c.Write([]byte("{\"attach\":{}}\n")); err != nil {
		return err
	}
	r := bufio.NewReaderSize(c, 64<<10)
	hello, err := r.ReadSlice('\n')
	if err != nil {
		return fmt.Errorf("the keeper's hello: %w", err)
	}
	if !bytes.HasPrefix(hello, []byte(`{"hello":`)) {
		return fmt.Errorf("the keeper said %.200s", hello)
	}
	if _, err := c.Write([]byte(`{"msg":` + args[1] + "}\n")); err != nil {
		return err
	}
	answer := []byte(`{"jsonrpc":"2.0","id":1,`)
	for {
		line, err := r.ReadSlice('\n')
		ours := bytes.HasPrefix(line, answer)
		for errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			if ours {
				if _, err := os.Stdout.Write(line); err != nil {
					return err
				}
			}
			line, err = r.ReadSlice('\n')
		}
		if err != nil {
			return fmt.Errorf("the answer: %w", err)
		}
		if ours {
			_, err := os.Stdout.Write(line)
			return err
		}
	}
}
