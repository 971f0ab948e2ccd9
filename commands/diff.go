package commands

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/cost"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/output"
)

type diffCmd struct {
	Old    string `arg:"" placeholder:"OLD" help:"The surface before: a pin file, an mcpv test snapshot, a recording (mcpv serve --record) or a trace (mcpv --trace)."`
	New    string `arg:"" optional:"" placeholder:"NEW" help:"The surface after, as OLD; without it, the server the command line names, as it is now."`
	Format string `name:"format" enum:"text,json" default:"text" help:"text (for people) or json."`
	FailOn string `name:"fail-on" default:"any" help:"Exit 1 when a change of this class or worse is found: breaking, security (and breaking), any, or none; or when the cost in tokens passes a budget: tokens>N (the total), tokens>+N or tokens>+N% (the growth)."`

	budget *cost.Budget
}

func (c *diffCmd) Validate() error {
	b, ok, err := cost.ParseBudget(c.FailOn)
	switch {
	case err != nil:
		return usageErrorf("--fail-on %v", err)
	case ok:
		c.budget = &b
	case !slices.Contains([]string{"breaking", "security", "any", "none"}, c.FailOn):
		return usageErrorf("--fail-on %q: want breaking, security, any, none or a budget such as tokens>+10%%", c.FailOn)
	}
	return nil
}

func (c *diffCmd) serverChoosing() {}

func (c *diffCmd) Help() string {
	return `Tells how a server's surface changed, each change with its class:

  breaking    a client of the old surface may fail: an item removed, a
              required parameter added, a type narrowed, an enum value
              removed, an outputSchema that old results no longer fit
  security    what a model reads or trusts changed: a description, a
              title, the instructions, an annotation, the server's name,
              a new item named like another or with the description of
              one that went, a name listed twice against a pin
  compatible  the rest: an optional parameter, a new item, a version

Each side is a pin file (mcpv pin), an mcpv test snapshot, a recording (serve --record) or a trace (--trace); without NEW, the server the command line names, as it is now. Against a pin, only what it holds is compared (not _meta, icons or the version). Several servers in a file: --server NAME.

The exit code follows the worst class: 1 when a change of --fail-on's class or worse is found (default any, as diff(1)), else 0; 2 for a mistake, 4 and the rest as for every command. --format json prints the changes for a script, its schema versioned ("mcpvDiff": 1).

Examples:

    $ mcpv diff pins.json -- ./server
    $ mcpv diff old.snapshot.json new.snapshot.json --fail-on breaking
    $ mcpv diff pins.json -s github --fail-on security --format json`
}

// diffSide is one side of a diff: its surface and what it is.
type diffSide struct {
	Source string `json:"source"` // the file, or "live"
	Format string `json:"format"` // pin, snapshot, recording, trace, or live
	Server string `json:"server,omitempty"`
	s      surface.Server
	pinned *pin.Server // the pin's entry, for a side that is one
}

func (c *diffCmd) Run(ctx context.Context, out *console, t *targets) error {
	server := t.r.c.flags.Server
	if c.New != "" && t.given() && server == "" {
		return usageErrorf("diff compares OLD with NEW, or OLD with the server the command line names: give NEW or a server, not both")
	}
	oldFile, err := readSide(c.Old, out)
	if err != nil {
		return err
	}
	var old, new diffSide
	if c.New == "" {
		old, new, err = c.liveSides(ctx, out, t, oldFile)
	} else if old, err = fileSide(out, c.Old, oldFile, server, "", ""); err == nil {
		var newFile *pin.SurfaceFile
		if newFile, err = readSide(c.New, out); err == nil {
			new, err = fileSide(out, c.New, newFile, server, "", "")
		}
	}
	if err != nil {
		return err
	}
	changes := diffChanges(old, new)
	tokens, err := costDelta(old.s, new.s)
	if err != nil {
		return err
	}
	failed := c.failing(changes)
	if c.budget != nil {
		failed = c.budget.Exceeded(tokens)
	}
	if c.Format == "json" {
		err = c.writeJSON(out, old, new, changes, tokens, failed)
	} else {
		err = c.writeText(out, changes, tokens, failed)
	}
	if err != nil || !failed {
		return err
	}
	return batchFailed{exitcode.ToolError, []string{"the diff fails --fail-on " + c.FailOn + ": the report on stdout says why"}}
}

