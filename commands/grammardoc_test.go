package commands

import (
	"testing"

	"github.com/alecthomas/kong"
)

// TestGrammarDocumented: every command and flag of the whole grammar has
// its help, and every global flag that takes a value its placeholder, now
// that the global ones come from tables beside their groups rather than from
// the tags (a command or flag added without its entry would show none).
func TestGrammarDocumented(t *testing.T) {
	model, err := Grammar()
	if err != nil {
		t.Fatal(err)
	}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if f.Help == "" {
				t.Errorf("%s --%s: no help", n.Path(), f.Name)
			}
		}
		for _, c := range n.Children {
			if c.Help == "" {
				t.Errorf("%s: no help", c.Path())
			}
			walk(c)
		}
	}
	walk(model.Node)
	for _, f := range model.Flags {
		if !f.IsBool() && !f.IsCounter() && f.Enum == "" && f.PlaceHolder == "" && f.Default == "" {
			t.Errorf("--%s takes a value but has no placeholder", f.Name)
		}
	}
	// The other way: every help kept out of the tags is some flag's or
	// command's, and only one's.
	flags, commands := map[string]bool{}, map[string]bool{}
	for _, f := range model.Flags {
		flags[f.Name] = true
	}
	for _, c := range model.Children {
		commands[c.Name] = true
	}
	seen := map[string]bool{}
	for _, g := range new(cli).flagGroups() {
		for _, d := range g.Docs {
			if !flags[d.Name] || seen[d.Name] {
				t.Errorf("the help of --%s: no such global flag, or documented twice", d.Name)
			}
			seen[d.Name] = true
		}
	}
}
