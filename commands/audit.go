package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/audit"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/gcstart"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

type auditCmd struct {
	Files  []string `arg:"" optional:"" placeholder:"FILE" help:"Saved surfaces to audit, without starting anything: pin files, mcpv test snapshots, recordings."`
	All    bool     `name:"all" help:"Every server of the config files (as 'mcpv servers' lists them), and what they show together (names on two servers, one naming another's tools)."`
	Format string   `name:"format" enum:"text,json,sarif,junit" default:"text" help:"text (for people), json, sarif (SARIF 2.1.0, for code scanning) or junit."`
	Output string   `name:"output" placeholder:"FILE" help:"Write the report to FILE (then the text report goes to stdout)."`
	FailOn string   `name:"fail-on" enum:"critical,high,medium,low,info,none" default:"high" help:"Exit 1 when a finding of this severity or higher is found (none: never)."`
}

func (c *auditCmd) noServer()       {}
func (c *auditCmd) serverChoosing() {}

// auditRulesTopic is 'mcpv help audit-rules': what audit's help leaves out.
const auditRulesTopic = `Each finding names its rule, its severity (critical, high, medium, low, info), the item and the field, and quotes the text made safe for a terminal: escapes shown, invisible characters named, Unicode tags decoded, secrets masked. The rules (docs/guide/trust.md has each with an example):

  unicode-tag, invisible-character, bidi-control, control-character,
  look-alike-letters, hidden-comment, hidden-block, hidden-after-whitespace,
  encoded-instructions, override-instructions, conceal-from-user,
  sensitive-file, side-channel-parameter, send-elsewhere,
  cross-tool-instructions, coercion, call-order-hijack, command-payload,
  name-collision, secret-in-surface, annotation-mismatch`

func (c *auditCmd) Help() string {
	return `Reads what servers show a model (names, descriptions, schemas, prompts, resources, instructions) for the signs of tool poisoning, shadowing and leaks, with deterministic rules, locally: nothing is sent anywhere. It audits the server the command line names, every server of the config files (--all), or saved surfaces (FILE: a pin file, a snapshot, a recording), or all of them at once.

Each finding names its rule, its severity (critical, high, medium, low, info), the item and the field, and quotes the text made safe for a terminal; 'mcpv help audit-rules' lists the rules.

The exit code is 1 when a finding at or above --fail-on (default high) is found, else 0; a server that could not be reached ends the audit of the others with its own code (4, 5...), after the report. --format sarif writes SARIF 2.1.0 for GitHub code scanning, each finding at the file its server came from (a pin file's line, a config file's entry).

Examples:

    $ mcpv audit -- ./server
    $ mcpv audit --all
    $ mcpv audit pins.json --format sarif --output audit.sarif
    $ mcpv audit -s github --fail-on medium --format json`
}

func (c *auditCmd) Run(ctx context.Context, out *console, t *targets) error {
	if len(c.Files) == 0 && !c.All && !t.given() {
		return usageErrorf("give what to audit: FILE, --all, or a server: -- COMMAND, --url URL or --server NAME")
	}
	if c.All && t.given() {
		return usageErrorf("--all audits every server of the config files; give no server as well")
	}
	start := time.Now()
	gcstart.Bound(auditMemory) // unless the user set GOGC or GOMEMLIMIT
	dest := &testreport.Output{Stdout: out.ios.Out}
	if c.Output != "" {
		f, err := safefile.CreateNoFollow(out.env.Path(c.Output))
		if err != nil {
			return usageErrorf("--output: %v", err)
		}
		defer f.Close()
		dest.File = f
	}
	var targets []audit.Target
	var servers []audit.ServerInfo
	for _, path := range c.Files {
		sf, err := pin.ReadSurfaceFile(out.env.Path(path), safefile.Read)
		if err != nil {
			return usageErrorf("%s: %v", path, err)
		}
		for _, s := range sf.Servers {
			targets = append(targets, audit.Target{Surface: s, Source: path, Lines: sf.Lines})
			servers = append(servers, audit.ServerInfo{Name: s.Name, Source: path, Items: items(s.Tools, s.Prompts, s.Resources, s.ResourceTemplates)})
		}
	}
	var names []string
	switch {
	case c.All:
		all, err := configServers(out, t)
		if err != nil {
			return err
		}
		names = all
	case t.given():
		names = []string{""}
	}
	var failed error
	for _, name := range names {
		if ctx.Err() != nil {
			return context.Cause(ctx) // interrupted: no more servers started
		}
		target, info, err := c.live(ctx, t, name)
		if err != nil {
			if failed == nil {
				failed = err
			}
			fmt.Fprintf(out.ios.Err, "mcpv: server %q could not be audited: %s\n", safetext.Line(cmpOr(name, info.Name)), exitcode.Message(err, exitCode(err), "mcpv audit --help"))
			if len(names) == 1 && len(c.Files) == 0 {
				return batchFailed{exitCode(err)}
			}
			continue
		}
		targets = append(targets, target)
		servers = append(servers, info)
	}
	failOn, _ := audit.ParseSeverity(c.FailOn) // kong holds it to the names
	r := audit.Report{Servers: servers, Findings: audit.Audit(targets), FailOn: failOn, Version: Version, Took: time.Since(start)}
	if err := c.write(out, dest, r); err != nil {
		return err
	}
	switch {
	case failed != nil:
		return batchFailed{exitCode(failed)}
	case r.Failed():
		return batchFailed{exitcode.ToolError}
	}
	return nil
}

