// Command wintest is what scripts/wine-test.sh runs beside mcpv.exe. Run
// as "wintest summary" it summarises a test run (summary.go). Otherwise it
// is an MCP server (stdio) that reports what it was started with, for
// checking on Windows that mcpv passes a server its arguments and
// environment intact and ends its whole process tree. Tools:
//
//	argv      its arguments and environment
//	spawn     starts a child that touches a file every 100 ms, and answers
//	          once the file is there until killed
//
// Run as "wintest heartbeat FILE" it is that child.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == "summary" {
		summary(os.Stdin, os.Stdout)
		return
	}
	if len(os.Args) == 3 && os.Args[1] == "heartbeat" {
		for {
			os.WriteFile(os.Args[2], []byte(time.Now().Format(time.RFC3339Nano)), 0o644)
			time.Sleep(100 * time.Millisecond)
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "procserver", Version: "1"}, nil)
	type none struct{}
	type argvOut struct {
		Args []string `json:"args"`
		Env  []string `json:"env"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "argv", Description: "Report the arguments and environment."},
		func(context.Context, *mcp.CallToolRequest, none) (*mcp.CallToolResult, argvOut, error) {
			return nil, argvOut{Args: os.Args[1:], Env: os.Environ()}, nil
		})
	type spawnIn struct {
		File string `json:"file"`
	}
	type spawnOut struct {
		PID int `json:"pid"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "spawn", Description: "Start a child that touches FILE every 100 ms."},
		func(_ context.Context, _ *mcp.CallToolRequest, in spawnIn) (*mcp.CallToolResult, spawnOut, error) {
			self, err := os.Executable()
			if err != nil {
				return nil, spawnOut{}, err
			}
			cmd := exec.Command(self, "heartbeat", in.File)
			if err := cmd.Start(); err != nil {
				return nil, spawnOut{}, err
			}
			for range 100 { // answer once the child is running
				if _, err := os.Stat(in.File); err == nil {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			return nil, spawnOut{PID: cmd.Process.Pid}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "procserver:", err)
		os.Exit(1)
	}
}
