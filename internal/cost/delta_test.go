package cost

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCompare(t *testing.T) {
	old := []Item{{Kind: Tool, Name: "a", Tokens: 100}, {Kind: Tool, Name: "b", Tokens: 50}, {Kind: Prompt, Name: "a", Tokens: 10}}
	new := []Item{{Kind: Tool, Name: "a", Tokens: 300}, {Kind: Prompt, Name: "a", Tokens: 10}, {Kind: Tool, Name: "c", Tokens: 40}}
	d := Compare("o200k_base", "openai", old, new)
	want := []Change{{Tool, "a", 100, 300}, {Tool, "c", 0, 40}, {Tool, "b", 50, 0}}
	if diff := cmp.Diff(want, d.Items); diff != "" || d.Old != 160 || d.New != 350 {
		t.Errorf("old %d new %d, items (-want +got):\n%s", d.Old, d.New, diff)
	}
	if got := d.Change(); got != "+190 tokens, +118.8%" {
		t.Errorf("change %q", got)
	}
}

func TestBudget(t *testing.T) {
	d := Delta{Old: 8000, New: 8900}
	for _, c := range []struct {
		text     string
		exceeded bool
	}{
		{"tokens>8000", true}, {"tokens>9000", false},
		{"tokens>+10%", true}, {"tokens>+12%", false},
		{"tokens>+899", true}, {"tokens>+900", false},
	} {
		b, ok, err := ParseBudget(c.text)
		if !ok || err != nil {
			t.Fatalf("%s: %v %v", c.text, ok, err)
		}
		if b.Exceeded(d) != c.exceeded {
			t.Errorf("%s: exceeded %v, want %v", c.text, !c.exceeded, c.exceeded)
		}
	}
	for _, bad := range []string{"tokens>", "tokens>ten", "tokens>10%", "tokens>-5", "tokens>+%", "tokens>NaN", "tokens>+NaN%", "tokens>Inf"} {
		if _, ok, err := ParseBudget(bad); !ok || err == nil {
			t.Errorf("%s: ok %v, err %v", bad, ok, err)
		}
	}
	if _, ok, _ := ParseBudget("breaking"); ok {
		t.Error("a class read as a budget")
	}
}
