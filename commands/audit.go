package commands

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/audit"
	"github.com/mcpv/mcpv/internal/audit/judge"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/gcstart"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/internal/trust"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

type auditCmd struct {
	Files  []string `arg:"" optional:"" placeholder:"FILE" help:"Saved surfaces to audit, without starting anything: pin files, mcpv test snapshots, recordings, traces."`
	All    bool     `name:"all" help:"Every server of the config files, and what they show together (names on two servers, one naming another's tools)."`
	Format string   `name:"format" enum:"text,json,sarif,junit" default:"text" help:"text (for people), json, sarif (SARIF 2.1.0, for code scanning) or junit."`
	Output string   `name:"output" placeholder:"FILE" help:"Write the report to FILE (then the text report goes to stdout)."`
	FailOn string   `name:"fail-on" enum:"critical,high,medium,low,info,none" default:"high" help:"Exit 1 when a finding of this severity or higher is found (none: never)."`

	Judge        string        `name:"judge" placeholder:"CMD" help:"Also ask a model (mcpv help audit-rules)."`
	JudgeTimeout time.Duration `name:"judge-timeout" default:"60s" min:"1ms" placeholder:"DURATION" help:"The judge's time for one item."`
	JudgeMax     int           `name:"judge-max" default:"200" min:"1" placeholder:"N" help:"Ask the judge about N items at most."`
	JudgeEnv     []string      `name:"judge-env" placeholder:"NAME" help:"Pass this variable to the judge."`
}

func (c *auditCmd) serverChoosing() {}

// auditRulesTopic is 'mcpv help audit-rules': what audit's help leaves out.
const auditRulesTopic = `Each finding names its rule, its severity (critical, high, medium, low, info), the item and the field, and quotes the text made safe for a terminal: escapes shown, invisible characters named, Unicode tags decoded, secrets masked. The rules (docs/guide/trust.md has each with an example):

  unicode-tag, invisible-character, bidi-control, control-character,
  look-alike-letters, hidden-comment, hidden-block, hidden-after-whitespace,
  encoded-instructions, override-instructions, conceal-from-user,
  sensitive-file, side-channel-parameter, send-elsewhere,
  cross-tool-instructions, coercion, call-order-hijack, command-payload,
  name-collision, secret-in-surface, annotation-mismatch, costly-description,
  unread-text, unread-list, model-judge

A finding is high only where the text orders the model to do what the user did not ask: to pass on what it holds (the conversation, its instructions, other tools' results, secrets, private files) to a parameter, an address or another tool; to keep something from the user; to take another role or set aside what it was told; to change other tools' and servers' calls. A tool about secrets, keys, vaults, SSH, shells or payments is not an attack for that. Orders are read by the ideas a sentence holds, not by set phrases, in 22 languages: English, Chinese (simplified and traditional), Spanish, German, French, Russian, Portuguese, Italian, Japanese, Polish, Ukrainian, Korean, Turkish, Dutch, Indonesian, Arabic, Vietnamese, Hebrew, Hindi, Swahili, Czech and Persian. Every string a model sees is read: names split at _, - and capitals; enum, const, default and example values; format, pattern, title, $comment and every other keyword holding text; outputSchema; prompts and their arguments; resources and templates; instructions; and what a host puts before the model beyond the lists: the messages prompts/get returns (each prompt got with its arguments filled with placeholders) and the text resources/read returns (a recording's, or asked live: 64 of each at most, 1 MiB each, 8 at once, all within 10 s; what is left unread is said, low).

Bounds: each text is read by the rules of words to its first 1 MiB, each item to 10,000 texts, and by the rules of characters to its end; what is left is a finding (unread-text). A list the server answers with an error is audited as far as it was read (unread-list, low).

--judge CMD also asks a model of your choosing about each item the rules did not fail. CMD runs as --sampling-cmd does (sh -c; cmd.exe /c on Windows), once an item, in a minimal environment (PATH, HOME, the user, the locale; --judge-env NAME gives it one of mcpv's, a model's key say), with a sampling/createMessage request on stdin: a fixed prompt (docs/guide/trust.md quotes it) and the item as the server sent it, its secrets masked (those of mcpv's environment too), cut at 16 KiB. It prints a CreateMessageResult (or the text alone) holding {"verdict": "poisoned"|"honest", "confidence": "high"|"low", "reason": "..."}. A poisoned verdict is a model-judge finding, high when the model is sure; no verdict (a timeout, junk, more than 64 KiB) is an info finding that says why. Each item takes at most --judge-timeout (default 60s; then the judge's process group is killed), at most --judge-max items are asked (default 200), and answers are kept by the item's digest in mcpv's state directory (audit-judge/, the user's alone, at most 10,000). Nothing is sent anywhere but to CMD.`

