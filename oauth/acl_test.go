package oauth

import "testing"

func TestOthersMayRead(t *testing.T) {
	const owner = "S-1-5-21-1-2-3-1001"
	tests := []struct {
		name string
		aces []ace
		want bool
	}{
		{"owner alone (what protect writes)", []ace{{true, owner, 0x1F01FF}}, false},
		{"owner, SYSTEM and Administrators", []ace{{true, owner, 0x1F01FF}, {true, "S-1-5-18", 0x1F01FF}, {true, "S-1-5-32-544", 0x1F01FF}}, false},
		{"Users may read (an inherited default)", []ace{{true, owner, 0x1F01FF}, {true, "S-1-5-32-545", 0x1200A9}}, true},
		{"Everyone generic read", []ace{{true, "S-1-1-0", 0x80000000}}, true},
		{"another user generic all", []ace{{true, "S-1-5-21-1-2-3-1002", 0x10000000}}, true},
		{"another user may only read attributes", []ace{{true, "S-1-5-21-1-2-3-1002", 0x80}}, false},
		{"a deny entry exposes nothing", []ace{{false, "S-1-1-0", 0x1F01FF}}, false},
	}
	for _, tt := range tests {
		if got := othersMayRead(owner, tt.aces); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
