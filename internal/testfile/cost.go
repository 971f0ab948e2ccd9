package testfile

import (
	"slices"

	"github.com/mcpv/mcpv/internal/cost"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// CostBudget is a cost step's: the most tokens the server's surface may
// cost in all (Max, 0 for no limit) and each tool named in Tools, counted
// with Tokenizer in the form As (mcpv cost's --tokenizer and --as).
type CostBudget struct {
	Max       int
	Tools     map[string]int
	Tokenizer string
	As        string
}

var costKeys = []string{"max", "tools", "tokenizer", "as"}

// costBudget reads cost: {max: N, tools: {NAME: N}, tokenizer: o200k, as: openai}.
func (p *fileParser) costBudget(v *yamlnode.Node) *CostBudget {
	b := &CostBudget{Tokenizer: "o200k", As: "openai", Tools: map[string]int{}}
	if v.Kind != yamlnode.Object {
		p.errorf(v, "cost: give {max: TOKENS, tools: {NAME: TOKENS}, tokenizer: o200k, as: openai}")
		return b
	}
	given := false
	p.members(v, "cost", costKeys, func(key string, _, kv *yamlnode.Node) {
		given = given || key == "max" || key == "tools"
		switch key {
		case "max":
			if n, ok := p.integer(kv, "max"); ok {
				b.Max = p.positive(kv, "max", n)
			}
		case "tools":
			if kv.Kind != yamlnode.Object {
				p.errorf(kv, "tools: give each tool's budget, {NAME: TOKENS}")
				break
			}
			for i, k := range kv.Keys {
				if n, ok := p.integer(kv.Vals[i], "tools."+k.Text); ok {
					b.Tools[k.Text] = p.positive(kv.Vals[i], "tools."+k.Text, n)
				}
			}
		case "tokenizer":
			if s, ok := p.str(kv, "tokenizer"); ok {
				if _, err := cost.Get(s); err != nil {
					p.errorf(kv, "tokenizer: %v", err)
				}
				b.Tokenizer = s
			}
		case "as":
			if s, ok := p.str(kv, "as"); ok {
				if !slices.Contains(cost.Forms, s) {
					p.errorf(kv, "as: %q is none of openai, anthropic, mcp", s)
				}
				b.As = s
			}
		}
	})
	if !given {
		p.errorf(v, "cost: give a budget: max: TOKENS, or tools: {NAME: TOKENS}")
	}
	return b
}

func (p *fileParser) positive(v *yamlnode.Node, what string, n int) int {
	if n <= 0 {
		p.errorf(v, "%s: a budget is a number of tokens above 0", what)
	}
	return n
}
