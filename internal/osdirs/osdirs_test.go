package osdirs

import "testing"

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
