package mcptest

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// readFramed is readLoop for content-length: header blocks, then bodies.
func (s *server) readFramed() {
	if s.c.framed == "greet" {
		s.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"framed fake ready"}}`)
	}
	for {
		length := -1
		for {
			line, err := s.in.ReadBytes('\n')
			if err != nil {
				return
			}
			line = bytes.TrimRight(line, "\r\n")
			if len(line) == 0 {
				if length >= 0 {
					break
				}
				continue
			}
			name, value, ok := strings.Cut(string(line), ":")
			if !ok || strings.ContainsAny(name, `{}" `) {
				if s.c.framed == "exit" {
					fmt.Fprintf(os.Stderr, "fake: Error: bad header %.40q\n", line)
					os.Exit(1)
				}
				if s.c.framed == "reply" {
					s.write(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: not a header line"}}`)
				}
				continue
			}
			if strings.EqualFold(name, "Content-Length") {
				length, _ = strconv.Atoi(strings.TrimSpace(value))
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(s.in, body); err != nil {
			return
		}
		s.log.Write(append(body, '\n'))
		if !s.deliver(s.decode(body)) {
			return
		}
	}
}

// framedWriter sends each write, one message and its newline, as a
// Content-Length frame.
type framedWriter struct{ w io.Writer }

func (f framedWriter) Write(p []byte) (int, error) {
	body := bytes.TrimSuffix(p, []byte("\n"))
	if _, err := fmt.Fprintf(f.w, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		return 0, err
	}
	return len(p), nil
}