func (c *auditCmd) Help() string {
	return `Reads what servers show a model (names, descriptions, schemas, prompts, resources, instructions) for tool poisoning, shadowing and leaks, with deterministic rules, locally: nothing is sent anywhere. It audits the server the command line names, every server of the config files (--all), saved surfaces (FILE: a pin file, a snapshot, a recording, a trace), or all of them. Each finding names its rule, severity, item and field, and quotes the text made safe; 'mcpv help audit-rules' lists the rules, and --judge (a model of your choosing, never by default).

The exit code is 1 when a finding at or above --fail-on (default high) is found, else 0; a server that could not be reached ends the audit with its own code (4, 5...), after the report. --format sarif places each finding at the file its server came from.

Examples:

    $ mcpv audit -- ./server
    $ mcpv audit --all
    $ mcpv audit pins.json --format sarif --output audit.sarif
    $ mcpv audit pins.json --judge ./judge-ollama.sh`
}

func (c *auditCmd) Run(ctx context.Context, out *console, t *targets) error {
	if err := surfaceArgs(t, c.Files, c.All, "audit"); err != nil {
		return err
	}
	start := time.Now()
	gcstart.Bound(auditMemory) // unless the user set GOGC or GOMEMLIMIT
	f, err := createFlagFile(out.env, "output", c.Output, 0o644)
	if err != nil {
		return err
	}
	defer f.Close() // a nil file's Close does nothing
	dest := &testreport.Output{Stdout: out.ios.Out, File: f}
	var targets []audit.Target
	var servers []audit.ServerInfo
	add := func(target audit.Target) {
		s := target.Surface
		targets = append(targets, target)
		servers = append(servers, audit.ServerInfo{Name: s.Name, Source: target.Source, Items: len(s.Tools) + len(s.Prompts) + len(s.Resources) + len(s.ResourceTemplates)})
	}
	failures, err := eachSurface(ctx, out, t, c.Files, c.All, "audited", "audit", func(path string, sf *pin.SurfaceFile, s surface.Server) error {
		add(audit.Target{Surface: s, Source: path, Lines: sf.Lines})
		return nil
	}, func(name string) (string, error) {
		target, err := c.live(ctx, t, name)
		if err == nil {
			add(target)
		}
		return target.Surface.Name, err
	})
	if err != nil {
		return err
	}
	failOn, _ := audit.ParseSeverity(c.FailOn) // kong holds it to the names
	var asked []judge.Item
	if c.Judge != "" {
		for _, t := range targets {
			asked = append(asked, judge.ItemsOf(t)...) // before Audit, which lets the items go
		}
	}
	findings := audit.Audit(targets)
	if c.Judge != "" {
		findings = append(findings, c.judge(ctx, out, asked, findings, failOn)...)
		audit.Sort(findings)
	}
	r := audit.Report{Servers: servers, Findings: findings, FailOn: failOn, Version: Version, Took: time.Since(start), Unaudited: len(failures)}
	switch {
	case ctx.Err() != nil && c.Judge != "":
		r.Stopped = "interrupted before every item was judged"
	case ctx.Err() != nil:
		r.Stopped = "interrupted"
	}
	if err := c.write(out, dest, r); err != nil {
		return err
	}
	switch {
	case ctx.Err() != nil:
		return context.Cause(ctx) // interrupted while the judge was asked: what it had, written
	case len(failures) > 0:
		return batchFailed{exitCode(failures[0]), out.unsaid(failures)}
	case r.Failed():
		return batchFailed{code: exitcode.ToolError}
	}
	return nil
}

// live reads the surface of a server: the one the command line names
// (name ""), or the config files' server called name. A server that
// could not be read is named in the target's surface all the same.
func (c *auditCmd) live(ctx context.Context, t *targets, name string) (audit.Target, error) {
	s, err := t.open(name)
	if err != nil {
		return audit.Target{Surface: surface.Server{Name: name}}, err
	}
	defer s.close()
	// Its lists, and what its prompts and resources return.
	surf, unread, err := auditLists(ctx, s)
	if err != nil {
		return audit.Target{Surface: surface.Server{Name: s.settings.Name}}, err
	}
	unread = append(unread, gatherReads(ctx, s, &surf)...)
	surf.Name = cmp.Or(name, surf.Name, s.settings.Name)
	source, line := "", s.settings.ConfigLine
	if f := s.settings.ConfigFile; f != "" {
		source = f
		if rel, err := filepath.Rel(t.r.env.Cwd, f); err == nil && !strings.HasPrefix(rel, "..") {
			source = rel
		}
	}
	return audit.Target{Surface: surf, Source: source, Lines: func(string, string) int { return line }, Unread: unread}, nil
}

