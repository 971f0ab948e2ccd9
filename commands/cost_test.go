package commands

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/cost"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// mcpv cost against the demo server: the report's shape, its total the
// sum of its items, the forms and tokenizers, the table the costliest
// first, the summary line, and the mistakes refused before any server
// starts.
func TestCostCommand(t *testing.T) {
	t.Parallel()
	report := func(extra ...string) cost.Report {
		t.Helper()
		r := mcpv(t, "", args(append([]string{"cost"}, extra...), demo())...)
		var rep cost.Report
		if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil {
			t.Fatalf("%q: exit %d (%v), stderr %q", extra, r.code, err, r.stderr)
		}
		return rep
	}
	rep := report()
	sum, kinds := 0, map[string]int{}
	for _, it := range rep.Items {
		sum += it.Tokens
		kinds[it.Kind]++
		if it.Name == "" || it.Tokens <= 0 || it.Description > it.Tokens {
			t.Errorf("item %+v", it)
		}
	}
	if rep.Tokenizer != "o200k_base" || rep.As != "openai" || rep.Total != sum || rep.Total == 0 || kinds["tool"] < 5 || kinds["prompt"] == 0 ||
		kinds["resource-template"] == 0 || kinds["instructions"] != 1 || rep.Servers != nil {
		t.Errorf("report %+v", rep)
	}
	anthropic, mcpForm, cl100k := report("--as", "anthropic"), report("--as", "mcp"), report("--tokenizer", "cl100k")
	if !(anthropic.Total < rep.Total && rep.Total < mcpForm.Total) || cl100k.Tokenizer != "cl100k_base" || cl100k.Total == rep.Total {
		t.Errorf("totals: anthropic %d, openai %d, mcp %d, cl100k %d", anthropic.Total, rep.Total, mcpForm.Total, cl100k.Total)
	}

	r := mcpv(t, "", args([]string{"cost", "-o", "table"}, demo())...)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != len(rep.Items)+1 || !strings.HasPrefix(lines[0], "TOKENS") {
		t.Fatalf("table: exit %d:\n%s", r.code, r.stdout)
	}
	last := 1 << 30
	for _, l := range lines[1:] {
		n, _ := strconv.Atoi(strings.Fields(l)[0])
		if n > last {
			t.Errorf("the table is not the costliest first:\n%s", r.stdout)
		}
		last = n
	}
	r = mcpv(t, "", args([]string{"cost", "--summary"}, demo())...)
	if want := strconv.Itoa(rep.Total) + " tokens (o200k_base, as openai): "; r.code != 0 || !strings.HasPrefix(r.stdout, want) || strings.Count(r.stdout, "\n") != 1 {
		t.Errorf("summary: %q, want it to begin %q", r.stdout, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"cost"}, "give what to count"},
		{[]string{"cost", "--tokenizer", "claude", "--", "x"}, "--tokenizer"},
		{[]string{"cost", "--as", "gemini", "--", "x"}, "--as"},
		{[]string{"cost", "--all", "--", "x"}, "--all counts every server"},
	} {
		if r := mcpv(t, "", c.args...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q", c.args, r.code, r.stderr)
		}
	}
}

// --all counts every server of the config files, each one's total and
// the sum; a server that cannot start is said and does not stop the
// others. --gateway gives each item of a gateway's listing to the server
// its prefix names.
func TestCostEveryServerAndAGateway(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	mail := newMovingServer(t, `{"serverInfo":{"name":"mail"},"tools":[{"name":"send_email","description":"Sends an email.","inputSchema":{"type":"object"}}]}`)
	gw := newMovingServer(t, `{"serverInfo":{"name":"gateway"},"tools":[{"name":"mail__send","description":"Sends.","inputSchema":{"type":"object"}},
		{"name":"mail__read","inputSchema":{"type":"object"}},{"name":"files__list","description":"Lists files in a directory.","inputSchema":{"type":"object"}}]}`)
	entry := func(s *movingServer) map[string]any {
		return map[string]any{"command": s.cmd[3], "env": map[string]string{mcptest.EnvVar: "spec=" + s.spec}}
	}
	conf, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"mail": entry(mail), "gw": entry(gw),
		"broken": map[string]any{"command": filepath.Join(w.root, "no-such-server")}}})
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.json"), string(conf))

	r := w.mcpv(t, "", "cost", "--all")
	var rep cost.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 4 || !strings.Contains(r.stderr, `server "broken" could not be counted`) {
		t.Fatalf("--all: exit %d (%v), stderr %q, stdout %q", r.code, err, r.stderr, r.stdout)
	}
	var names []string
	total := 0
	for _, s := range rep.Servers {
		names = append(names, s.Name)
		total += s.Total
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"gw", "mail"}) || total != rep.Total || len(rep.Items) != 4 {
		t.Errorf("--all: servers %+v, total %d, %d items", rep.Servers, rep.Total, len(rep.Items))
	}

	r = w.mcpv(t, "", "cost", "--gateway", "-s", "gw")
	rep = cost.Report{}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != 0 {
		t.Fatalf("--gateway: exit %d (%v), stderr %q", r.code, err, r.stderr)
	}
	got := map[string]int{}
	for _, s := range rep.Servers {
		got[s.Name] = s.Items
	}
	if got["mail"] != 2 || got["files"] != 1 || len(got) != 2 {
		t.Errorf("--gateway: servers %+v", rep.Servers)
	}
}

// A server of the command line that fails before it says its name is
// "the server", never server "".
func TestCostOfAServerThatFailsNameless(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"cost"}, fake("no-such-behaviour"))...)
	if r.code != 4 || !strings.Contains(r.stderr, "mcpv: the server could not be counted: ") || strings.Contains(r.stderr, `server ""`) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}
