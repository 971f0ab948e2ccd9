package safedir

import (
	"strings"
	"testing"
)

func TestJoin(t *testing.T) {
	if got := Join("windows", `C:\Users\me\AppData\Roaming\`, "Claude", "claude_desktop_config.json"); got != `C:\Users\me\AppData\Roaming\Claude\claude_desktop_config.json` {
		t.Errorf("windows: %s", got)
	}
	if got := Join("linux", "/home/me/", ".config", "mcpv"); got != "/home/me/.config/mcpv" {
		t.Errorf("linux: %s", got)
	}
}

func TestIsAbs(t *testing.T) {
	for p, want := range map[string]bool{`C:\x`: true, `c:/x`: true, `\\host\share`: true, `x\y`: false, `C:x`: false, "": false} {
		if got := IsAbs("windows", p); got != want {
			t.Errorf("IsAbs(windows, %q) = %v", p, got)
		}
	}
	if !IsAbs("linux", "/x") || IsAbs("linux", "x") {
		t.Error("linux")
	}
}

// One rule for the names that become files and paths: what a shell,
// a file system or a URL would read as something else is refused.
func TestCheckName(t *testing.T) {
	for _, name := range []string{"a", "a-b_c.1", "GitHub", strings.Repeat("x", 64)} {
		if err := CheckName("a name", name); err != nil {
			t.Errorf("%q: %v", name, err)
		}
	}
	for _, name := range []string{"", ".", "..", "../x", "-rf", "_a", ".hidden", "a/b", "a b", "a\\b", "g\u0456thub", strings.Repeat("x", 65)} {
		if err := CheckName("a name", name); err == nil || !strings.Contains(err.Error(), "a name here holds") {
			t.Errorf("%q: %v", name, err)
		}
	}
}