// live reads the surface of a server: the one the command line names
// (name ""), or the config files' server called name.
func (c *auditCmd) live(ctx context.Context, t *targets, name string) (audit.Target, audit.ServerInfo, error) {
	s, err := t.open(name)
	if err != nil {
		return audit.Target{}, audit.ServerInfo{Name: name}, err
	}
	defer s.close()
	surf, unread, err := auditSurface(ctx, s)
	if err != nil {
		return audit.Target{}, audit.ServerInfo{Name: s.settings.Name}, err
	}
	surf.Name = cmpOr(name, cmpOr(surf.Name, s.settings.Name))
	source, line := "", s.settings.ConfigLine
	if f := s.settings.ConfigFile; f != "" {
		source = f
		if rel, err := filepath.Rel(t.r.env.Cwd, f); err == nil && !strings.HasPrefix(rel, "..") {
			source = rel
		}
	}
	target := audit.Target{Surface: surf, Source: source, Lines: func(string, string) int { return line }, Unread: unread}
	return target, audit.ServerInfo{Name: surf.Name, Source: source, Items: items(surf.Tools, surf.Prompts, surf.Resources, surf.ResourceTemplates)}, nil
}

// auditSurface reads a server's surface as gatherSurface does, except
// that a list the server declares and then answers with an error (an
// honest server with no database behind it may), or one larger than mcpv
// reads, does not end the audit: what the server gave is audited, and
// what it did not is said (unread, a list each). A server that
// cannot be talked to still ends it.
func auditSurface(ctx context.Context, s *session) (surface.Server, []audit.Unread, error) {
	surf, err := gatherSurface(ctx, s)
	var ce *mcp.CallError
	var be *surface.BudgetError
	if err == nil || !errors.As(err, &ce) && !errors.As(err, &be) {
		return surf, nil, err
	}
	l, ctx, cancel, err := surfaceLister(ctx, s)
	if err != nil {
		return surface.Server{}, nil, err
	}
	defer cancel()
	client, _ := s.client(ctx) // the one surfaceLister asked for
	surf = surface.Server{HasResources: true}
	l.Identify(&surf)
	var unread []audit.Unread
	for _, li := range []struct {
		method, capability string
		dest               *[]json.RawMessage
	}{
		{"tools/list", "tools", &surf.Tools}, {"prompts/list", "prompts", &surf.Prompts},
		{"resources/list", "resources", &surf.Resources}, {"resources/templates/list", "resources", &surf.ResourceTemplates},
	} {
		if !client.HasCapability(li.capability) {
			continue
		}
		items, err := l.Items(ctx, li.method)
		*li.dest = items
		switch {
		case err == nil:
		case errors.As(err, &ce) && ce.Err.Code == mcp.CodeMethodNotFound && len(items) == 0:
			surf.Unimplemented = append(surf.Unimplemented, li.method)
		case errors.As(err, &ce):
			unread = append(unread, audit.Unread{Method: li.method, Message: fmt.Sprintf("answered an error (%d %s): %s", ce.Err.Code,
				safetext.Line(safetext.Clip(redact.MaskSecrets(ce.Err.Message), 200)), unreadItems(len(items)))})
		case errors.As(err, &be):
			unread = append(unread, audit.Unread{Method: li.method, Message: fmt.Sprintf("is larger than %d MiB: only its first %d items were audited", be.Budget>>20, be.Items)})
		default:
			return surface.Server{}, nil, err
		}
	}
	s.maskSurface(&surf)
	return surf, unread, nil
}

// unreadItems says what of a list that ended in an error was audited.
func unreadItems(read int) string {
	if read == 0 {
		return "its items were not audited"
	}
	return fmt.Sprintf("only the %d items of its first pages were audited", read)
}

// write writes the report: the text report to stdout (or to --output),
// the report of another format to --output or stdout.
func (c *auditCmd) write(out *console, dest *testreport.Output, r audit.Report) error {
	if w, tty := dest.Text(c.Format); w != nil {
		color := output.UseColor(out.flags.Color, tty && out.ios.OutTTY && !out.ios.NoANSI, out.env.Getenv)
		if err := testreport.WriteError(r.Text(w, color)); err != nil {
			return err
		}
	}
	w := dest.Report()
	var err error
	switch c.Format {
	case "json":
		err = r.JSON(w)
	case "sarif":
		err = r.SARIF(w)
	case "junit":
		err = r.JUnit(w)
	}
	return testreport.WriteError(err)
}

// auditMemory is the soft limit of the heap an audit sets, when the user
// set none (GOGC, GOMEMLIMIT): the garbage collector then runs before the
// heap doubles past it. An audit holds each item's bytes and its decoded
// texts (about twice its input; JSON's decoding of one long string holds
// a third copy while it runs), and each worker a view of at most 1 MiB of
// one text: a description of 60 MiB takes about 200 MB, 1,000 tools
// about 50.
const auditMemory = 160 << 20

func items[T any](lists ...[]T) int {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	return n
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
