//go:build unix && e2e

package e2e

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
)

// TestMockFromRecording: mcpv serve --record writes what a client saw of
// the demo server; mcpv mock serves it back, on stdio and on HTTP, to
// clients of both eras, who get the same answers; a call not recorded is
// an isError result naming the closest, and arguments that break the
// tool's schema a JSON-RPC error.
func TestMockFromRecording(t *testing.T) {
	testkit.SkipLong(t, "a recording served back on stdio and HTTP to both eras")
	t.Parallel()
	upURL := demoUpstream(t)
	rec := filepath.Join(t.TempDir(), "demo.json")
	calls := [][]string{{"call", "add", "a:=1", "b:=2"}, {"read", "demo://readme"}, {"get-prompt", "greet", "name=Ada"}}
	want := map[string]string{}
	for _, c := range calls { // the answers of the server itself
		out, err := exec.Command(mcpvBin, append(c, "-u", upURL)...).Output()
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		want[strings.Join(c, " ")] = string(out)
	}
	var lines []string
	for _, c := range calls {
		lines = append(lines, strings.Join(c, " "))
	}
	record := exec.Command(mcpvBin, "batch", "--", mcpvBin, "serve", "--record", rec, "-u", upURL)
	record.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	if out, err := record.CombinedOutput(); err != nil {
		t.Fatalf("batch through serve --record: %v\n%s", err, out)
	}
	stdio := []string{"--", mcpvBin, "mock", rec}
	_, _, url, _ := serving(t, "mock", rec, "--http", "127.0.0.1:0")
	for _, era := range []string{"legacy", "modern"} {
		for tr, server := range map[string][]string{"stdio": stdio, "http": {"-u", url}} {
			for _, c := range calls {
				args := append(append([]string{"--protocol-era", era}, c...), server...)
				out, err := exec.Command(mcpvBin, args...).Output()
				w := want[strings.Join(c, " ")]
				if era == "modern" { // a modern client's result says it is complete, and names the server
					w = strings.Replace(w, "{", `{"resultType":"complete",`, 1)
					if !serverNamed.Match(out) {
						t.Errorf("%s %s %v: %s names no server", era, tr, c, out)
					}
					out = serverNamed.ReplaceAll(out, nil)
				}
				if err != nil || string(out) != w {
					t.Errorf("%s %s %v: %v\n got %s\nwant %s", era, tr, c, err, out, w)
				}
			}
			out, err := exec.Command(mcpvBin, append([]string{"--protocol-era", era, "call", "add", "a:=1", "b:=5"}, server...)...).CombinedOutput()
			if code := exitCode(err); code != 1 || !strings.Contains(string(out), `the closest: \"add\" with arguments {\"a\":1,\"b\":2}`) {
				t.Errorf("%s %s: unmatched call: exit %d\n%s", era, tr, code, out)
			}
			out, err = exec.Command(mcpvBin, append([]string{"--protocol-era", era, "call", "add", `a:="one"`, "b:=5", "--no-validate"}, server...)...).CombinedOutput()
			if code := exitCode(err); code != 3 || !strings.Contains(string(out), "/a") || !strings.Contains(string(out), "(type)") {
				t.Errorf("%s %s: invalid arguments: exit %d\n%s", era, tr, code, out)
			}
		}
	}
}
