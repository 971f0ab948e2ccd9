package canon

import "testing"

func TestLookAlike(t *testing.T) {
	alike := [][2]string{
		{"read_file", "read_fiIe"},          // capital i for l
		{"read_file", "r\u0435ad_file"},     // Cyrillic е
		{"send_email", "send_emaіl"},        // Cyrillic і
		{"read_file", "read-file"},          // another separator
		{"read_file", "READ_FILE"},          // case
		{"modem", "rnodern"},                // rn for m
		{"tool0", "toolo"},                  // zero for o
		{"get_secret", "get\u200b_secret"},  // a zero-width space
		{"list", "ｌｉｓｔ"},                    // full-width
		{"add", "\u0430dd"},                 // Cyrillic а
		{"search", "se\u0430rch\U000E0041"}, // and a tag
		{"PayPal", "\u0420ay\u0420al"},      // Cyrillic Р
		{"word", "vvord"},
	}
	for _, p := range alike {
		if !LookAlike(p[0], p[1]) {
			t.Errorf("LookAlike(%q, %q) = false; skeletons %q and %q", p[0], p[1], Skeleton(p[0]), Skeleton(p[1]))
		}
	}
	apart := [][2]string{
		{"read_file", "read_file"}, // the same name is not a look-alike of itself
		{"read_file", "write_file"},
		{"get_user", "get_users"},
		{"echo", "add"},
		{"list_tools", "list_prompts"},
		{"search", "research"},
	}
	for _, p := range apart {
		if LookAlike(p[0], p[1]) {
			t.Errorf("LookAlike(%q, %q) = true; skeleton %q", p[0], p[1], Skeleton(p[0]))
		}
	}
}

func TestInvisible(t *testing.T) {
	for _, r := range []rune{0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x202E, 0x2066, 0xE0041, 0xE007F, 0xFE0F, 0xE0100, 0x180E, 0x00AD, 0x034F} {
		if !Invisible(r) {
			t.Errorf("Invisible(%U) = false", r)
		}
	}
	for _, r := range []rune{'a', ' ', '\n', 'é', '中', 0x1F600} {
		if Invisible(r) {
			t.Errorf("Invisible(%U) = true", r)
		}
	}
}

func TestConfusableIsOnlyForOtherScripts(t *testing.T) {
	for r := rune(0); r < 0x80; r++ {
		if _, ok := Confusable(r); ok {
			t.Errorf("Confusable(%q) is true: ASCII is what the others are taken for", r)
		}
	}
	for r, l := range confusables.Get() {
		if l >= 0x80 {
			t.Errorf("confusables[%U] = %U, want an ASCII letter", r, l)
		}
	}
}
