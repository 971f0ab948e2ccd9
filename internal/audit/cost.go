package audit

import (
	"fmt"
	"slices"

	"github.com/mcpv/mcpv/internal/cost"
	"github.com/mcpv/mcpv/internal/surface"
)

// RuleCostlyDescription is the audit's view of mcpv cost: a description
// out of proportion to the server's others, sent with every request.
const RuleCostlyDescription = "costly-description"

var costlyDescription = Rule{RuleCostlyDescription, Low, "a description out of proportion to the server's others",
	"Every tool's description goes to the model with every request. A description of 4,000 tokens or more (o200k), or of 1,000 or more and ten times the median of the server's descriptions, costs every conversation that much and often hides a payload in its length; the finding gives the figures. 'mcpv cost' counts every item.",
	"a tool's description of 4,800 tokens where the server's others have 60", []string{"mcpv:cost"}}

// The rule's thresholds, as its Help says them.
const (
	costlyAlone = 4000 // a description this long is out of proportion whatever the others
	costlyAbove = 1000 // and one this long, when it is costlyTimes the median
	costlyTimes = 10
)

// costFindings are the server's items whose description is out of
// proportion.
func costFindings(s surface.Server) []Finding {
	o200k, err := cost.Get("o200k")
	if err != nil {
		return nil
	}
	items, err := (&cost.Counter{Encoding: o200k, As: "openai"}).Server(s.Name, s)
	if err != nil {
		return nil
	}
	var sizes []int
	for _, it := range items {
		if it.Kind != cost.Instructions {
			sizes = append(sizes, it.Description)
		}
	}
	slices.Sort(sizes)
	median := 0
	if len(sizes) > 0 {
		median = sizes[len(sizes)/2]
	}
	var found []Finding
	for _, it := range items {
		n := it.Description
		if n < costlyAlone && (n < costlyAbove || len(sizes) < 3 || n < costlyTimes*max(median, 1)) {
			continue
		}
		kind, name := it.Kind, it.Name
		switch kind {
		case cost.Template:
			kind = "resource template"
		case cost.Instructions:
			name = ""
		}
		found = append(found, Finding{Rule: RuleCostlyDescription, Severity: Low, Server: s.Name, Kind: kind, Name: name, Field: "description",
			Message: fmt.Sprintf("its description is %d tokens (o200k) and the item %d, sent with every request; the median of the server's descriptions is %d", n, it.Tokens, median)})
	}
	return found
}
