// Package commands is mcpv's command line: the grammar, one file per
// subcommand, and the one mapping from errors to exit codes.
package commands

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/manpage"
	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/otel"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/trace"

	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// Version, Commit and Date describe the build: a release sets them with
// -ldflags "-X github.com/mcpv/mcpv/commands.Version=v1.2.3 ..."; otherwise
// they come from what the Go toolchain stamped (the module version of a
// go install, the VCS revision and time of a build in a checkout).
var Version, Commit, Date string

func init() {
	bi := &debug.BuildInfo{} // a release: -ldflags say it all, but the commit is shortened
	if Version == "" || Commit == "" || Date == "" {
		if b, ok := debug.ReadBuildInfo(); ok {
			bi = b
		}
	}
	Version, Commit, Date = stamp(Version, Commit, Date, bi)
}

// stamp fills what -ldflags left empty from the build information. A
// build in a checkout is "dev", as 'go run .' is (which stamps no
// revision): the pseudo-version go build makes from the revision
// (v0.0.0-20261124161012-a59f55a698bc+dirty) says nothing the commit does
// not, and would make the same code look like two versions. A tagged
// checkout, and a module go install fetched, keep their version.
func stamp(version, commit, date string, bi *debug.BuildInfo) (string, string, string) {
	var modified, fromVCS bool
	revision := ""
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
			if commit == "" {
				commit, fromVCS = s.Value, true
			}
		case "vcs.time":
			date = cmp.Or(date, s.Value)
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if version == "" {
		version = "dev"
		v := bi.Main.Version
		if v != "" && v != "(devel)" && (len(revision) < 12 || !strings.Contains(v, revision[:12])) {
			version = v
		}
	}
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if modified && fromVCS {
		commit += "-dirty"
	}
	return version, commit, date
}

// versionLine is what --version prints: "mcpv v1.2.3 (commit abc123def456,
// built 2026-11-23T10:00:00Z, go1.26.8 linux/amd64)", leaving out what is
// not known.
func versionLine(version, commit, date, goVersion, platform string) string {
	var parts []string
	if commit != "" {
		parts = append(parts, "commit "+commit)
	}
	if date != "" {
		parts = append(parts, "built "+date)
	}
	parts = append(parts, goVersion+" "+platform)
	return "mcpv " + version + " (" + strings.Join(parts, ", ") + ")"
}

// cli is the whole grammar: the global flags here, in groups given to
// kong one by one (see flagGroups), and the commands in commandSet, given
// to kong one by one too (see commands).
type cli struct {
	// flags is a field, not embedded, so that kong does not walk it for
	// hooks and checks on every hook of every parse: Validate checks it.
	flags        connect.Flags
	outputFlags  `kong:"-"`
	versionFlags `kong:"-"`
	commandSet   `kong:"-"`
	// leftOut are the groups of flags the grammar leaves out, which
	// BeforeResolve gives their defaults.
	leftOut []connect.FlagGroup
	lean    bool // the grammar is lean: it prints no help (see leanGrammar)
}

// versionFlags is the flag that follows every group in help.
type versionFlags struct {
	VersionFlag versionFlag `name:"version" help:"Print mcpv's version and exit."`
}

// BeforeResolve gives the groups of flags left out of the grammar the
// defaults of their tags, as kong has just given those it was given.
func (c *cli) BeforeResolve() error {
	for _, g := range c.leftOut {
		g.Flags.SetDefaults()
	}
	return nil
}

// flagGroups are c's groups of global flags, in the order help shows them.
// kong is given each as an embedded struct rather than as a field of cli,
// so that a run can leave out those its command line names no flag of
// (see leanGrammar): kong reads every tag of every flag it is given, which
// was a seventh of a short run's start-up for the 45 global flags.
func (c *cli) flagGroups() []connect.FlagGroup {
	return append(c.flags.Groups(), connect.FlagGroup{Heading: "Output", Flags: &c.outputFlags, Docs: outputFlagDocs, Shorts: "qreco"})
}