// diffChanges are the changes from old to new. Against a pin, only what
// a pin holds is compared (the members a model reads; not _meta, icons,
// the server's version), and the apps it pins, and a key new lists twice
// is a security change, as pin --check says (else the copy that is not
// the pinned one would be only a new item); else everything.
func diffChanges(old, new diffSide) []surface.Change {
	if old.pinned == nil && new.pinned == nil {
		return surface.CompareServers(old.s, new.s)
	}
	changes := surface.CompareServers(pin.View(old.s), pin.View(new.s))
	for _, kind := range pin.Kinds {
		for _, key := range pin.Duplicates(kind, pin.Listed(kind, new.s)) {
			changes = append(changes, pin.ListedTwice(kind, key).Changes...)
		}
	}
	switch {
	case old.pinned != nil && new.Format == "live":
		changes = append(changes, old.pinned.AppChanges(new.s)...)
	case old.pinned != nil && new.pinned != nil:
		changes = append(changes, old.pinned.AppChangesTo(new.pinned)...)
	}
	return changes
}

// failing says whether a change is of the class --fail-on names or
// worse.
func (c *diffCmd) failing(changes []surface.Change) bool {
	if c.FailOn == "none" || c.budget != nil {
		return false
	}
	failOn := surface.ClassCompatible
	if c.FailOn != "any" {
		failOn, _ = surface.ParseClass(c.FailOn)
	}
	worst, any := surface.Worst(changes)
	return any && worst >= failOn
}

// readSide reads a file of surfaces, each through the run's masker, as a
// live server's is: a file written before a secret was masked compares
// equal with the server, and shows no secret of the user's.
func readSide(path string, out *console) (*pin.SurfaceFile, error) {
	sf, err := pin.ReadSurfaceFile(out.env.Path(path), safefile.Read)
	if err != nil {
		return nil, usageErrorf("%s: %v", path, err)
	}
	for i := range sf.Servers {
		maskSurface(&sf.Servers[i], out.secrets.Mask)
	}
	return sf, nil
}

// fileSide is the side a file holds: the entry called server of a file
// of several servers, or its only one. A pin file's entry is found as a
// pinned command finds it (pin.File.Entry): by configName, the live
// server's config name, else infoName, the name its serverInfo gives,
// with a note on stderr when under the other; server alone names an
// entry as it is called.
func fileSide(out *console, path string, sf *pin.SurfaceFile, server, configName, infoName string) (diffSide, error) {
	side := diffSide{Source: path, Format: sf.Format}
	if sf.Pins != nil && (configName != "" || infoName != "") {
		p, note, err := sf.Pins.Entry(configName, infoName)
		if ne, ok := errors.AsType[*pin.NoEntryError](err); ok {
			ne.File = path
			return diffSide{}, usageError(err)
		}
		if note != "" {
			out.notef("%s: %s", path, note)
		}
		side.s, side.Server, side.pinned = p.Surface(), p.Name, p
		maskSurface(&side.s, out.secrets.Mask)
		return side, nil
	}
	i := 0 // the server of the file the side is
	switch {
	case server != "":
		i = slices.IndexFunc(sf.Servers, func(s surface.Server) bool { return s.Name == server })
		if i < 0 && len(sf.Servers) == 1 && sf.Format != "pin" {
			side.s, side.Server = sf.Servers[0], server
			return side, nil
		}
		if i < 0 {
			return diffSide{}, usageErrorf("%s holds no server %q", path, server)
		}
	case len(sf.Servers) != 1:
		return diffSide{}, usageErrorf("%s holds %d servers; name one with --server NAME", path, len(sf.Servers))
	}
	side.s, side.Server = sf.Servers[i], sf.Servers[i].Name
	if sf.Pins != nil {
		side.pinned = sf.Pins.Servers[i]
	}
	return side, nil
}

// liveSides are OLD, the file, and the server the command line names, as
// it is now; a pin's entry for it is found as a pinned command finds it.
func (c *diffCmd) liveSides(ctx context.Context, out *console, t *targets, oldFile *pin.SurfaceFile) (old, new diffSide, err error) {
	if !t.given() {
		return old, new, usageErrorf("give NEW, or the server to compare OLD with: -- COMMAND, --url URL or --server NAME")
	}
	s, err := t.open("")
	if err != nil {
		return old, new, err
	}
	defer s.close()
	live, err := gather(ctx, s, oldFile.Pins != nil && slices.ContainsFunc(oldFile.Pins.Servers, func(p *pin.Server) bool { return p.HasApps }))
	if err != nil {
		return old, new, err
	}
	old, err = fileSide(out, c.Old, oldFile, t.r.c.flags.Server, s.settings.PinEntry, live.InfoName())
	return old, diffSide{Source: "live", Format: "live", Server: s.settings.Name, s: live}, err
}

