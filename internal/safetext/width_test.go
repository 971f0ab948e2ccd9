package safetext

import "testing"

func TestCutAndWidth(t *testing.T) {
	for _, tc := range []struct {
		s     string
		width int
		n     int
		cut   string
	}{
		{"hello world", 11, 8, "hello w…"},
		{"hello", 5, 5, "hello"},
		{"日本語テキスト", 14, 7, "日本語…"},
		{"日本語テキスト", 14, 8, "日本語…"},
		{"e\u0301te\u0301", 3, 2, "e\u0301…"},
		{"👍 ok", 5, 3, "👍…"},
		{"abc", 3, 0, ""},
		{"abc", 3, 1, "…"},
		{"a\u00adb\u00adc", 5, 4, "a\u00adb…"},
	} {
		if w := Width(tc.s); w != tc.width {
			t.Errorf("Width(%q) = %d, want %d", tc.s, w, tc.width)
		}
		if got := Fit(tc.s, tc.n); got != tc.cut || Width(got) > max(tc.n, 0) {
			t.Errorf("Fit(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.cut)
		}
	}
}
