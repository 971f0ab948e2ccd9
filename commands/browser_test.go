package commands

import "testing"

// A browser can be opened where $BROWSER names one, else not over ssh,
// and on a Unix other than macOS only with a display.
func TestCanOpenBrowser(t *testing.T) {
	for _, tt := range []struct {
		goos string
		env  map[string]string
		want bool
	}{
		{"linux", nil, false},
		{"linux", map[string]string{"DISPLAY": ":0"}, true},
		{"linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, true},
		{"linux", map[string]string{"DISPLAY": ":0", "SSH_CONNECTION": "10.0.0.1 5 10.0.0.2 22"}, false},
		{"linux", map[string]string{"BROWSER": "w3m", "SSH_TTY": "/dev/pts/1"}, true},
		{"darwin", nil, true},
		{"darwin", map[string]string{"SSH_TTY": "/dev/ttys001"}, false},
		{"windows", nil, true},
	} {
		if got := canOpenBrowser(tt.goos, func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%s %v: %v, want %v", tt.goos, tt.env, got, tt.want)
		}
	}
}
