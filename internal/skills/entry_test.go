package skills

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	t.Parallel()
	d := "sha256:" + strings.Repeat("a", 64)
	entry := func(uri, fm, resources string) string {
		return fmt.Sprintf(`{"uri":%q,"frontmatter":%s,"resources":%s}`, uri, fm, resources)
	}
	fm := `{"name":"refunds","description":"d"}`
	own := fmt.Sprintf(`{"uri":"skill://acme/refunds/SKILL.md","digest":%q,"size":3}`, d)
	tests := []struct {
		name, raw, err string
	}{
		{"valid", entry("skill://acme/refunds/SKILL.md", fm, "["+own+"]"), ""},
		{"dynamic", entry("skill://acme/refunds/SKILL.md", fm, `"dynamic"`), ""},
		{"other scheme", entry("github://o/r/refunds/SKILL.md", fm, `"dynamic"`), ""},
		{"not SKILL.md", entry("skill://acme/refunds/README.md", fm, `"dynamic"`), "not the URI of a SKILL.md"},
		{"no directory", entry("skill:///SKILL.md", fm, `"dynamic"`), "not the URI of a SKILL.md"},
		{"name differs", entry("skill://acme/other/SKILL.md", fm, `"dynamic"`), `not named after its frontmatter name "refunds"`},
		{"no description", entry("skill://acme/refunds/SKILL.md", `{"name":"refunds"}`, `"dynamic"`), "name and a description"},
		{"no resources", `{"uri":"skill://acme/refunds/SKILL.md","frontmatter":` + fm + `}`, `neither a list of files nor "dynamic"`},
		{"resources a string", entry("skill://acme/refunds/SKILL.md", fm, `"static"`), `neither a list of files nor "dynamic"`},
		{"SKILL.md missing", entry("skill://acme/refunds/SKILL.md", fm, fmt.Sprintf(`[{"uri":"skill://acme/refunds/a.md","digest":%q,"size":1}]`, d)), "do not include SKILL.md"},
		{"outside", entry("skill://acme/refunds/SKILL.md", fm, fmt.Sprintf(`[%s,{"uri":"skill://acme/refunds-x/a.md","digest":%q,"size":1}]`, own, d)), "outside the skill's directory"},
		{"twice", entry("skill://acme/refunds/SKILL.md", fm, "["+own+","+own+"]"), "twice"},
		{"digest upper case", entry("skill://acme/refunds/SKILL.md", fm, fmt.Sprintf(`[{"uri":"skill://acme/refunds/SKILL.md","digest":%q,"size":1}]`, strings.ToUpper(d))), "64 lowercase hex"},
		{"too big", entry("skill://acme/refunds/SKILL.md", fm, fmt.Sprintf(`[{"uri":"skill://acme/refunds/SKILL.md","digest":%q,"size":%d}]`, d, MaxBytes+1)), "more than the 16777216"},
		{"sizes whose sum wraps", entry("skill://acme/refunds/SKILL.md", fm, fmt.Sprintf(`[%s,{"uri":"skill://acme/refunds/a.md","digest":%q,"size":%d}]`, own, d, math.MaxInt64)), "more than the 16777216"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.raw))
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
	}
	var many []string
	for i := range MaxResources + 1 {
		many = append(many, fmt.Sprintf(`{"uri":"skill://acme/refunds/%d.md","digest":%q,"size":1}`, i, d))
	}
	if _, err := Parse([]byte(entry("skill://acme/refunds/SKILL.md", fm, "["+strings.Join(many, ",")+"]"))); err == nil || !strings.Contains(err.Error(), "513 files") {
		t.Errorf("513 files: %v", err)
	}
}

func TestVerifyFrontmatter(t *testing.T) {
	t.Parallel()
	s := Skill{URI: "skill://x/SKILL.md", Frontmatter: []byte(`{"name":"x","description":"d","metadata":{"version":2,"tags":["a"]}}`)}
	tests := []struct {
		name, file, err string
	}{
		{"same", "---\nname: x\ndescription: d\nmetadata:\n  version: 2\n  tags: [a]\n---\nbody\n", ""},
		{"BOM and CRLF, end of file", "\ufeff---\r\nname: x\r\ndescription: \"d\"\r\nmetadata: {version: 2.0, tags: [a]}\r\n---", ""},
		{"other description", "---\nname: x\ndescription: e\nmetadata: {version: 2, tags: [a]}\n---\n", `field "description" differs`},
		{"extra field", "---\nname: x\ndescription: d\nmetadata: {version: 2, tags: [a]}\nlicense: MIT\n---\n", `field "license" differs`},
		{"missing field", "---\nname: x\ndescription: d\n---\n", `field "metadata" differs`},
		{"nested differs", "---\nname: x\ndescription: d\nmetadata: {version: \"2\", tags: [a]}\n---\n", `field "metadata" differs`},
		{"no frontmatter", "# x\n", "does not begin with YAML frontmatter"},
		{"not YAML", "---\nname: [x\n---\n", "frontmatter is not YAML"},
		{"not a mapping", "---\n- x\n---\n", "not a mapping"},
		{"alias bomb", "---\n" + aliasBomb(9) + "---\n", "frontmatter is not YAML: 4:34: too many values: aliases expand the file beyond what mcpv reads"},
		{"alias loop", "---\nname: x\ndescription: d\nmetadata: &m {tags: [*m]}\n---\n", "frontmatter is not YAML: "},
	}
	for _, tt := range tests {
		err := s.VerifyFrontmatter([]byte(tt.file))
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
	}
}

// aliasBomb is YAML of a few hundred bytes whose aliases of aliases expand
// to 10^levels values.
func aliasBomb(levels int) string {
	var b strings.Builder
	b.WriteString("name: x\ndescription: d\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= levels; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	return b.String()
}

func TestResourceVerify(t *testing.T) {
	t.Parallel()
	r := Resource{URI: "skill://x/SKILL.md", Digest: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", Size: 5}
	if err := r.Verify([]byte("hello")); err != nil {
		t.Errorf("hello: %v", err)
	}
	if err := r.Verify([]byte("hellO")); err == nil || !strings.Contains(err.Error(), "does not match") {
		t.Errorf("hellO: %v", err)
	}
	if err := r.Verify([]byte("hello!")); err == nil || !strings.Contains(err.Error(), "read 6 bytes where the skill's entry says 5") {
		t.Errorf("hello!: %v", err)
	}
}
