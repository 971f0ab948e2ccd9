package commands

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

func TestBrowserCommand(t *testing.T) {
	const u = "https://auth.example/authorize?a=1&b=%OS%"
	tests := []struct {
		goos, browser string
		name          string
		args          []string
	}{
		{"linux", "", "xdg-open", []string{u}},
		{"linux", "firefox --new-window", "sh", []string{"-c", `firefox --new-window "$1"`, "browser", u}},
		{"darwin", "", "open", []string{u}},
		{"windows", "", "rundll32", []string{"url.dll,FileProtocolHandler", u}},
		{"windows", `C:\Program Files\Mozilla Firefox\firefox.exe`, `C:\Program Files\Mozilla Firefox\firefox.exe`, []string{u}},
	}
	for _, tt := range tests {
		name, args := browserCommand(tt.goos, tt.browser, u)
		if name != tt.name || !slices.Equal(args, tt.args) {
			t.Errorf("%s, BROWSER=%q: %s %q, want %s %q", tt.goos, tt.browser, name, args, tt.name, tt.args)
		}
	}
}

func TestBrowserStartsTheOpener(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("$BROWSER is a shell command on Unix only")
	}
	dir := t.TempDir()
	getenv := func(k string) string {
		if k == "BROWSER" {
			return "printf %s >" + filepath.Join(dir, "opened")
		}
		return ""
	}
	const u = "https://auth.example/authorize?a=1&b=$HOME;x"
	if err := browserOpener("linux", getenv, []string{"PATH=" + os.Getenv("PATH")})(u); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(filepath.Join(dir, "opened"))
		if err == nil && len(b) > 0 {
			if string(b) != u {
				t.Errorf("the opener got %q, want the URL as one word, %q", b, u)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the opener never ran: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestTerminalOnlyWhenStderrIsOne(t *testing.T) {
	var closers []func() error
	if term := newTerminal(false, &closers); term != nil || closers != nil {
		t.Errorf("newTerminal(false) = %v, closers %d; want nil and nothing to close", term, len(closers))
	}
}
