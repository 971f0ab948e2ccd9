package winacl

import "testing"

const owner = "S-1-5-21-1-2-3-1001"

func TestOthersMayRead(t *testing.T) {
	tests := []struct {
		name   string
		aces   []ACE
		noDACL bool
		want   bool
	}{
		{"owner alone (what Protect writes)", []ACE{{Allow: true, SID: owner, Mask: 0x1F01FF}}, false, false},
		{"owner, SYSTEM and Administrators", []ACE{{true, owner, 0x1F01FF, false}, {true, "S-1-5-18", 0x1F01FF, false}, {true, "S-1-5-32-544", 0x1F01FF, false}}, false, false},
		{"Users may read (an inherited default)", []ACE{{true, owner, 0x1F01FF, false}, {true, "S-1-5-32-545", 0x1200A9, false}}, false, true},
		{"Everyone generic read", []ACE{{Allow: true, SID: "S-1-1-0", Mask: 0x80000000}}, false, true},
		{"another user generic all", []ACE{{Allow: true, SID: "S-1-5-21-1-2-3-1002", Mask: 0x10000000}}, false, true},
		{"another user may only read attributes", []ACE{{Allow: true, SID: "S-1-5-21-1-2-3-1002", Mask: 0x80}}, false, false},
		{"a deny entry exposes nothing", []ACE{{Allow: false, SID: "S-1-1-0", Mask: 0x1F01FF}}, false, false},
		{"no DACL at all: everyone may", nil, true, true},
		{"an empty DACL: nobody may", nil, false, false},
	}
	for _, tt := range tests {
		if got := OthersMayRead(owner, tt.aces, tt.noDACL); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestOthersMayWriteDir(t *testing.T) {
	tests := []struct {
		name string
		aces []ACE
		want bool
	}{
		// A profile's AppData\Local as Windows makes it.
		{"owner, SYSTEM, Administrators", []ACE{{true, owner, 0x1F01FF, false}, {true, "S-1-5-18", 0x1F01FF, false}, {true, "S-1-5-32-544", 0x1F01FF, false}}, false},
		{"CREATOR OWNER, inherit-only", []ACE{{true, owner, 0x1F01FF, false}, {true, "S-1-3-0", 0x10000000, true}}, false},
		{"Users may read and list", []ACE{{true, owner, 0x1F01FF, false}, {true, "S-1-5-32-545", 0x1200A9, false}}, false},
		// C:\ and similar: Authenticated Users may create folders.
		{"Authenticated Users may add subdirectories", []ACE{{true, "S-1-5-11", 0x4, false}}, true},
		{"Everyone may add files", []ACE{{true, "S-1-1-0", 0x2, false}}, true},
		{"another user may delete children", []ACE{{true, "S-1-5-21-1-2-3-1002", 0x40, false}}, true},
		{"another user may change the DACL", []ACE{{true, "S-1-5-21-1-2-3-1002", 0x40000, false}}, true},
		{"Everyone generic write", []ACE{{true, "S-1-1-0", 0x40000000, false}}, true},
		{"an inherit-only grant to others does not apply here", []ACE{{true, "S-1-1-0", 0x1F01FF, true}}, false},
	}
	for _, tt := range tests {
		if got := OthersMayWriteDir(owner, tt.aces, false); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if !OthersMayWriteDir(owner, nil, true) {
		t.Error("a directory without a DACL is open to everyone")
	}
}

func TestMine(t *testing.T) {
	for _, tt := range []struct {
		owner string
		want  bool
	}{
		{owner, true},
		{"S-1-5-32-544", true}, // made by the user's elevated process
		{"S-1-5-21-1-2-3-1002", false},
		{"S-1-1-0", false},
	} {
		if got := Mine(tt.owner, owner); got != tt.want {
			t.Errorf("Mine(%s): %v, want %v", tt.owner, got, tt.want)
		}
	}
}
