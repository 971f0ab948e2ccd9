package audit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testkit"
)

// redTeamCase is one server of testdata/redteam: poisoned, or honest but
// speaking of the same things. Each corpus was written blind, by someone
// who had not read the rules, in the manner of published attacks and of
// the servers they hide among; each was run before the rules learned
// from it (the figures of that first run are in docs/guide/trust.md).
type redTeamCase struct {
	ID       string `json:"id"`
	Poisoned bool   `json:"poisoned"`
	Kind     string `json:"kind"`
	Why      string `json:"why"`
	Server   struct {
		ServerInfo   json.RawMessage   `json:"serverInfo"`
		Instructions *string           `json:"instructions"`
		Tools        []json.RawMessage `json:"tools"`
		Prompts      []json.RawMessage `json:"prompts"`
		Resources    []json.RawMessage `json:"resources"`
		Templates    []json.RawMessage `json:"resourceTemplates"`
	} `json:"server"`
}

// surface is the case's server as a saved surface.
func (c redTeamCase) surface() surface.Server {
	var info struct{ Name string }
	json.Unmarshal(c.Server.ServerInfo, &info)
	return surface.Server{Name: info.Name, HasIdentity: true, HasResources: true, Info: c.Server.ServerInfo,
		Instructions: c.Server.Instructions, Resources: c.Server.Resources,
		Snapshot: surface.Snapshot{Tools: c.Server.Tools, Prompts: c.Server.Prompts, ResourceTemplates: c.Server.Templates}}
}

// Every poisoned server of the red-team corpora is still found (a
// finding of medium or above), every finding that fails the default gate
// names its second reading, and no honest server gets a finding above
// low. One reading alone is held to medium (evidence), so a poisoned
// server fails the default gate only where its text gives two readings
// that agree: how many do is counted, and may not fall below
// redTeamAtTheGate.
func TestRedTeamCorporaKeepTheirVerdicts(t *testing.T) {
	testkit.SkipLong(t, "every server of the red-team corpora audited")
	files, _ := filepath.Glob("testdata/redteam/*.json")
	if len(files) < 4 {
		t.Fatalf("red-team corpora: %v", files)
	}
	all, gated := 0, 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cases []redTeamCase
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		poisoned := 0
		for _, c := range cases {
			got := Audit([]Target{{Surface: c.surface()}})
			worst := Info
			for _, f := range got {
				worst = max(worst, f.Severity)
				if f.Severity >= High && len(f.Evidence) == 0 {
					t.Errorf("%s %s: %s %s at %s names no second reading: %s", file, c.ID, f.Rule, f.Item(), f.Severity, f.Message)
				}
			}
			switch {
			case c.Poisoned && worst < Medium:
				t.Errorf("%s %s (%s): missed, worst %s: %s\n%s", file, c.ID, c.Kind, worst, c.Why, describe(got))
			case !c.Poisoned && worst > Low:
				t.Errorf("%s %s: a false alarm: %s\n%s", file, c.ID, c.Why, describe(got))
			}
			if c.Poisoned {
				poisoned++
				if worst >= High {
					gated++
				}
			}
		}
		if poisoned == 0 || poisoned == len(cases) {
			t.Errorf("%s: %d poisoned of %d: a corpus needs both", file, poisoned, len(cases))
		}
		all += poisoned
	}
	t.Logf("poisoned red-team servers failing the default gate: %d of %d (the rest found at medium)", gated, all)
	if gated < redTeamAtTheGate {
		t.Errorf("poisoned red-team servers failing the default gate: %d, fewer than the %d they did", gated, redTeamAtTheGate)
	}
}

// redTeamAtTheGate is how many poisoned red-team servers fail the default
// gate on two readings (of 301; before a finding asked for two, all 301):
// raise it when the readers find more pairs.
const redTeamAtTheGate = 238

// The honest real servers of the field set (testdata/field: the items of
// them that an earlier audit flagged, as the servers listed them) pass
// the default gate: a tool about secrets, SSH or payments, a path named
// to be refused, a workflow's own next step, is not poisoning.
func TestRealServersPassTheGate(t *testing.T) {
	data, err := os.ReadFile("testdata/field/flagged.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []redTeamCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) < 10 {
		t.Fatalf("%d servers", len(cases))
	}
	for _, c := range cases {
		if got := Audit([]Target{{Surface: c.surface()}}); Failing(got, High) {
			t.Errorf("%s (%s) fails the default gate:\n%s", c.ID, c.Why, describe(got))
		}
	}
}

// A real server (testdata/field/shopify-dev.json, @shopify/dev-mcp as it
// listed itself) whose first tool has the model send the user's last
// message, verbatim, to the vendor keeps that finding; its other tools,
// which take the conversationId the first one issues (an id, not the
// conversation), bring nothing above low.
func TestConversationIDIsNoConversation(t *testing.T) {
	data, err := os.ReadFile("testdata/field/shopify-dev.json")
	if err != nil {
		t.Fatal(err)
	}
	var c redTeamCase
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatal(err)
	}
	got := Audit([]Target{{Surface: c.surface()}})
	worst := map[string]Severity{}
	for _, f := range got {
		worst[f.Name] = max(worst[f.Name], f.Severity)
	}
	for _, name := range []string{"feedback", "search_docs_chunks", "validate", "validate_theme"} {
		if worst[name] > Low {
			t.Errorf("%s: %s, a false alarm on a conversationId:\n%s", name, worst[name], describe(got))
		}
	}
	if worst["learn_shopify_api"] < High {
		t.Errorf("learn_shopify_api: %s, missed: it sends the user's message to the vendor\n%s", worst["learn_shopify_api"], describe(got))
	}
}
