package mcp

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcpv/mcpv/internal/lazy"
)

// toolchain are the processes of a build as the go command runs them:
// itself, its tools, a C toolchain for cgo, version control for a module,
// and a shell a command line may put around go.
var toolchain = &lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"go": true, "compile": true, "link": true, "asm": true, "cgo": true, "vet": true, "buildid": true, "pack": true,
		"gcc": true, "cc": true, "cc1": true, "clang": true, "as": true, "ld": true, "collect2": true,
		"git": true, "git-remote-http": true, "git-remote-https": true, "hg": true,
		"sh": true, "bash": true, "dash": true,
	}
}}

// building reports whether the process group pgid is the Go toolchain
// building a program it has yet to run (go run, before the program
// starts): the go command is among its processes, and every one is the
// go command, a step of its build (compile, link, a C compiler, git to
// fetch a module) or a shell around it. Read from /proc.
func building(pgid int) bool {
	// The group's leader first: a server that is no step of a build, or
	// gone (the usual answers), is known from one file, not every process's.
	if comm, g, ok := procStat("/proc/" + strconv.Itoa(pgid) + "/stat"); !ok || g == pgid && !toolchain.Get()[comm] {
		return false
	}
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	found := false
	for _, p := range procs {
		comm, g, ok := procStat(p)
		if !ok || g != pgid {
			continue
		}
		if !toolchain.Get()[comm] {
			return false // the program runs: built
		}
		found = found || comm == "go"
	}
	return found
}

// procStat reads a process's name and group from its /proc stat file;
// ok is false when it is gone or cannot be read.
func procStat(path string) (comm string, pgrp int, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", 0, false // gone meanwhile
	}
	// pid (comm) state ppid pgrp ...: comm may hold spaces and parens.
	open, close := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || close < open {
		return "", 0, false
	}
	fields := bytes.Fields(b[close+1:])
	if len(fields) < 3 {
		return "", 0, false
	}
	g, err := strconv.Atoi(string(fields[2]))
	if err != nil {
		return "", 0, false
	}
	return string(b[open+1 : close]), g, true
}