// commandSet holds the values of mcpv's commands.
type commandSet struct {
	Info                  infoCmd
	Ping                  pingCmd
	ListTools             listToolsCmd
	Call                  callCmd
	ListResources         listResourcesCmd
	ListResourceTemplates listResourceTemplatesCmd
	Read                  readCmd
	ListPrompts           listPromptsCmd
	GetPrompt             getPromptCmd
	Complete              completeCmd
	Watch                 watchCmd
	Tasks                 tasksCmd
	Skills                skillsCmd
	App                   appCmd
	Discover              discoverCmd
	Request               requestCmd
	Batch                 batchCmd
	Load                  loadCmd
	Test                  testCmd
	Check                 checkCmd
	Pin                   pinCmd
	Diff                  diffCmd
	Audit                 auditCmd
	Cost                  costCmd
	Search                searchCmd
	Session               sessionCmd
	Serve                 serveCmd
	Mock                  mockCmd
	Servers               serversCmd
	Trust                 trustCmd
	AuthCmd               authCmd
	Completions           completionsCmd
}

// command is one of mcpv's commands: its name, the group and the brief
// line the top-level help lists it under and with (see overview), its help
// and its value.
type command struct {
	name, group, brief, help string
	value                    any
}

// commands are s's commands, in the order help lists them. kong is given
// each as a dynamic command rather than as a tagged field of cli: kong
// parses the tags of every field of a struct it builds from, including
// those of the commands a run leaves out, and a field left out is matched
// against a regular expression that must be compiled first.
func (s *commandSet) commands() []command {
	return []command{
		{"info", groupTalk, "Print the server's initialize result", "Print the server's initialize result: protocol version, server info, capabilities, instructions.", &s.Info},
		{"ping", groupTalk, "Ping the server", "Ping the server.", &s.Ping},
		{"list-tools", groupTalk, "List the server's tools", "List the server's tools (every page).", &s.ListTools},
		{"call", groupTalk, "Call a tool", "Call a tool.", &s.Call},
		{"list-resources", groupTalk, "List the server's resources", "List the server's resources (every page).", &s.ListResources},
		{"list-resource-templates", groupTalk, "List the server's resource templates", "List the server's resource templates (every page).", &s.ListResourceTemplates},
		{"read", groupTalk, "Read a resource", "Read a resource.", &s.Read},
		{"list-prompts", groupTalk, "List the server's prompts", "List the server's prompts (every page).", &s.ListPrompts},
		{"get-prompt", groupTalk, "Get a prompt, filled with arguments", "Get a prompt, filled with arguments.", &s.GetPrompt},
		{"complete", groupTalk, "Complete a prompt's or a template's argument", "Ask for completions of a prompt or resource-template argument.", &s.Complete},
		{"watch", groupTalk, "Print a JSON line per change of resources", "Subscribe to resources and print a JSON line per change.", &s.Watch},
		{"tasks", groupTalk, "List, inspect, collect or cancel tasks", "List, inspect, collect or cancel tasks.", &s.Tasks},
		{"skills", groupTalk, "List, read or pull the skills a server publishes", "List, inspect, read or pull the skills a server publishes.", &s.Skills},
		{"app", groupTalk, "Check a tool's MCP App, or render it in the browser", "Check the MCP App a tool carries as the extension requires, or render it in the browser (--open).", &s.App},
		{"discover", groupTalk, "Find a domain's servers by their Server Cards", "Find the MCP servers of a domain or URL by their Server Cards, check each, and connect to one (--connect).", &s.Discover},
		{"request", groupTalk, "Send any request, with raw JSON params", "Send any request (or notification) with raw JSON params.", &s.Request},
		{"batch", groupTalk, "Run operations from stdin in one session", "Run operations from stdin, one per line, in one session; print a JSON line for each.", &s.Batch},
		{"test", groupTest, "Run test files against servers, report for CI", "Run declarative test files against MCP servers and report (text, JUnit, TAP or JSON).", &s.Test},
		{"check", groupTest, "Check a server against the spec, rule by rule", "Check the server against the MCP specification, requirement by requirement, and report.", &s.Check},
		{"pin", groupTest, "Pin a server's surface; check it, approve moves", "Record what a server shows a model in a pin file, check it against the pin, or approve its moves.", &s.Pin},
		{"diff", groupTest, "Tell how a surface changed: breaking, security", "Tell how a server's surface changed, each change classed breaking, security-relevant or compatible.", &s.Diff},
		{"audit", groupTest, "Audit servers for tool poisoning, offline", "Audit what servers show a model for tool poisoning, shadowing and leaks, with local rules.", &s.Audit},
		{"search", groupTalk, "Search every server's tools, prompts and resources", "Search the tools, prompts, resources and templates of every configured server for words, best first.", &s.Search},
		{"cost", groupTest, "Count the tokens a server's surface costs a model", "Count the tokens each tool, prompt and resource template and the instructions cost a model, and the total.", &s.Cost},
		{"load", groupTest, "Put load on a server; percentiles, thresholds", "Put load on the server: an operation through N sessions at once; latency percentiles, errors, thresholds.", &s.Load},
		{"session", groupSessions, "Keep a session open for many commands", "Keep a session open in the background for many commands: start, list, stop.", &s.Session},
		{"serve", groupSessions, "Re-expose a server to MCP clients, with a guard", "Re-expose servers to MCP clients over stdio or Streamable HTTP, with a guard.", &s.Serve},
		{"mock", groupSessions, "Serve a recorded server, for testing clients", "Serve a server read from an mcpv test snapshot and a responses file, for testing MCP clients.", &s.Mock},
		{"servers", groupSessions, "List the servers config files name", "List the servers named in config files, or show one.", &s.Servers},
		{"trust", groupSessions, "Trust a project config file or test file", "Trust a project config file as it is now, so its servers may start.", &s.Trust},
		{"auth", groupSessions, "Log in with OAuth; show or remove tokens", "Log in to an HTTP server with OAuth, show or remove the stored tokens, or print one.", &s.AuthCmd},
		{"completions", groupSessions, "Print a shell completion script", "Print a shell completion script for bash, zsh, fish or PowerShell.", &s.Completions},
	}
}

