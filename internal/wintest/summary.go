package main

// "wintest summary" reads `go test -json` events (from go tool
// test2json) on stdin and prints one line per top-level test result:
//
//	pass|fail|skip|cleanup NAME
//
// where cleanup is a failure whose only complaint is wine's: wine 8 cannot
// remove a test's temporary directory (the POSIX-semantics delete Go uses
// on Windows answers "Invalid function"). scripts/wine-test.sh uses it.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// wineCleanup is the complaint wine causes at every t.TempDir cleanup.
var wineCleanup = regexp.MustCompile(`TempDir RemoveAll cleanup: .*Invalid function`)

type event struct {
	Action string
	Test   string
	Output string
}

func summary() {
	complaints := map[string]int{} // per test: what it reported, but for wine's cleanup
	in := bufio.NewScanner(os.Stdin)
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
			complaints[top]++
		case "pass", "fail", "skip":
			if e.Test != top {
				continue
			}
			result := e.Action
			if result == "fail" && complaints[top] == 0 {
				result = "cleanup"
			}
			fmt.Println(result, top)
		}
	}
}