// writeText writes the changes for people: a line each with its class,
// the texts of a text that changed under it, then a line of counts.
func (c *diffCmd) writeText(out *console, changes []surface.Change, tokens cost.Delta, failed bool) error {
	b := bufio.NewWriter(out.ios.Out)
	color := output.UseColor(out.flags.Color, out.ios.OutTTY && !out.ios.NoANSI, out.env.Getenv)
	paint := map[surface.Class]string{surface.ClassBreaking: "31", surface.ClassSecurity: "33", surface.ClassCompatible: "2"}
	var counts [3]int
	for _, ch := range changes {
		counts[ch.Class]++
		lines := ch.Lines(100)
		class := fmt.Sprintf("%-10s", ch.Class)
		if color {
			class = "\x1b[" + paint[ch.Class] + "m" + class + "\x1b[0m"
		}
		head := strings.TrimSuffix(lines[0], " ("+ch.Class.String()+")")
		fmt.Fprintf(b, "%s %s\n", class, safetext.Line(head))
		for _, l := range lines[1:] {
			fmt.Fprintf(b, "%11s%s\n", "", l)
		}
	}
	for _, it := range tokens.Items {
		fmt.Fprintf(b, "%-10s %s %s: %d -> %d\n", "tokens", it.Kind, safetext.Line(it.Name), it.Old, it.New)
	}
	if tokens.Old != tokens.New {
		fmt.Fprintf(b, "%-10s total: %d -> %d (%s, %s)\n", "tokens", tokens.Old, tokens.New, tokens.Change(), tokens.Tokenizer)
	}
	summary := "no changes"
	if len(changes) > 0 {
		summary = fmt.Sprintf("%d %s: %d breaking, %d security, %d compatible", len(changes), plural(len(changes), "change", "changes"),
			counts[surface.ClassBreaking], counts[surface.ClassSecurity], counts[surface.ClassCompatible])
	}
	if c.FailOn != "none" {
		summary += fmt.Sprintf("; %s (--fail-on %s)", map[bool]string{true: "failed", false: "passed"}[failed], c.FailOn)
	}
	fmt.Fprintln(b, summary)
	return b.Flush()
}

// costDelta is how the cost of the surface moved, in o200k tokens of the
// openai form (mcpv cost's defaults).
func costDelta(old, new surface.Server) (cost.Delta, error) {
	o200k, err := cost.Get("o200k")
	if err != nil {
		return cost.Delta{}, err
	}
	counter := &cost.Counter{Encoding: o200k, As: "openai"}
	var items [2][]cost.Item // before, after
	for i, s := range []surface.Server{old, new} {
		if items[i], err = counter.Server("", canonical(s)); err != nil {
			return cost.Delta{}, err
		}
	}
	return cost.Compare(o200k.Name, counter.As, items[0], items[1]), nil
}

// canonical is s with each item in a pin's form (keys sorted, strings
// as Go writes them), which is the only form a pin holds: both sides of a
// diff are counted in it, so that a server that did not change moves no
// token, whatever its own key order or escapes.
func canonical(s surface.Server) surface.Server {
	for _, list := range []*[]json.RawMessage{&s.Tools, &s.Prompts, &s.ResourceTemplates} {
		items := slices.Clone(*list)
		for i, raw := range items {
			if c, err := rawjson.Canonical(raw); err == nil {
				items[i] = c
			}
		}
		*list = items
	}
	return s
}

// diffJSONVersion is the version of diff's JSON output.
const diffJSONVersion = 1

func (c *diffCmd) writeJSON(out *console, old, new diffSide, changes []surface.Change, tokens cost.Delta, failed bool) error {
	counts := map[string]int{"breaking": 0, "security": 0, "compatible": 0}
	list := []surfaceChange{}
	for _, ch := range changes {
		counts[ch.Class.String()]++
		list = append(list, changeJSON(ch))
	}
	worst := ""
	if w, ok := surface.Worst(changes); ok {
		worst = w.String()
	}
	return out.print(mustJSON(map[string]any{
		"mcpvDiff": diffJSONVersion,
		"old":      old,
		"new":      new,
		"worst":    worst,
		"failOn":   c.FailOn,
		"failed":   failed,
		"counts":   counts,
		"changes":  list,
		"tokens":   tokens,
	}))
}