// Validate checks the global flags: the output flags, the server flags,
// the authorization flags and the client flags, in that order.
func (c *cli) Validate() error {
	for _, validate := range []func() error{c.outputFlags.Validate, c.flags.ServerFlags.Validate, c.flags.AuthFlags.Validate} {
		if err := validate(); err != nil {
			return err
		}
	}
	return c.flags.ClientFlags.Validate()
}

// Help is the manual's account of mcpv as a whole: the man page's
// synopsis, description, exit status, examples and environment (see
// internal/manpage). The top-level help is shorter (see writeOverview).
func (c *cli) Help() string {
	if c.lean {
		return "" // kong asks for it as it builds the model, and prints none
	}
	return `mcpv talks to one MCP server per run: it starts the server (the command after --), or connects to its URL, or takes either from a config file (see 'mcpv servers --help'); then it negotiates, runs one operation, prints the result as JSON on stdout and exits with a code a script can trust. Diagnostics and the server's stderr go to stderr.

    ` + strings.Join(usageLines, "\n    ") + `
    mcpv help <command>          (the same as mcpv <command> --help)
    mcpv help ` + strings.Join(allTopics(), "|") + `
    mcpv help --man

--jq filters as jq does: --jq-arg NAME VALUE and --jq-argjson NAME JSON set $NAME (jq's --arg and --argjson, renamed because complete has an --arg of its own), and $ENV and env are mcpv's environment. jq's positional --args and --jsonargs have no place here, since the words after the command are the command's and those after -- the server's; and -s is --server, so to slurp the outputs, pipe them through jq -s.

Exit codes:

    0    success (a closed stdout pipe counts as success)
    1    the tool returned isError: true (the result is still printed),
         or --exit-status and the last --jq output was false or null
    2    usage: bad flags, arguments, JSON or jq expression
    3    the server answered with a JSON-RPC error, or lacks the capability
         the command needs (then nothing is sent)
    4    transport: the server could not be started, exited early,
         or broke the protocol
    5    authentication or authorization failed or is required
    6    the --jq expression failed on the result (outputs before the
         failure are printed)
    7    a pin refused what the server offers: it moved since it was
         pinned, is new, or is gone (nothing is sent; see mcpv pin)
    124  a timeout expired (the request was cancelled on the wire first)
    130  interrupted by Ctrl-C (the request was cancelled on the wire first)

Examples:

    $ mcpv list-tools -- npx -y @modelcontextprotocol/server-everything
    $ mcpv call echo message=hi -- ./server
    $ mcpv call add a:=2 b:=3 -q '.structuredContent.sum' -- ./server
    $ mcpv list-tools -r -q '.tools[].name' -- ./server
    $ mcpv list-tools -q '.tools[] | select(.name == $tool)' --jq-arg tool "$TOOL" -- ./server
    $ mcpv list-tools -u http://127.0.0.1:3000/mcp
    $ mcpv call -s github search_repositories query=mcpv` + "\n\n" + environmentHelp()
}

