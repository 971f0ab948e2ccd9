package surface

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpv/mcpv/mcp"
)

// wantV1toV2 is how testdata/good-v2-breaking.json differs from
// good-v1.json: search's inputSchema loses a property, gains a required
// one, narrows a type and drops an enum value; the rest does not break.
var wantV1toV2 = []Change{
	{Class: ClassSecurity, Object: `tool "echo"`, Path: "description", Message: "description changed", Old: "Say it back.", New: "Say the text back, unchanged."},
	{Breaking: true, Class: ClassBreaking, Object: `tool "search"`, Path: "inputSchema.properties.filter", Message: `argument "filter" removed`},
	{Breaking: true, Class: ClassBreaking, Object: `tool "search"`, Path: "inputSchema.properties.index", Message: `new required argument "index"`},
	{Breaking: true, Class: ClassBreaking, Object: `tool "search"`, Path: "inputSchema.properties.limit.type", Message: `type narrowed from ["integer","string"] to "integer"`},
	{Breaking: true, Class: ClassBreaking, Object: `tool "search"`, Path: "inputSchema.properties.mode.enum", Message: `enum value "fast" removed`},
	{Object: `tool "search"`, Path: "inputSchema.properties.mode.enum", Message: `enum value "exhaustive" added`},
	{Object: `tool "stats"`, Message: "added"},
}

func TestSnapshotDiffInProcess(t *testing.T) {
	old, err := NewLister(serve(t, loadSpec(t, "good-v1.json"))).Gather(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	new, err := NewLister(serve(t, loadSpec(t, "good-v2-breaking.json"))).Gather(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantV1toV2, Diff(old, new)); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
	if d := Diff(new, new); len(d) != 0 {
		t.Errorf("Diff(new, new) = %v", d)
	}
}

// The fixture server as a program, started as mcpv starts a server: a
// snapshot taken and written, the server's schema changed, the breaking
// changes reported; lint finding each fault planted in the bad server.
func TestFixtureServerProgram(t *testing.T) {
	t.Run("snapshot", func(t *testing.T) {
		v1 := startFixtureServer(t, "good-v1.json")
		snap, err := NewLister(v1).Gather(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "surface.json")
		if err := os.WriteFile(file, snap.Marshal(), 0o644); err != nil {
			t.Fatal(err)
		}

		v2 := startFixtureServer(t, "good-v2-breaking.json")
		now, err := NewLister(v2).Gather(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		recorded, err := ParseSnapshot(data)
		if err != nil {
			t.Fatal(err)
		}
		changes := Diff(recorded, now)
		if diff := cmp.Diff(wantV1toV2, changes); diff != "" {
			t.Errorf("Diff (-want +got):\n%s", diff)
		}
		var lines []string
		for _, c := range changes {
			if c.Breaking {
				lines = append(lines, c.String())
			}
		}
		want := `tool "search" inputSchema.properties.filter: argument "filter" removed (breaking)
tool "search" inputSchema.properties.index: new required argument "index" (breaking)
tool "search" inputSchema.properties.limit.type: type narrowed from ["integer","string"] to "integer" (breaking)
tool "search" inputSchema.properties.mode.enum: enum value "fast" removed (breaking)`
		if diff := cmp.Diff(want, strings.Join(lines, "\n")); diff != "" {
			t.Errorf("breaking changes (-want +got):\n%s", diff)
		}
	})

	t.Run("lint", func(t *testing.T) {
		good, err := NewLister(startFixtureServer(t, "good-v1.json")).Lint(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(good) != 0 {
			t.Errorf("the good server: %v", good)
		}
		c := startFixtureServer(t, "bad.json")
		findings, err := NewLister(c).Lint(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		checkBadFindings(t, findings)
		tools, _, err := walk(t.Context(), c, mcp.Tools, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tools {
			if nameOf(tool) != "report" {
				continue
			}
			res, err := c.Call(t.Context(), "tools/call", json.RawMessage(`{"name":"report","arguments":{}}`))
			if err != nil {
				t.Fatal(err)
			}
			f := CheckResult(t.Context(), tool, res)
			if len(f) != 1 || f[0].Rule != RuleStructuredResult || !strings.HasPrefix(f[0].Message, `structuredContent at /count breaks "type": `) {
				t.Errorf("CheckResult(report) = %v", f)
			}
		}
	})
}
