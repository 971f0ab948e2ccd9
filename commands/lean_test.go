package commands

import (
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/output"
)

// TestCommandsAreTheModels: kong's commands are commandSet's, each once, in
// the order commands lists them, each bound to its own field.
func TestCommandsAreTheModels(t *testing.T) {
	var c cli
	k, err := parser(&c, output.NewStreams(strings.NewReader(""), io.Discard, io.Discard), func(int) {}, nil)
	if err != nil {
		t.Fatal(err)
	}
	cmds := c.commands()
	set := reflect.ValueOf(&c.commandSet).Elem()
	if len(cmds) != set.NumField() {
		t.Errorf("commands lists %d commands, commandSet has %d fields", len(cmds), set.NumField())
	}
	fields := map[any]string{}
	for i := range set.NumField() {
		fields[set.Field(i).Addr().Interface()] = set.Type().Field(i).Name
	}
	seen := map[string]bool{}
	for i, cmd := range cmds {
		f, ok := fields[cmd.value]
		if !ok || seen[f] {
			t.Errorf("command %s: its value is no field of commandSet, or another command's too", cmd.name)
		}
		seen[f] = true
		if i >= len(k.Model.Children) {
			continue
		}
		n := k.Model.Children[i]
		if n.Name != cmd.name || n.Target.Addr().Interface() != cmd.value {
			t.Errorf("kong's command %d is %s on %v, want %s on commandSet.%s", i, n.Name, n.Target.Type(), cmd.name, f)
		}
	}
	if len(k.Model.Children) != len(cmds) {
		t.Errorf("kong has %d commands, commands lists %d", len(k.Model.Children), len(cmds))
	}
}

