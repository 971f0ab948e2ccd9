package commands

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/audit"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/output"
)

type auditCmd struct {
	Files  []string `arg:"" optional:"" placeholder:"FILE" help:"Saved surfaces to audit, without starting anything: pin files, mcpv test snapshots, recordings, traces."`
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
  name-collision, secret-in-surface, annotation-mismatch, costly-description`

func (c *auditCmd) Help() string {
	return `Reads what servers show a model (names, descriptions, schemas, prompts, resources, instructions) for the signs of tool poisoning, shadowing and leaks, with deterministic rules, locally: nothing is sent anywhere. It audits the server the command line names, every server of the config files (--all), or saved surfaces (FILE: a pin file, a snapshot, a recording, a trace), or all of them at once.

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
	unaudited := 0
	for _, name := range names {
		if ctx.Err() != nil {
			return context.Cause(ctx) // interrupted: no more servers started
		}
		target, info, err := c.live(ctx, t, name)
		if err != nil {
			if failed == nil {
				failed = err
			}
			unaudited++
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
	r := audit.Report{Servers: servers, Findings: audit.Audit(targets), FailOn: failOn, Version: Version, Took: time.Since(start), Unaudited: unaudited}
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
	surf, err := gatherSurface(ctx, s)
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
	target := audit.Target{Surface: surf, Source: source, Lines: func(string, string) int { return line }}
	return target, audit.ServerInfo{Name: surf.Name, Source: source, Items: items(surf.Tools, surf.Prompts, surf.Resources, surf.ResourceTemplates)}, nil
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