// environmentHelp lists the environment variables mcpv reads.
func environmentHelp() string {
	var b strings.Builder
	b.WriteString("Environment:\n")
	width := 0
	for _, v := range manpage.Vars {
		width = max(width, len(v.Name))
	}
	for _, v := range manpage.Vars {
		fmt.Fprintf(&b, "\n    %-*s  %s", width, v.Name, v.Help)
	}
	return b.String()
}

// parser builds the kong parser; Main, tests and the help goldens share it.
// lean names the commands kong is given (see leanGrammar); nil is every
// command, with the help of the global flags, which only the whole grammar
// is given since a lean run prints no help (help and a command line that
// does not parse are handled with the whole grammar).
func parser(c *cli, ios *output.Streams, exit func(int), lean map[string]bool) (*kong.Kong, error) {
	options := []kong.Option{
		kong.Name("mcpv"),
		kong.Description("A scriptable command-line client for the Model Context Protocol."),
		kong.Writers(ios.Out, ios.Err),
		kong.Exit(exit),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, NoExpandSubcommands: true}),
		kong.Help(printHelp),
		kong.NamedMapper("jqarg", jqVarMapper{}),
		kong.NamedMapper("jqargjson", jqVarMapper{json: true}),
		numberMapper{},
	}
	c.leftOut, c.lean = nil, lean != nil
	for _, g := range c.flagGroups() {
		if lean == nil || names(lean, g.Has, g.Shorts) {
			options = append(options, kong.Embed(g.Flags, `group:"`+g.Heading+`"`))
			if g.Flags == any(&c.flags.TargetFlags) {
				options = append(options, kong.NamedMapper("servername", serverNames{&c.flags.Servers}))
			}
		} else {
			c.leftOut = append(c.leftOut, g)
		}
	}
	options = append(options, kong.Embed(&c.versionFlags))
	for _, cmd := range c.commands() {
		if lean == nil || lean[cmd.name] {
			if l, ok := cmd.value.(leanCommand); ok && lean != nil {
				if v := l.leanForm(lean); v != nil {
					cmd.value = v
				}
			}
			options = append(options, kong.DynamicCommand(cmd.name, cmd.help, "", cmd.value))
		}
	}
	if lean == nil {
		options = append(options, kong.PostBuild(fillHelp))
	}
	return kong.New(c, options...)
}

// serverNames decodes --server, keeping each name given (see
// connect.TargetFlags.Servers) as well as setting the flag to the last.
type serverNames struct{ all *[]string }

func (m serverNames) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	var name string
	if err := ctx.Scan.PopValueInto("server", &name); err != nil {
		return err
	}
	target.SetString(name)
	*m.all = append(*m.all, name)
	return nil
}

// versionFlag prints the version line and exits, as kong.VersionFlag does
// but without a kong variable: kong interpolates every variable for every
// flag of the model it builds, so mcpv defines none.
type versionFlag bool

func (versionFlag) BeforeReset(app *kong.Kong) error {
	writeVersion(app.Stdout)
	app.Exit(0)
	return nil
}

// writeVersion writes mcpv's version line (a closed stdout is no error).
func writeVersion(w io.Writer) {
	fmt.Fprintln(w, versionLine(Version, Commit, Date, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH))
}

// fillHelp gives the global flags the help texts and placeholders kept out
// of their tags (see connect.FlagDoc), and puts in them what depends on
// mcpv's own constants (written {latest_version} and {supported_versions}).
func fillHelp(k *kong.Kong) error {
	docs := map[string]connect.FlagDoc{} // only the whole grammar, for help, is filled
	for _, g := range new(cli).flagGroups() {
		for _, d := range g.Docs {
			docs[d.Name] = d
		}
	}
	r := strings.NewReplacer("{latest_version}", mcp.LatestVersion, "{supported_versions}", strings.Join(mcp.SupportedVersions, ", "))
	for _, f := range k.Model.Flags {
		if d, ok := docs[f.Name]; ok && f.Help == "" {
			f.Help, f.PlaceHolder = d.Help, d.PlaceHolder
		}
		if strings.Contains(f.Help, "{") {
			f.Help = r.Replace(f.Help)
		}
	}
	return nil
}