// TestNoCommandFlagIsGlobal: no flag of a command (or of a command under
// it) has the name or the short name of a global flag. kong refuses such a
// grammar when the commands are fields of the root struct, but checks a
// dynamic command's flags only against each other.
func TestNoCommandFlagIsGlobal(t *testing.T) {
	model, err := Grammar()
	if err != nil {
		t.Fatal(err)
	}
	names, shorts := map[string]bool{}, map[rune]bool{}
	for _, f := range model.Flags {
		names[f.Name] = true
		if f.Short != 0 {
			shorts[f.Short] = true
		}
	}
	var walk func(n *kong.Node)
	walk = func(n *kong.Node) {
		for _, f := range n.Flags {
			if names[f.Name] || f.Short != 0 && shorts[f.Short] {
				t.Errorf("%s --%s: the name or short name of a global flag", n.Path(), f.Name)
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	for _, c := range model.Children {
		walk(c)
	}
}

// TestLeanGrammarParsesAsTheWhole: a command line parsed with only the
// commands and groups of global flags it names gives the same command,
// flags and arguments as with the whole grammar: the groups it leaves out
// get the defaults kong would have given them.
func TestLeanGrammarParsesAsTheWhole(t *testing.T) {
	lines := []string{
		"--version",
		"info",
		"ping",
		"--log-level debug --root /tmp ping",
		"--max-timeout=5m call x",
		"call x --grant client-credentials --client-id c --auth stored",
		"-vH X:1 -u http://h/mcp ping",
		"-rcq . list-tools",
		"--color never --transport sse --framing lines --connect-timeout 2 ping",
		"call echo message=hi",
		"call echo message=hi --args {} --text",
		"call echo message:=1 --no-validate",
		"call echo --args {} --no-validate --no-coerce",
		"call x --task --ttl=5m --validate-output strict",
		"call info a:=1 --timeout 3s -q .content",
		"-q .ping call echo",
		"--protocol-era modern list-tools -r -q .tools[].name",
		"read file:///x --text",
		"get-prompt greet name=x",
		"complete --prompt greet --arg a=b",
		"tasks result abc",
		"session start s1 --idle 5m",
		"servers",
		"trust .mcp.json",
		"batch --parallel 4",
		"skills pull x /tmp/y --force",
		"auth status",
		"watch file:///a",
		"request tools/list {}",
		"--jq-arg tool x list-tools -q .",
	}
	ios := output.NewStreams(strings.NewReader(""), io.Discard, io.Discard)
	parse := func(line string, lean bool) (*cli, string, any, error) {
		var c cli
		var keep map[string]bool
		words := strings.Fields(line)
		if lean {
			keep = leanGrammar(words)
		}
		exited := false
		k, err := parser(&c, ios, func(int) { exited = true; panic(exitRequest{}) }, keep)
		if err != nil {
			t.Fatal(err)
		}
		var kctx *kong.Context
		func() {
			defer func() {
				if r := recover(); r != nil && !exited {
					panic(r)
				}
			}()
			kctx, err = k.Parse(words)
		}()
		if exited {
			return &c, "(exit)", nil, nil
		}
		if err != nil {
			return nil, "", nil, err
		}
		ran := kctx.Selected().Target.Addr().Interface() // the value kong runs
		switch l := ran.(type) {
		case interface{ full() *callCmd }: // callLean, callFast
			ran = l.full()
		case interface{ full() *listToolsCmd }: // listToolsLean
			ran = l.full()
		}
		return &c, kctx.Command(), ran, nil
	}
	for _, line := range lines {
		whole, wholeCmd, wholeRan, err := parse(line, false)
		if err != nil {
			t.Errorf("%s: the whole grammar refuses it: %v", line, err)
			continue
		}
		lean, leanCmd, leanRan, err := parse(line, true)
		if err != nil {
			t.Errorf("%s: the lean grammar refuses it: %v", line, err)
			continue
		}
		if leanCmd != wholeCmd {
			t.Errorf("%s: lean selects %q, whole %q", line, leanCmd, wholeCmd)
		}
		if !reflect.DeepEqual(lean.flags, whole.flags) || !reflect.DeepEqual(lean.outputFlags, whole.outputFlags) {
			t.Errorf("%s: global flags differ:\nlean  %+v %+v\nwhole %+v %+v", line, lean.flags, lean.outputFlags, whole.flags, whole.outputFlags)
		}
		if wholeCmd == "(exit)" {
			continue
		}
		if !reflect.DeepEqual(leanRan, wholeRan) {
			t.Errorf("%s: the command's values differ:\nlean  %+v\nwhole %+v", line, leanRan, wholeRan)
		}
	}
}

// TestLeanGrammarErrorsAsTheWhole: a command line that does not parse gets
// the whole grammar's error, suggestions included, and help and
// completions see every command.
func TestLeanGrammarErrorsAsTheWhole(t *testing.T) {
	env := testEnv(t)
	for _, tc := range []struct{ args, stderr string }{
		{"cal info", `mcpv: unexpected argument cal, did you mean "call"? (see mcpv --help)`},
		{"-v", `mcpv: give a command (mcpv --help lists them)`},
		{"call", `mcpv: expected "<tool>" (see mcpv call --help)`},
		{"ping --nope", `mcpv: unknown flag --nope, did you mean "--scope"? (see mcpv ping --help)`}, // a flag of a group ping's lean grammar leaves out
		{"ping --zzzz", `mcpv: unknown flag --zzzz (see mcpv ping --help)`},
	} {
		r := mcpvIn(t, env, "", strings.Fields(tc.args)...)
		if r.code != exitcode.Usage || strings.TrimSpace(r.stderr) != tc.stderr {
			t.Errorf("mcpv %s: exit %d, stderr %q; want 2 and %q", tc.args, r.code, r.stderr, tc.stderr)
		}
	}
	r := mcpvIn(t, env, "", "call", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "Call a tool.") {
		t.Errorf("call --help: exit %d, %q", r.code, r.stdout)
	}
	r = mcpvIn(t, env, "", "completions", "bash")
	if r.code != 0 || !strings.Contains(r.stdout, "list-resource-templates") {
		t.Errorf("completions bash: exit %d, lacks a command not named: %.200q", r.code, r.stdout)
	}
}

// BenchmarkParse: building kong's model and parsing one command line, with
// the whole grammar and with only the commands the line names.
func BenchmarkParse(b *testing.B) {
	ios := output.NewStreams(strings.NewReader(""), io.Discard, io.Discard)
	for _, line := range []string{"call echo message=hi", "list-tools"} {
		words := strings.Fields(line)
		for _, lean := range []bool{false, true} {
			name := line + "/whole"
			if lean {
				name = line + "/lean"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					var c cli
					var keep map[string]bool
					if lean {
						keep = leanGrammar(words)
					}
					k, err := parser(&c, ios, func(int) {}, keep)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := k.Parse(words); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestLeanFlagGroups: a lean grammar gives kong the groups of global flags
// whose flags the command line names, long or short, and no other. A
// group is named here by its first flag.
func TestLeanFlagGroups(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []string
	}{
		{"call echo message=hi", nil},
		{"--version", nil},
		{"ping --log-level debug", []string{"max-timeout"}},
		{"--max-timeout=5m call x", []string{"max-timeout"}},
		{"call x --grant client-credentials", []string{"auth"}},
		{"--session s ping", []string{"url"}},
		{"-u http://h/mcp --protocol-version 2025-11-25 list-tools", []string{"url", "timeout"}},
		{"-v ping", []string{"quiet"}},
		{"-Hx:1 ping", []string{"inherit-env"}},
		{"ping -rq .", []string{"jq"}},
		{"ping -vc", []string{"quiet", "jq"}},
		{"call x a:=-1 msg=--timeout", nil},
		{"call x --color never --timeout 3s", []string{"timeout", "jq"}},
	} {
		var c cli
		if _, err := parser(&c, output.NewStreams(strings.NewReader(""), io.Discard, io.Discard), func(int) {}, leanGrammar(strings.Fields(tc.line))); err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, g := range c.flagGroups() {
			if !slices.ContainsFunc(c.leftOut, func(l connect.FlagGroup) bool { return l.Flags == g.Flags }) {
				kept = append(kept, g.Docs[0].Name)
			}
		}
		if !slices.Equal(kept, tc.want) {
			t.Errorf("%s: kong is given the groups of %q, want %q", tc.line, kept, tc.want)
		}
	}
}

// TestFlagGroupsKnowTheirShorts: each group's Shorts are the short names of
// its flags, so that a lean grammar keeps the group for them.
func TestFlagGroupsKnowTheirShorts(t *testing.T) {
	model, err := Grammar()
	if err != nil {
		t.Fatal(err)
	}
	short := map[string]rune{}
	for _, f := range model.Flags {
		short[f.Name] = f.Short
	}
	for _, g := range new(cli).flagGroups() {
		var got string
		for _, d := range g.Docs {
			if r := short[d.Name]; r != 0 {
				got += string(r)
			}
		}
		if got != g.Shorts {
			t.Errorf("the group of --%s: its flags' short names are %q, its Shorts %q", g.Docs[0].Name, got, g.Shorts)
		}
	}
}

// TestLeanCallLeavesOutItsOptions: a call that names none of its options
// gives kong its arguments alone, one that names --no-validate alone its
// arguments and that option (callFast), and one that names another, all
// of them.
func TestLeanCallLeavesOutItsOptions(t *testing.T) {
	ios := output.NewStreams(strings.NewReader(""), io.Discard, io.Discard)
	for _, tc := range []struct {
		line       string
		lean, fast bool
	}{
		{"call echo message=hi", true, false},
		{"call echo message=hi --args {} -q .content", true, false},
		{"call echo --args {} --no-validate", false, true},
		{"call echo --no-validate=true -q .content", false, true},
		{"call echo --no-validate --text", false, false},
		{"call echo --text", false, false},
		{"call echo --validate-output=off", false, false},
		{"call echo --ttl 1m --task", false, false},
	} {
		var c cli
		words := strings.Fields(tc.line)
		k, err := parser(&c, ios, func(int) {}, leanGrammar(words))
		if err != nil {
			t.Fatal(err)
		}
		kctx, err := k.Parse(words)
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		_, isLean := kctx.Selected().Target.Addr().Interface().(*callLean)
		if isLean != tc.lean {
			t.Errorf("%s: kong was given the lean call: %v, want %v", tc.line, isLean, tc.lean)
		}
		fast, isFast := kctx.Selected().Target.Addr().Interface().(*callFast)
		if isFast != tc.fast || isFast && !fast.full().NoValidate {
			t.Errorf("%s: kong was given the call with --no-validate alone: %v, want %v", tc.line, isFast, tc.fast)
		}
	}
}

// TestSessionFlagsParseAsTheWhole: a test file's server words, parsed with
// the lean grammar of the flags they name, give the flags, the flags given
// and the error the whole grammar gives.
func TestSessionFlagsParseAsTheWhole(t *testing.T) {
	for _, line := range []string{
		"",
		"-u http://127.0.0.1:1/mcp -H X:1 --connect-timeout 2",
		"--transport sse --framing lines --log-level debug",
		"-v --server demo --protocol-era modern",
		"--scope x --grant client-credentials --client-id c",
		"--nope",                 // no group has it: the whole grammar's suggestion
		"--connect-timeout nope", // a group's flag with a bad value
		"--help",
		"call x",
	} {
		words := strings.Fields(line)
		flags, explicit, err := parseSessionFlags(words)
		var c cli
		k, kerr := parser(&c, output.NewStreams(strings.NewReader(""), io.Discard, io.Discard), func(int) { panic(exitRequest{}) }, nil)
		if kerr != nil {
			t.Fatal(kerr)
		}
		kctx, werr := parseBatchLine(k, append(words, "ping"))
		if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
			t.Errorf("%q: error %v, the whole grammar's %v", line, err, werr)
			continue
		}
		if werr != nil {
			continue
		}
		if !reflect.DeepEqual(flags, c.flags) || !reflect.DeepEqual(explicit, explicitFlags(kctx)) {
			t.Errorf("%q: flags %+v given %v, the whole grammar's %+v given %v", line, flags, explicit, c.flags, explicitFlags(kctx))
		}
	}
}
