package commands

import (
	"slices"
	"testing"
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
