package testkit

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// WriteScript writes an executable file (a script, or a program's bytes)
// by way of a shell, so that the test process never holds it open for
// writing: a child another test forks meanwhile would hold that
// descriptor until it execs, and running the file then fails with "text
// file busy" (ETXTBSY, go.dev/issue/22315). It needs /bin/sh.
func WriteScript(t testing.TB, path string, content []byte, mode os.FileMode) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", `cat >"$1" && chmod "$2" "$1"`, "sh", path, fmt.Sprintf("%o", mode.Perm()))
	cmd.Stdin = bytes.NewReader(content)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("writing %s: %v: %s", path, err, out)
	}
}
