package main

// "wintest summary" reads `go test -json` events (from go tool
// test2json) on stdin and prints one line per top-level test result,
//
//	pass|fail|skip|cleanup|start NAME
//
// where cleanup is a failure whose only complaint is wine's (wine 8 cannot
// remove a test's temporary directory: the POSIX-semantics delete Go uses
// on Windows answers "Invalid function"), and start one whose every
// complaint is wine's failure to start a process, which the script runs
// again alone. A fail or a start is followed by what the test said, one
// "said NAME LINE" each. scripts/wine-test.sh uses it.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// wineCleanup is the complaint wine causes at every t.TempDir cleanup.
var wineCleanup = regexp.MustCompile(`TempDir RemoveAll cleanup: .*Invalid function`)

// wineStart is wine's failure to start a process, now and then on a busy
// machine (CreateProcess answers ERROR_INTERNAL_ERROR); Windows does not
// answer so.
var wineStart = regexp.MustCompile(`fork/exec .*: Internal error\.`)

type event struct {
	Action string
	Test   string
	Output string
}

func summary(stdin io.Reader, stdout io.Writer) {
	complaints := map[string][]string{} // per test: what it reported, but for wine's cleanup
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 1<<20), 16<<20)
	for in.Scan() {
		var e event
		if json.Unmarshal(in.Bytes(), &e) != nil || e.Test == "" {
			continue
		}
		top, _, _ := strings.Cut(e.Test, "/")
		switch e.Action {
		case "output":
			// What a test reports (t.Error, t.Log) is indented; other
			// lines are the framework's, or logs of servers it runs.
			line := strings.TrimSpace(e.Output)
			if !strings.HasPrefix(e.Output, "    ") || strings.HasPrefix(line, "--- ") || wineCleanup.MatchString(line) {
				continue
			}
			complaints[top] = append(complaints[top], line)
		case "pass", "fail", "skip":
			if e.Test != top {
				continue
			}
			result := e.Action
			if result == "fail" && len(complaints[top]) == 0 {
				result = "cleanup"
			}
			if result == "fail" && !slices.ContainsFunc(complaints[top], func(c string) bool { return !wineStart.MatchString(c) }) {
				result = "start"
			}
			fmt.Fprintln(stdout, result, top)
			if result == "fail" || result == "start" {
				for _, line := range complaints[top] {
					fmt.Fprintln(stdout, "said", top, line)
				}
			}
		}
	}
}
