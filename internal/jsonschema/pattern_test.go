package jsonschema

import (
	"strings"
	"testing"
)

// A real server's e-mail pattern (an npm server of the field set) uses two
// lookaheads: valid ECMA-262, which Go's regular expressions lack. The
// schema is valid, the pattern is said to be unchecked, and no value is
// refused by it.
func TestPatternWithLookaheadIsValidAndUnchecked(t *testing.T) {
	doc := `{"type":"object","properties":{"email":{"type":"string","pattern":"^(?!\\.)(?!.*\\.\\.)([A-Za-z0-9_'+\\-\\.]*)[A-Za-z0-9_+-]@([A-Za-z0-9][A-Za-z0-9\\-]*\\.)+[A-Za-z]{2,}$"}}}`
	s, err := Compile([]byte(doc))
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	u := s.Unchecked()
	if len(u) != 1 || !strings.HasPrefix(u[0], "/properties/email/pattern: a lookahead") {
		t.Fatalf("Unchecked() = %q, want the email pattern's lookahead", u)
	}
	for _, v := range []string{`{"email":"a@b.example"}`, `{"email":".a..b"}`} {
		if err := s.Validate([]byte(v)); err != nil {
			t.Errorf("Validate(%s) = %v, want nil: an unchecked pattern refuses nothing", v, err)
		}
	}
}

func TestPatternECMAEscapes(t *testing.T) {
	for _, c := range []struct {
		pattern      string
		match, other string
	}{
		{`^\u00e9$`, `"é"`, `"e"`},
		{`^\u{1F600}$`, `"😀"`, `"x"`},
		{`^a\/b$`, `"a/b"`, `"ab"`},
		{`^\cJ$`, `"\n"`, `"J"`},
		{`^x\0$`, `"x\u0000"`, `"x0"`},
		{`^[^]$`, `"q"`, `""`},
		{`^[\u0041-\u005A]+$`, `"ABC"`, `"abc"`},
		{`^(?<year>\d{4})$`, `"2026"`, `"26"`},
	} {
		doc := `{"type":"string","pattern":` + quoteJSON(c.pattern) + `}`
		s, err := Compile([]byte(doc))
		if err != nil {
			t.Errorf("pattern %s: Compile: %v", c.pattern, err)
			continue
		}
		if len(s.Unchecked()) != 0 {
			t.Errorf("pattern %s: unchecked %q, want it enforced", c.pattern, s.Unchecked())
		}
		if err := s.Validate([]byte(c.match)); err != nil {
			t.Errorf("pattern %s: %s refused: %v", c.pattern, c.match, err)
		}
		if err := s.Validate([]byte(c.other)); err == nil {
			t.Errorf("pattern %s: %s accepted, want refused", c.pattern, c.other)
		}
	}
}

func TestPatternNotARegularExpression(t *testing.T) {
	for _, p := range []string{`(`, `a{2,1}`, `[z-a]`, `(?=`} {
		_, err := Compile([]byte(`{"pattern":` + quoteJSON(p) + `}`))
		if err == nil || !strings.Contains(err.Error(), "not a valid regular expression") {
			t.Errorf("pattern %s: err = %v, want not a valid regular expression", p, err)
		}
	}
}

func TestPatternBackreferenceAndLookbehind(t *testing.T) {
	for p, what := range map[string]string{`^(a)\1$`: "a backreference", `(?<=x)y`: "a lookbehind", `(?<!x)y`: "a lookbehind", `^(?<q>.)\k<q>$`: "a backreference"} {
		s, err := Compile([]byte(`{"pattern":` + quoteJSON(p) + `}`))
		if err != nil {
			t.Errorf("pattern %s: %v", p, err)
			continue
		}
		if u := s.Unchecked(); len(u) != 1 || !strings.HasSuffix(u[0], what) {
			t.Errorf("pattern %s: Unchecked() = %q, want %s", p, u, what)
		}
	}
}

func quoteJSON(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