// judge asks the --judge command about each item that no finding fails
// (at failOn; every item when nothing fails).
func (c *auditCmd) judge(ctx context.Context, out *console, items []judge.Item, found []audit.Finding, failOn audit.Severity) []audit.Finding {
	failed := map[[3]string]bool{}
	for _, f := range found {
		if f.Severity >= failOn {
			failed[[3]string{f.Server, f.Kind, f.Name}] = true
		}
	}
	todo := slices.DeleteFunc(items, func(it judge.Item) bool { return failed[[3]string{it.Server, it.Kind, it.Name}] })
	// The judge's environment: a minimal one (a server from config gets the
	// same), with the variables --judge-env names, a model's key among
	// them, from mcpv's. Never nil: nil would be mcpv's whole one.
	env := append([]string{}, connect.MinimalEnv(out.env.Environ, out.env.GOOS)...)
	for _, name := range c.JudgeEnv {
		if v, ok := out.env.Lookup(name); ok {
			env = append(env, name+"="+v)
		}
	}
	j := &judge.Judge{Command: c.Judge, Timeout: c.JudgeTimeout, Max: c.JudgeMax, Dir: out.env.Cwd,
		CacheDir: filepath.Join(trust.StateDir(out.env.Getenv, out.env.Home(), out.env.GOOS), "audit-judge"),
		Env:      env,
		Mask:     out.secrets.String}
	return j.Judge(ctx, todo)
}

// gatherReads reads what a model reads of the server beyond its lists:
// its prompts' messages and its resources' text (surface.GatherReads),
// masked as the lists are; what it left unread, said.
func gatherReads(ctx context.Context, s *session, surf *surface.Server) []audit.Unread {
	l, ctx, cancel, err := surfaceLister(ctx, s)
	if err != nil {
		return []audit.Unread{{Method: "prompts/get", Message: "not read: " + err.Error()}}
	}
	defer cancel()
	var unread []audit.Unread
	for _, u := range l.GatherReads(ctx, surf) {
		unread = append(unread, audit.Unread{Method: u.Method, Message: u.Message})
	}
	for _, m := range []map[string]json.RawMessage{surf.Reads.Prompts, surf.Reads.Resources} {
		for k, v := range m {
			m[k] = s.masked(v)
		}
	}
	return unread
}

// auditLists reads a server's surface as gather does, except
// that a list the server declares and then answers with an error (an
// honest server with no database behind it may), or one larger than mcpv
// reads, does not end the audit: what the server gave is audited, and
// what it did not is said (unread, a list each). A server that
// cannot be talked to still ends it.
func auditLists(ctx context.Context, s *session) (surface.Server, []audit.Unread, error) {
	surf, err := gather(ctx, s, false)
	var ce *mcp.CallError
	var be *surface.BudgetError
	switch {
	case err == nil && surf.ResourcesError == "":
		return surf, nil, nil
	case err != nil && !errors.As(err, &ce) && !errors.As(err, &be):
		return surf, nil, err
	}
	// A list ended in an error (gather leaves out resources/list's
	// own, which a pin passes over): walked again, list by list, to say
	// which and how far.
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
				safetext.Line(safetext.Clip(redact.MaskSecrets(string(s.masked([]byte(ce.Err.Message)))), 200)), unreadItems(len(items)))})
		case errors.As(err, &be):
			unread = append(unread, audit.Unread{Method: li.method, Message: fmt.Sprintf("is larger than %d MiB: only its first %d items were audited", be.Budget>>20, be.Items)})
		default:
			return surface.Server{}, nil, err
		}
	}
	maskSurface(&surf, s.masked)
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
	if write := map[string]func(io.Writer) error{"json": r.JSON, "sarif": r.SARIF, "junit": r.JUnit}[c.Format]; write != nil {
		return testreport.WriteError(write(dest.Report()))
	}
	return nil
}

// auditMemory is the soft limit of the heap an audit sets, when the user
// set none (GOGC, GOMEMLIMIT): the garbage collector then runs before the
// heap doubles past it. An audit holds each item's bytes and its decoded
// texts (about twice its input; the cost counter's text of a large item is
// let go and collected before the decoded texts are made), and each worker
// a view of at most 1 MiB of one text: a description of 60 MiB takes
// about 165 MB, 1,000 tools about 50.
const auditMemory = 160 << 20
