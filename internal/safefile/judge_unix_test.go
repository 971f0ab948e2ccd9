//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every owner and mode check is Judge's: each condition fails on what it
// names, and on nothing else.
func TestJudge(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mode       os.FileMode
		dir        bool
		want       Want
		failed     Want
		whyContain string
	}{
		{0o600, false, Mine | Unread | Unwritten | NotWorldWritten, 0, ""},
		{0o640, false, Unread, Unread, "can be read by others (mode 0640)"},
		{0o644, false, Unwritten | NotWorldWritten, 0, ""},
		{0o664, false, Unwritten, Unwritten, "can be written by others (mode 0664)"},
		{0o664, false, NotWorldWritten, 0, ""},
		{0o666, false, NotWorldWritten, NotWorldWritten, "writable by every user of the machine (mode 0666)"},
		{0o777 | os.ModeSticky, true, Unwritten, 0, ""}, // each user keeps to their own files
		{0o777, true, Unwritten, Unwritten, "can be written by others (mode 0777)"},
	} {
		path := file
		if c.dir {
			path = filepath.Join(dir, "d")
			os.Mkdir(path, 0o700)
		}
		if err := os.Chmod(path, c.mode); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		why, failed, err := Judge(path, nil, fi, c.want)
		if err != nil || failed != c.failed || (c.whyContain == "") != (why == "") || c.whyContain != "" && !strings.Contains(why, c.whyContain) {
			t.Errorf("mode %v, want %b: %q %b %v; want %q %b", c.mode, c.want, why, failed, err, c.whyContain, c.failed)
		}
	}
	if os.Getuid() != 0 {
		return // the owners below need root to give a file away
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		uid    int
		want   Want
		failed Want
	}{
		{65534, Mine, Mine},
		{65534, Mine | RootMay, Mine},
		{65534, Unread, 0},
	} {
		if err := os.Lchown(file, c.uid, c.uid); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Lstat(file)
		why, failed, _ := Judge(file, nil, fi, c.want)
		if failed != c.failed || failed == Mine && why != "belongs to user 65534, not to you (0)" {
			t.Errorf("owner %d, want %b: %q %b", c.uid, c.want, why, failed)
		}
	}
	// Root's file passes RootMay for another user: judged as that user.
	if err := os.Lchown(file, 0, 0); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Lstat(file)
	if why, _, _ := judge(file, nil, fi, 1000, Mine|RootMay); why != "" {
		t.Errorf("root's file, RootMay: %s", why)
	}
	if why, _, _ := judge(file, nil, fi, 1000, Mine); why != "belongs to user 0, not to you (1000)" {
		t.Errorf("root's file, Mine alone: %q", why)
	}
}