// leanGrammar holds the words of args, from which a run gives kong the
// commands and groups of global flags they name, or is nil when it needs
// every command and flag. kong builds its model by reflection over every
// command, flag and help text, which costs more than the rest of a short
// run's start-up; a run needs only the command it runs and the flags it is
// given. Every command whose name is among args stays (a tool called
// "info" keeps info as well as call), so the command kong selects is
// always in the model; a group of flags stays when a word names one of
// its flags (names). Help and the completion scripts show the whole
// grammar; a command line that does not parse is parsed again with the
// whole grammar, so its error and suggestions are the same: a flag of a
// group left out is an unknown flag to the lean grammar. No command named
// keeps none: --version needs none, and no command at all is an error,
// from the whole grammar.
func leanGrammar(args []string) map[string]bool {
	keep := map[string]bool{}
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "completions" {
			return nil
		}
		keep[a] = true
	}
	return keep
}

// names says whether a word of the lean grammar's names one of a set of
// flags: --NAME or --NAME=VALUE where long(NAME), or a word of short flags
// (-v, -rq) with one of shorts. It may say so of a word that is a value:
// the flags then cost their place in the model, and nothing else.
func names(words map[string]bool, long func(name string) bool, shorts string) bool {
	for w := range words {
		if name, ok := strings.CutPrefix(w, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			if long(name) {
				return true
			}
		} else if len(w) > 1 && w[0] == '-' && strings.ContainsAny(w[1:], shorts) {
			return true
		}
	}
	return false
}

// ErrInterrupted is the cause main gives the context when the user presses Ctrl-C.
var ErrInterrupted = errors.New("interrupted")

// exitRequest carries an exit code out of kong's help and version flags.
type exitRequest struct{ code int }

// The kinds of command, declared by each command type next to its Run.
type (
	// serverCommand talks to the server through the session; a batch line
	// may run it unless it is also notInBatch.
	serverCommand interface {
		Run(ctx context.Context, s *session, out *console) error
	}
	// notInBatch is a server command a batch line may not run: it holds
	// the session open (watch) or would nest (batch).
	notInBatch interface{ notInBatch() }
	// leanCommand is a command with flags a command line seldom gives: a
	// lean grammar gives kong leanForm's value in its place, a command
	// without them that runs with their defaults, unless words name one
	// (then leanForm is nil).
	leanCommand interface {
		leanForm(words map[string]bool) any
	}
	// noServer is a command that talks to no server (servers, trust,
	// completions): it takes no server command line and resolves none.
	noServer interface{ noServer() }
	// serverChoosing is a command that, as a noServer one, takes no
	// session from the run, but opens the sessions it needs itself,
	// through the *targets it is given: none, the server its command line
	// names, or the config files' servers by name (pin, diff, audit).
	serverChoosing interface{ serverChoosing() }
)

// Main runs mcpv with args (without the program name) and returns the exit
// code. servers records the stdio servers it starts while they run, for a
// caller that must kill them at once (a second Ctrl-C); nil records nothing.
// signals, unless nil, is closed once the process handles its signals,
// which a caller may set up while the command line is parsed: Main starts
// no server, reaches none and writes nothing before.
func Main(ctx context.Context, args []string, ios *output.Streams, servers *mcp.ProcessGroups, signals <-chan struct{}) int {
	env, err := connect.System()
	if err != nil {
		waitFor(signals)
		fmt.Fprintf(ios.Err, "mcpv: %v\n", err)
		return exitcode.Transport
	}
	return runWith(ctx, args, ios, env, servers, signals)
}

// waitFor waits until ch is closed; a nil ch is closed.
func waitFor(ch <-chan struct{}) {
	if ch != nil {
		<-ch
	}
}

// waitingWriter writes to w once ready is closed.
type waitingWriter struct {
	ready <-chan struct{}
	w     io.Writer
}

func (w waitingWriter) Write(p []byte) (int, error) {
	<-w.ready
	return w.w.Write(p)
}

