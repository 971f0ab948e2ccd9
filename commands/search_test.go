package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/output"
)

// search asks every configured server at once and ranks what they offer;
// a server that cannot start, or (in the long tier, which waits for it)
// does not list within --wait, is said on stderr and in "failed", and the
// others' hits are printed, each with the command that uses it.
func TestSearchEveryServer(t *testing.T) {
	t.Parallel()
	t.Run("quick", func(t *testing.T) { searchEveryServer(t, false) })
	t.Run("a server slower than --wait", func(t *testing.T) {
		testkit.SkipLong(t, "waits --wait (10 s) for a server that starts in 10 minutes")
		searchEveryServer(t, true)
	})
}

func searchEveryServer(t *testing.T, slow bool) {
	t.Parallel()
	w := newCfgWorld(t)
	mail := newMovingServer(t, `{"serverInfo":{"name":"mail"},"tools":[{"name":"send_email","description":"Sends an email.\nTo anyone.","inputSchema":{"type":"object","properties":{"to":{"type":"string"}}}},{"name":"list_folders","inputSchema":{"type":"object"}}]}`)
	files := newMovingServer(t, `{"serverInfo":{"name":"files"},"tools":[{"name":"read_file","description":"Reads a file; can email it too.","inputSchema":{"type":"object"}}]}`)
	entry := func(s *movingServer, more string) map[string]any {
		return map[string]any{"command": s.cmd[3], "env": map[string]string{mcptest.EnvVar: "spec=" + s.spec + more}}
	}
	servers := map[string]any{"mail": entry(mail, ""), "files": entry(files, ""), "broken": map[string]any{"command": filepath.Join(w.root, "no-such-server")}}
	// The healthy servers list within --wait however loaded the machine:
	// ten seconds against the tenth of one they take at rest.
	wait := "60s"
	if slow {
		servers["slow"], wait = entry(files, ",slow-start=600000"), "10s"
	}
	conf, _ := json.Marshal(map[string]any{"mcpServers": servers})
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.json"), string(conf))

	r := w.mcpv(t, "", "search", "--wait", wait, "email")
	var got struct {
		Query string
		Hits  []struct {
			Server, Kind, Name, Description, Command string
			Tokens                                   int
		}
		Failed []struct{ Server, Error string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 || got.Query != "email" {
		t.Fatalf("exit %d (%v), stdout %q, stderr %q", r.code, err, r.stdout, r.stderr)
	}
	if len(got.Hits) != 2 || got.Hits[0].Name != "send_email" || got.Hits[0].Server != "mail" || got.Hits[0].Description != "Sends an email." ||
		got.Hits[0].Command != "mcpv call send_email -s mail --help" || got.Hits[0].Tokens == 0 || got.Hits[1].Name != "read_file" {
		t.Errorf("hits: %+v", got.Hits)
	}
	failed := map[string]string{}
	for _, f := range got.Failed {
		failed[f.Server] = f.Error
	}
	if failed["broken"] == "" || !strings.Contains(r.stderr, `server "broken" could not be searched`) ||
		slow && (len(failed) != 2 || !strings.Contains(failed["slow"], "10s (--wait)") || !strings.Contains(r.stderr, `server "slow" could not be searched`)) ||
		!slow && len(failed) != 1 {
		t.Errorf("failed: %v; stderr %q", got.Failed, r.stderr)
	}
	if r := w.mcpv(t, "", "search", "--", "--"); r.code != 2 {
		t.Errorf("no words: exit %d, %s", r.code, r.stderr)
	}
}

// Every hit's command runs as printed: split as a shell splits it, it
// parses to the command that uses the hit (a tool's usage, a prompt, a
// read, or for a name that would read as a flag, its list filtered), on
// the server the search's own command line named: the same session flags,
// the config server the hit is of, the same words after --.
func TestSearchCommandsParse(t *testing.T) {
	t.Parallel()
	env := testEnv(t)
	env.Cwd = t.TempDir()
	if err := os.WriteFile(filepath.Join(env.Cwd, "servers.json"), []byte(`{"mcpServers":{}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	parse := func(t *testing.T, args []string) (*cli, *kong.Context, []string) {
		t.Helper()
		own, server := splitServer(args)
		var c cli
		kctx, err := parseWith(&c, toolHelp(own, len(server) > 0), output.NewStreams(strings.NewReader(""), io.Discard, io.Discard), env, nil)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return &c, kctx, server
	}
	evil := "--sampling-cmd=sh -c evil"
	hits := []struct {
		hit  rankedHit
		uses func(c *cli) string // what the command line parses to, in words
		want string
	}{
		{rankedHit{Kind: kindTool, Name: "add"}, func(c *cli) string { return fmt.Sprint("usage ", c.ListTools.Usage, " ", c.ListTools.Name) }, "usage true add"},
		{rankedHit{Kind: kindTool, Name: `it's a "tool" $(rm -rf ~)`}, func(c *cli) string { return fmt.Sprint("usage ", c.ListTools.Usage, " ", c.ListTools.Name) }, `usage true it's a "tool" $(rm -rf ~)`},
		{rankedHit{Kind: kindPrompt, Name: "greet"}, func(c *cli) string { return "prompt " + c.GetPrompt.Name }, "prompt greet"},
		{rankedHit{Kind: kindResource, Name: "file:///tmp/a b.txt"}, func(c *cli) string { return "read " + c.Read.URI }, "read file:///tmp/a b.txt"},
		{rankedHit{Kind: kindTemplate, Name: "notes://{id}"}, func(c *cli) string { return "read " + c.Read.URI }, "read notes://{id}"},
		{rankedHit{Kind: kindTool, Name: evil}, func(c *cli) string { return c.Jq + " " + c.flags.SamplingCmd }, `.tools[] | select(.name == "--sampling-cmd=sh -c evil") `},
		{rankedHit{Kind: kindResource, Name: "-rf"}, func(c *cli) string { return c.Jq }, `.resources[] | select(.uri == "-rf")`},
	}
	for _, search := range [][]string{
		{"search", "x", "--", "./server", "an arg", "--flag"},
		{"--env", "A=1 2", "-H", "X-Key: v", "--timeout", "90", "search", "x", "--", "npx", "-y", "pkg"},
		{"search", "x", "-u", "http://127.0.0.1:1/mcp", "--header=X-A: b", "--inherit-env", "--answer", "k=v"},
		{"--config", filepath.Join(env.Cwd, "servers.json"), "search", "x"}, // the config's servers: each hit names its own
		{"search", "x", "--session", "s1"},
		{"search", "x", "-s", "github"},
	} {
		_, kctx, server := parse(t, search)
		given := sessionFlagWords(kctx, env)
		for _, h := range hits {
			h.hit.Server = "mail"
			flags := given
			if search[0] == "--config" {
				flags = append(slices.Clone(given), "-s", h.hit.Server)
			}
			line := useCommand(h.hit, flags, server)
			words, err := shellwords.Split(line)
			if err != nil || words[0] != "mcpv" {
				t.Fatalf("%q: %q: %v", search, line, err)
			}
			c, got, gotServer := parse(t, words[1:])
			if uses := h.uses(c); uses != h.want || !slices.Equal(gotServer, server) ||
				!slices.Equal(sessionFlagWords(got, env), append(slices.Clone(given), map[bool][]string{true: {"--server=mail"}}[search[0] == "--config"]...)) {
				t.Errorf("%q: %s\n  parses to %q, server %q, flags %q; want %q, %q, %q", search, line, uses, gotServer, sessionFlagWords(got, env), h.want, server, flags)
			}
		}
	}
}

// The finding that asked for it: "add numbers" finds the tool that holds
// one of the words, and its command, run as printed, shows that tool's
// arguments from the server given after --, not call's own help.
func TestSearchHitRunsAsPrinted(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"search", "-r", "-q", ".hits[0].command", "adding", "numbers"}, demo())...)
	words, err := shellwords.Split(strings.TrimSpace(r.stdout))
	if r.code != 0 || err != nil || len(words) < 2 || words[0] != "mcpv" {
		t.Fatalf("exit %d, stdout %q (%v), stderr %q", r.code, r.stdout, err, r.stderr)
	}
	if want := []string{"mcpv", "call", "add", "--env=" + demo()[1], "--help", "--", demo()[3]}; !slices.Equal(words, want) {
		t.Errorf("command %q, want %q", words, want)
	}
	run := mcpv(t, "", words[1:]...)
	if run.code != 0 || !strings.Contains(run.stdout, "Usage: mcpv call add") || strings.Contains(run.stdout, "Call a tool.") {
		t.Errorf("%q: exit %d, stdout %q, stderr %q", words, run.code, run.stdout, run.stderr)
	}
}

// What a hostile server names its items is data in the hit: a name of
// terminal escapes, quotes and a newline is printed escaped in JSON and
// made safe in the table, its command quoted for a shell; and a secret the
// command line gave the server (--env API_TOKEN=...) is masked in every
// hit's command, as everywhere mcpv writes.
func TestSearchHostileNamesAndSecrets(t *testing.T) {
	t.Parallel()
	evil := "add\x1b[2J\x1b]0;owned\x07\n'; rm -rf ~; '"
	srv := newMovingServer(t, `{"serverInfo":{"name":"h"},"tools":[{"name":`+string(rawjson.MustMarshal(evil))+`,"description":"Adds numbers.\u001b[31m","inputSchema":{"type":"object"}}]}`)
	secret := "hunter2-hunter2-hunter2"
	tail := append([]string{"--env", "API_TOKEN=" + secret}, srv.cmd...)
	r := mcpv(t, "", args([]string{"search", "add"}, tail)...)
	var got struct {
		Hits []struct{ Name, Command string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 || len(got.Hits) != 1 || got.Hits[0].Name != evil {
		t.Fatalf("exit %d (%v): %s %s", r.code, err, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, secret) || !strings.Contains(got.Hits[0].Command, "API_TOKEN=***") || strings.ContainsRune(r.stdout, '\x1b') {
		t.Errorf("stdout %q", r.stdout)
	}
	if words, err := shellwords.Split(got.Hits[0].Command); err != nil || !slices.Contains(words, evil) {
		t.Errorf("command %q: %q, %v", got.Hits[0].Command, words, err)
	}
	table := mcpv(t, "", args([]string{"search", "add", "-o", "table"}, tail)...)
	if table.code != 0 || strings.ContainsRune(table.stdout, '\x1b') || strings.ContainsRune(table.stdout, '\x07') || strings.Contains(table.stdout, secret) {
		t.Errorf("table: exit %d, %q %q", table.code, table.stdout, table.stderr)
	}
}

// An item a server lists with members of the wrong type is left out of
// the search, and said once on stderr with how many; the others are
// still found.
func TestSearchMalformedItemSaid(t *testing.T) {
	t.Parallel()
	r := mcpv(t, "", args([]string{"search", "add"}, specFake(t, `{"era":"initialize","tools":[{"name":"add","inputSchema":{"type":"object"}},`+
		`{"name":"add_more","description":7,"inputSchema":{"type":"object"}}]}`))...)
	var got struct{ Hits []struct{ Name string } }
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 || len(got.Hits) != 1 || got.Hits[0].Name != "add" {
		t.Fatalf("exit %d (%v): %s %s", r.code, err, r.stdout, r.stderr)
	}
	if strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "mcpv: server ") || !strings.Contains(r.stderr, ": 1 of its items left out: they do not decode") {
		t.Errorf("stderr %q", r.stderr)
	}
}
