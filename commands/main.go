// Package commands is mcpv's command line: the grammar, one file per
// subcommand, and the one mapping from errors to exit codes.
package commands

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
	"github.com/mcpv/mcpv/redact"
)

// Version is mcpv's version, set at build time with -ldflags "-X ...Version=v1.2.3".
var Version = ""

func init() {
	if Version != "" {
		return
	}
	Version = "dev"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		Version = bi.Main.Version
	}
}

// cli is the whole grammar.
type cli struct {
	serverFlags
	authFlags
	clientFlags
	outputFlags
	VersionFlag kong.VersionFlag `name:"version" help:"Print mcpv's version and exit."`

	Info                  infoCmd                  `cmd:"" help:"Print the server's initialize result: protocol version, server info, capabilities, instructions."`
	Ping                  pingCmd                  `cmd:"" help:"Ping the server."`
	ListTools             listToolsCmd             `cmd:"" name:"list-tools" help:"List the server's tools (every page)."`
	Call                  callCmd                  `cmd:"" help:"Call a tool."`
	ListResources         listResourcesCmd         `cmd:"" name:"list-resources" help:"List the server's resources (every page)."`
	ListResourceTemplates listResourceTemplatesCmd `cmd:"" name:"list-resource-templates" help:"List the server's resource templates (every page)."`
	Read                  readCmd                  `cmd:"" help:"Read a resource."`
	ListPrompts           listPromptsCmd           `cmd:"" name:"list-prompts" help:"List the server's prompts (every page)."`
	GetPrompt             getPromptCmd             `cmd:"" name:"get-prompt" help:"Get a prompt, filled with arguments."`
	Complete              completeCmd              `cmd:"" help:"Ask for completions of a prompt or resource-template argument."`
	Watch                 watchCmd                 `cmd:"" help:"Subscribe to resources and print a JSON line per change."`
	Tasks                 tasksCmd                 `cmd:"" help:"List, inspect, collect or cancel tasks."`
	Request               requestCmd               `cmd:"" help:"Send any request (or notification) with raw JSON params."`
	Batch                 batchCmd                 `cmd:"" help:"Run operations from stdin, one per line, in one session; print a JSON line for each."`
	Servers               serversCmd               `cmd:"" help:"List the servers named in config files, or show one."`
	Trust                 trustCmd                 `cmd:"" help:"Trust a project config file as it is now, so its servers may start."`
	AuthCmd               authCmd                  `cmd:"" name:"auth" help:"Log in to an HTTP server with OAuth, show or remove the stored tokens, or print one."`
	Completions           completionsCmd           `cmd:"" help:"Print a shell completion script for bash, zsh or fish."`
}

func (c *cli) Validate() error {
	if err := c.serverFlags.Validate(); err != nil {
		return err
	}
	if err := c.clientFlags.Validate(); err != nil {
		return err
	}
	return c.outputFlags.Validate()
}

func (c *cli) Help() string {
	return `mcpv talks to one MCP server per run: it starts the server (the command after --), or connects to its URL, or takes either from a config file (see 'mcpv servers --help'); then it negotiates, runs one operation, prints the result as JSON on stdout and exits with a code a script can trust. Diagnostics and the server's stderr go to stderr.

    mcpv [flags] <command> [args] -- SERVER-COMMAND [ARGS...]
    mcpv [flags] --url URL <command> [args]
    mcpv [flags] --server NAME <command> [args]

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
    124  a timeout expired (the request was cancelled on the wire first)
    130  interrupted by Ctrl-C (the request was cancelled on the wire first)

Examples:

    $ mcpv list-tools -- npx -y @modelcontextprotocol/server-everything
    $ mcpv call echo message=hi -- ./server
    $ mcpv call add a:=2 b:=3 -q '.structuredContent.sum' -- ./server
    $ mcpv list-tools -r -q '.tools[].name' -- ./server
    $ mcpv list-tools -u http://127.0.0.1:3000/mcp
    $ mcpv call -s github search_repositories query=mcpv`
}

// parser builds the kong parser; Main, tests and the help goldens share it.
func parser(c *cli, ios *output.Streams, exit func(int)) (*kong.Kong, error) {
	return kong.New(c,
		kong.Name("mcpv"),
		kong.Description("A scriptable command-line client for the Model Context Protocol."),
		kong.Writers(ios.Out, ios.Err),
		kong.Exit(exit),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true, NoExpandSubcommands: true}),
		kong.Vars{
			"version":            "mcpv " + Version,
			"latest_version":     mcp.LatestVersion,
			"supported_versions": strings.Join(mcp.SupportedVersions, ", "),
		},
	)
}

// ErrInterrupted is the cause main gives the context when the user presses Ctrl-C.
var ErrInterrupted = errors.New("interrupted")

// exitRequest carries an exit code out of kong's help and version flags.
type exitRequest struct{ code int }

// Main runs mcpv with args (without the program name) and returns the exit code.
func Main(ctx context.Context, args []string, ios *output.Streams) (code int) {
	return run(ctx, args, ios, os.Environ())
}

func run(ctx context.Context, args []string, ios *output.Streams, environ []string) (code int) {
	args, server := splitServer(args)
	var c cli
	k, err := parser(&c, ios, func(code int) { panic(exitRequest{code}) })
	if err != nil {
		fmt.Fprintf(ios.Err, "mcpv: %v\n", err)
		return 2
	}
	defer func() {
		if r := recover(); r != nil {
			er, ok := r.(exitRequest)
			if !ok {
				panic(r)
			}
			code = er.code
		}
	}()
	kctx, err := k.Parse(args)
	if errors.Is(err, syscall.EPIPE) {
		return exitOK // --help | head
	}
	if err != nil {
		return report(ios, usageError{err})
	}
	a := &app{ios: ios, flags: &c, server: server, environ: environ, getenv: lookup(environ), explicit: explicitFlags(kctx)}
	if _, local := kctx.Selected().Target.Addr().Interface().(noServer); !local {
		if err := a.resolveTarget(kctx); err != nil {
			return report(ios, err)
		}
		if len(a.target.secrets) > 0 {
			scrubbed := *ios
			scrubbed.Err = redact.Writer(ios.Err, a.target.secrets)
			a.ios, ios = &scrubbed, &scrubbed
			if f, ok := scrubbed.Err.(interface{ Flush() error }); ok {
				defer f.Flush() // after the session's close, which may still forward the server's stderr
			}
		}
	} else if len(server) > 0 {
		return report(ios, usageErrorf("%s takes no server command", kctx.Selected().Name))
	}
	defer a.close()
	kctx.BindTo(ctx, (*context.Context)(nil))
	return report(ios, kctx.Run(a))
}

// splitServer cuts args at the first "--": the rest is the server command.
func splitServer(args []string) (own, server []string) {
	for i, a := range args {
		if a == "--" {
			return args[:i], args[i+1:]
		}
	}
	return args, nil
}

func lookup(environ []string) func(string) string {
	set := lookupSet(environ)
	return func(key string) string {
		v, _ := set(key)
		return v
	}
}