// runWith is Main with the environment given.
func runWith(ctx context.Context, args []string, ios *output.Streams, env connect.Env, servers *mcp.ProcessGroups, signals <-chan struct{}) (code int) {
	start := time.Now()
	if len(args) == 1 && args[0] == keeperArg {
		waitFor(signals)
		return runKeeper(ctx, ios, env, servers)
	}
	if len(args) == 1 && args[0] == loginKeeperArg {
		waitFor(signals)
		return runLoginKeeper(ctx, env)
	}
	args, server, code, done := helpFirst(args, ios, env, signals)
	if done {
		return code
	}
	growStack()
	defer func() {
		r := recover()
		if er, ok := r.(exitRequest); ok {
			code = er.code
		} else if r != nil {
			panic(r)
		}
	}()
	r := &invocation{c: new(cli), ios: ios, env: env, servers: servers, jsonErrors: errorsAsJSON(args, env.Getenv)}
	if r.jsonErrors {
		// A program reads stderr: every line on it is one JSON object, a
		// note or a warning as well as the failure.
		s := *ios
		s.Err = output.JSONLines(ios.Err)
		ios, r.ios = &s, &s
	}
	defer func() {
		for _, c := range r.closers {
			c()
		}
	}()
	if code, ok := r.parse(args, signals); !ok {
		return code
	}
	defer r.scrubStderr(args, server).Flush()
	endTrace, err := r.startTrace(ctx, args, start)
	if err != nil {
		return r.fail(err)
	}
	defer func() { endTrace(code) }()
	endSpans, err := r.startTelemetry(start)
	if err != nil {
		return r.fail(err)
	}
	defer func() { endSpans(code) }() // before the trace's end, which notes its failure
	if err := r.c.outputFlags.checkTable(r.kctx.Selected(), env.Getenv, ios.OutTTY); err != nil {
		return r.fail(err)
	}
	if where := env.Getenv("MCPV_TOKEN_STORE"); where != "" && where != oauth.StoreAuto && where != oauth.StoreKeychain && where != oauth.StoreFile {
		return r.fail(usageErrorf("MCPV_TOKEN_STORE=%q: want auto, keychain or file", where[:min(len(where), 40)]))
	}
	// The keychain's failure is told once a run, as a warning line (a JSON
	// object under --errors json).
	r.env.Keychain = env.Keychain.ForRun(func(line string) { output.NewLogger(r.ios.Err).Warn(line) })
	r.env.Ask = inputAsker(ctx, newAsker(ios.ErrTTY, &r.closers).Ask)
	r.kctx.BindTo(ctx, (*context.Context)(nil))
	r.kctx.Bind(r.env)
	switch r.kctx.Selected().Target.Addr().Interface().(type) {
	case serverChoosing:
		r.kctx.Bind(r.console(r.ios), &r.c.flags.ServerFlags, servers, &targets{r: r, server: server})
		err := r.kctx.Run()
		r.ios.Status.Stop()
		r.scrub.Flush()
		return r.fail(err)
	case noServer:
		if len(server) > 0 {
			return r.fail(usageErrorf("%s takes no server command", r.kctx.Selected().Name))
		}
		r.kctx.Bind(r.console(ios), &r.c.flags.ServerFlags, servers)
		return r.fail(r.kctx.Run())
	}
	return r.runSession(ctx, server)
}

// helpFirst handles the command lines answered before parsing (none, and
// help on words that name no command), and otherwise returns args split
// from the server's command line, with 'help' made --help.
func helpFirst(args []string, ios *output.Streams, env connect.Env, signals <-chan struct{}) (_, server []string, code int, done bool) {
	if len(args) == 0 {
		waitFor(signals)
		writeOverview(ios.Err, new(commandSet).commands())
		return nil, nil, exitcode.Usage, true
	}
	if len(args) == 1 && args[0] == "--version" {
		// What the version flag prints, without building the grammar,
		// which this command line does not use.
		waitFor(signals)
		writeVersion(ios.Out)
		return nil, nil, 0, true
	}
	args, server = splitServer(args)
	args = loadShorts(args)
	args = toolHelp(args, len(server) > 0 || env.Getenv("MCPV_URL") != "" || env.Getenv("MCPV_SERVER") != "" || env.Getenv("MCPV_SESSION") != "")
	if len(args) > 1 && args[0] == "help" {
		if text, ok, err := helpWords(args[1:], env); ok {
			waitFor(signals)
			if err == nil {
				if _, err = io.WriteString(ios.Out, text); errkind.BrokenPipe(err) {
					err = nil
				}
			}
			return nil, nil, report(ios, err, "mcpv --help", errorsAsJSON(args, env.Getenv)), true
		}
	}
	if len(args) > 0 && args[0] == "help" {
		// 'mcpv help [COMMAND...]' is 'mcpv [COMMAND...] --help'.
		args = append(slices.Clone(args[1:]), "--help")
	}
	return args, server, 0, false
}

