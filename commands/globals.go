package commands

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpv/mcpv/output"
)

// serverFlags choose and shape the server connection.
type serverFlags struct {
	URL             string        `short:"u" name:"url" placeholder:"URL" help:"Talk to the server at this Streamable HTTP (or legacy SSE) URL instead of starting one (default: MCPV_URL)." group:"Server"`
	Server          string        `short:"s" name:"server" placeholder:"NAME" help:"Use the server named NAME in a config file; see 'mcpv servers' (default: MCPV_SERVER)." group:"Server"`
	Config          string        `name:"config" placeholder:"FILE" type:"existingfile" help:"Look for --server names in FILE before the other config files (MCPV_CONFIG is next)." group:"Server"`
	InheritEnv      bool          `name:"inherit-env" help:"Give a stdio server from config mcpv's whole environment, not a minimal one." group:"Server"`
	Header          []string      `short:"H" name:"header" sep:"none" placeholder:"'NAME: VALUE'" help:"Send this HTTP header (repeatable); @FILE reads one header per line." group:"Server"`
	CACert          string        `name:"cacert" placeholder:"FILE" type:"existingfile" help:"Trust the PEM certificates in FILE as well as the system's." group:"Server"`
	Transport       string        `name:"transport" enum:"auto,streamable-http,sse" default:"auto" help:"HTTP transport: auto (Streamable HTTP, falling back to legacy SSE), streamable-http or sse." group:"Server"`
	Env             []string      `name:"env" sep:"none" placeholder:"KEY=VAL" help:"Set a variable in the stdio server's environment (repeatable)." group:"Server"`
	Cwd             string        `name:"cwd" placeholder:"DIR" help:"Working directory of the stdio server." group:"Server" type:"existingdir"`
	Timeout         time.Duration `name:"timeout" default:"10m" help:"Give up on a request after this long; 0 waits forever." group:"Server"`
	ConnectTimeout  time.Duration `name:"connect-timeout" default:"60s" help:"Give up if the server has not started and answered initialize within this long." group:"Server"`
	ProtocolVersion string        `name:"protocol-version" placeholder:"VERSION" help:"Offer this protocol version and accept no other (default: offer ${latest_version}, accept ${supported_versions})." group:"Server"`
	Quiet           bool          `name:"quiet" help:"Do not show the server's stderr (its last lines still appear in errors)." group:"Server"`
	Verbose         bool          `short:"v" name:"verbose" help:"Trace the JSON-RPC messages on stderr." group:"Server"`
}

func (f *serverFlags) Validate() error {
	for _, kv := range f.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return fmt.Errorf("--env %q: want KEY=VALUE", kv)
		}
	}
	for _, h := range f.Header {
		if strings.HasPrefix(h, "@") {
			continue // read when connecting
		}
		if _, err := parseHeader(h); err != nil {
			return err
		}
	}
	if f.Timeout < 0 || f.ConnectTimeout < 0 {
		return fmt.Errorf("timeouts cannot be negative")
	}
	return nil
}

// outputFlags shape what reaches stdout.
type outputFlags struct {
	Jq         string `short:"q" name:"jq" placeholder:"EXPR" help:"Filter the result with a jq expression." group:"Output"`
	RawOutput  bool   `short:"r" name:"raw-output" help:"Write strings from --jq without quotes." group:"Output"`
	ExitStatus bool   `short:"e" name:"exit-status" help:"Exit 1 when the last --jq output is false or null, or there is none." group:"Output"`
	Pretty     bool   `name:"pretty" xor:"layout" help:"Indent the JSON (the default on a terminal)." group:"Output"`
	Compact    bool   `short:"c" name:"compact" xor:"layout" help:"One JSON value per line (the default in pipes)." group:"Output"`
	Color      string `name:"color" enum:"auto,always,never" default:"auto" help:"Colour the JSON: auto, always or never (NO_COLOR is honoured)." group:"Output"`

	filter *output.Filter
}

func (f *outputFlags) Validate() error {
	if f.Jq == "" {
		if f.RawOutput || f.ExitStatus {
			return fmt.Errorf("--raw-output and --exit-status need --jq")
		}
		return nil
	}
	filter, err := output.CompileFilter(f.Jq)
	if err != nil {
		return err
	}
	f.filter = filter
	return nil
}

func (f *outputFlags) printer(ios *output.Streams, getenv func(string) string) *output.Printer {
	return &output.Printer{
		Out: ios.Out,
		Format: output.Format{
			Pretty: f.Pretty || (ios.OutTTY && !f.Compact),
			Color:  output.UseColor(f.Color, ios.OutTTY, getenv),
			Raw:    f.RawOutput,
		},
		Filter:     f.filter,
		ExitStatus: f.ExitStatus,
	}
}