// invocation is one command line being run.
type invocation struct {
	c       *cli
	kctx    *kong.Context
	ios     *output.Streams // its stderr scrubbed once a session's secrets are known
	env     connect.Env
	servers *mcp.ProcessGroups
	closers []func() error // run when the command line is done

	// scrub is the run's one masker: stderr goes through it, and the
	// trace, the spans and the reports mask what it knows.
	scrub  *redact.Scrubber
	events *connect.EventLog // --events, from the first session that has it
	// jsonErrors: a failure is told as one JSON object (--errors json).
	jsonErrors bool
	trace      *trace.Writer // --trace, when asked
	telemetry  *otel.Run     // --otel, or the OTLP variables, when set
	last       *ownLastLine  // mcpv's last line on stderr, for the trace's and the span's end
}

// fail reports err, pointing a usage mistake to the command's help.
func (r *invocation) fail(err error) int {
	return report(r.ios, err, helpFor(r.kctx, err, r.c), r.jsonErrors)
}

// parse parses args into r, and on a mistake (or help, or the version
// written) returns the exit code and false.
func (r *invocation) parse(args []string, signals <-chan struct{}) (int, bool) {
	// What parsing writes (help, the version) waits for the signals;
	// everything after it, which may start or reach a server, too.
	parsing := r.ios
	if signals != nil {
		parsing = new(*r.ios)
		parsing.Out, parsing.Err = waitingWriter{signals, r.ios.Out}, waitingWriter{signals, r.ios.Err}
	}
	kctx, err := parseWith(r.c, args, parsing, r.env, leanGrammar(args))
	if err != nil && !isA[*grammarError](err) || err == nil && kctx.Selected() == nil {
		// The lean grammar's error may differ from the whole one's (a
		// suggestion among the commands left out), and without the
		// commands no command is no error: parse again.
		*r.c = cli{}
		kctx, err = parseWith(r.c, args, parsing, r.env, nil)
	}
	waitFor(signals)
	if ge, ok := errors.AsType[*grammarError](err); ok {
		fmt.Fprintf(r.ios.Err, "mcpv: %v\n", ge.err)
		return exitcode.Usage, false
	}
	if errkind.BrokenPipe(err) {
		return exitcode.OK, false // --help | head
	}
	if err != nil {
		return report(r.ios, reportFileHint(noCommandHint(flagWordHint(jqFlagHint(usageError(err)), err)), err), helpFor(nil, err, r.c), r.jsonErrors), false
	}
	r.kctx = kctx
	if form := r.env.Getenv("MCPV_ERRORS"); form != "" && form != "text" && form != "json" && !explicitFlags(kctx)["errors"] {
		return r.fail(usageErrorf("MCPV_ERRORS=%q: want text or json, as --errors takes", form[:min(len(form), 40)])), false
	}
	return 0, true
}

// runSession runs the selected command in a session with the server that
// the flags and server (a name, a command line or a URL) say.
func (r *invocation) runSession(ctx context.Context, server []string) int {
	s, err := r.session(r.c.flags, explicitFlags(r.kctx), server)
	if err != nil {
		return r.fail(err)
	}
	defer r.scrub.Flush() // after the session's close, which may still forward the server's stderr
	defer s.close()
	// After an interrupt, progress that still arrives while the server
	// shuts down is not drawn: the terminal is left clean.
	defer context.AfterFunc(ctx, r.ios.Status.Stop)()
	r.kctx.Bind(s, r.console(r.ios))
	err = r.kctx.Run()
	r.ios.Status.Stop() // the run is over: no progress line after its last word
	return r.fail(err)
}

// session resolves the server flags and server say and makes its
// session, opened on first use. From the first session on, everything
// written on stderr goes through the run's scrubber, which learns each
// session's secrets (and the tokens it comes to hold).
func (r *invocation) session(flags connect.Flags, explicit map[string]bool, server []string) (*session, error) {
	return r.sessionOf(connect.Resolve(flags, explicit, server, r.env, output.NewLogger(r.ios.Err)))
}

// sessionOf makes the session of settings resolved (or fails with err).
func (r *invocation) sessionOf(settings *connect.Settings, err error) (*session, error) {
	if err != nil {
		return nil, err
	}
	r.scrub.Add(settings.Secrets...)
	if path := settings.Answers.Events; path != "" && r.events == nil {
		f, err := createFlagFile(r.env, "events", path, 0o600)
		if err != nil {
			return nil, err
		}
		r.closers = append(r.closers, f.Close)
		r.events = connect.NewEventLog(f, r.scrub.Mask)
	}
	h := hooks(r.ios, r.env, r.events, r.scrub, &r.closers)
	h.Groups = r.servers
	h.HandOff = handOffLogin(settings, r.env)
	h.Tracer, h.Telemetry = r.trace, r.telemetry
	h.ServerStderrShown = true // a one-shot command's server writes on the user's stderr
	if r.jsonErrors {
		// Where stderr holds one JSON object, the server's lines are not
		// written before it: its failure quotes them (the object's message).
		h.ServerStderr, h.ServerStderrShown = io.Discard, false
	}
	return &session{settings: settings, env: r.env, hooks: h, mask: r.scrub.Mask}, nil
}

// scrubStderr puts the run's masker in front of its stderr, knowing the
// secrets of its environment (a server that inherits it may echo them)
// and those its command line gives (the server's too: env API_KEY=…), masked
// from here on: in the trace's first line too, which quotes it. The last line
// of mcpv's own is kept, for the trace's and the span's end, as the user sees it.
func (r *invocation) scrubStderr(args, server []string) *redact.Scrubber {
	r.lastLine()
	r.scrub = redact.NewScrubber(r.ios.Err)
	r.scrub.Add(redact.EnvSecrets(r.env.Environ)...)
	r.scrub.Add(append(append(r.c.flags.Secrets(), argSecrets(args)...), redact.ArgSecrets(server)...)...)
	r.ios.Status.MaskWith(r.scrub.String)
	scrubbed := *r.ios
	scrubbed.Err = r.scrub
	r.ios = &scrubbed
	return r.scrub
}

// targets are the servers a command that opens its sessions itself
// (serverChoosing) may talk to: the one its command line names, and
// those of the config files by name.
type targets struct {
	r      *invocation
	server []string // the words after --
}

// given reports whether the command line, or the environment, names a
// server: words after --, --url, --server or --session, MCPV_URL,
// MCPV_SERVER or MCPV_SESSION.
func (t *targets) given() bool {
	f := t.r.c.flags
	return len(t.server) > 0 || f.URL != "" || f.Server != "" || f.Session != "" ||
		t.r.env.Getenv("MCPV_URL") != "" || t.r.env.Getenv("MCPV_SERVER") != "" || t.r.env.Getenv("MCPV_SESSION") != ""
}

// open makes the session of the server the command line names, or of the
// config files' server called name when name is not "".
func (t *targets) open(name string) (*session, error) {
	f := t.r.c.flags
	server := t.server
	if name != "" {
		f.URL, f.Session, f.Server, server = "", "", name, nil
	}
	return t.r.session(f, explicitFlags(t.r.kctx), server)
}

// grammarError is a grammar kong refuses to build (a bug in mcpv).
type grammarError struct{ err error }

func (e *grammarError) Error() string { return e.err.Error() }

// parseWith builds a parser over c, with lean (nil: the whole grammar),
// and parses args.
func parseWith(c *cli, args []string, ios *output.Streams, env connect.Env, lean map[string]bool) (*kong.Context, error) {
	c.environ = env.Environ
	k, err := parser(c, ios, func(code int) { panic(exitRequest{code}) }, lean)
	if err != nil {
		return nil, &grammarError{err}
	}
	return k.Parse(args)
}

// splitServer cuts args at the first "--": the rest is the server command.
func splitServer(args []string) (own, server []string) {
	if i := slices.Index(args, "--"); i >= 0 {
		return args[:i], args[i+1:]
	}
	return args, nil
}

// explicitFlags are the flags given on the command line (not defaults).
func explicitFlags(kctx *kong.Context) map[string]bool {
	set := map[string]bool{}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved {
			set[p.Flag.Name] = true
		}
	}
	return set
}
