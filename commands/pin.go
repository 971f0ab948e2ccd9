package commands

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/output"
)

type pinCmd struct {
	File    string   `arg:"" optional:"" placeholder:"FILE" help:"The pin file (default: --pin, MCPV_PIN, else the server's config entry's pin)."`
	All     bool     `name:"all" help:"Every server of the config files (as 'mcpv servers' lists them), each under its name."`
	Check   bool     `name:"check" help:"Record nothing: compare each server with its pin, and exit 7 when one moved."`
	Approve bool     `name:"approve" help:"Write the moves of each server into the pin (after you reviewed them with --check): only those entries change."`
	Item    []string `name:"item" sep:"none" placeholder:"KIND:NAME" help:"With --approve: approve only this item's move (repeatable): tool:NAME, prompt:NAME, resource:URI, template:URI-TEMPLATE, app:TOOL, instructions or server."`
}

func (c *pinCmd) serverChoosing() {}

// pinsTopic is 'mcpv help pins': what pin's help leaves out.
const pinsTopic = `  mcpv pin FILE            pin the server (the file keeps its other
                           servers); a server pinned already is checked
                           instead, and a move refused (exit 7)
  mcpv pin --check FILE    compare with the pin: exit 0 when nothing
                           moved, 7 when something did
  mcpv pin --approve FILE  write the moves into the pin; --item KIND:NAME
                           approves one

A move is a definition changed (its description, title, schemas, annotations), a new item, an item gone, a rename that keeps the description, a definition moved to a look-alike name, a name the server lists twice, and a tool's app that moved (its _meta.ui, or its ui:// document). The server's version and protocol version may change without a move. The JSON on stdout says, per server, what moved; the diff goes to stderr.

A server named by a config entry (-s NAME, --all) is pinned under that name; one given by its command line or URL under its serverInfo name; each is found under the other too, with a note. Instructions that moved are said once on stderr by each pinned command; --pin-strict refuses every item instead (exit 7).`

func (c *pinCmd) Help() string {
	return `Records what a server shows a model (who it says it is, its instructions, every tool, prompt, resource and template with the members a model reads, and each tool's app) in a pin file: text to commit and review, one entry per item with its digest, in a stable order. The first run pins the server (trust on first use); later runs check it.

Commands held to a pin (--pin FILE, MCPV_PIN, or a config entry's pin: FILE) refuse an item that moved since it was pinned, or is new, with exit 7 and a short diff on stderr: call, get-prompt, read, request, batch lines, sessions and mcpv test steps; mcpv serve --pin withholds it from its clients. Items that did not move keep working.

'mcpv help pins' says what each mode does and what counts as a move.

Examples:

    $ mcpv pin pins.json -- ./server
    $ mcpv pin --all mcp-pins.json
    $ mcpv pin --check pins.json -s github
    $ mcpv pin --approve pins.json -s github --item tool:create_issue
    $ mcpv call add a:=1 b:=2 --pin pins.json -- ./server`
}

func (c *pinCmd) Validate() error {
	if c.Check && c.Approve {
		return fmt.Errorf("--check compares and --approve writes: give one of them")
	}
	if len(c.Item) > 0 && !c.Approve {
		return fmt.Errorf("--item says which moves --approve writes; give --approve")
	}
	for _, it := range c.Item {
		if _, err := parseItem(it); err != nil {
			return err
		}
	}
	return nil
}

// itemRef is an item --item names.
type itemRef struct{ kind, key string }

func parseItem(s string) (itemRef, error) {
	if s == "instructions" || s == "server" {
		return itemRef{s, ""}, nil
	}
	kind, key, ok := strings.Cut(s, ":")
	kinds := map[string]string{"tool": "tool", "prompt": "prompt", "resource": "resource", "template": "resource template", "resource-template": "resource template", "app": pin.App}
	if !ok || kinds[kind] == "" || key == "" {
		return itemRef{}, fmt.Errorf("--item %q: want tool:NAME, prompt:NAME, resource:URI, template:URI-TEMPLATE, app:TOOL, instructions or server", s)
	}
	return itemRef{kinds[kind], key}, nil
}

// pinOutcome is what became of one server, as stdout shows it.
type pinOutcome struct {
	Name    string     `json:"name"`
	Action  string     `json:"action"` // "pinned", "unchanged", "moved", "approved", "failed"
	Items   int        `json:"items"`
	Moved   []pinMoved `json:"moved"`
	Written bool       `json:"written"`
	Error   string     `json:"error,omitempty"`
	open    bool       // moves are left that were neither approved nor pinned: exit 7
}

type pinMoved struct {
	Kind        string          `json:"kind"`
	Name        string          `json:"name,omitempty"`
	How         string          `json:"how"`
	LooksLike   string          `json:"looksLike,omitempty"`
	RenamedFrom string          `json:"renamedFrom,omitempty"`
	Changes     []surfaceChange `json:"changes,omitempty"`
	Approved    bool            `json:"approved,omitempty"`
}

func (c *pinCmd) Run(ctx context.Context, out *console, t *targets) error {
	names, err := c.servers(out, t)
	if err != nil {
		return err
	}
	path, label, err := c.path(t, names)
	if err != nil {
		return err
	}
	data, err := safefile.ReadOwn(path)
	file := &pin.File{} // none yet: one is started
	if !errors.Is(err, fs.ErrNotExist) {
		if file, err = parsePin(data, err, label); err != nil {
			return err
		}
	}
	var outcomes []pinOutcome
	failed, failures := error(nil), 0
	written := false
	for _, name := range names {
		if ctx.Err() != nil {
			return context.Cause(ctx) // interrupted: the file is left as it was
		}
		o, err := c.one(ctx, out, t, file, label, name)
		if err != nil {
			failed = cmp.Or(failed, err)
			failures++
			o.Action, o.Error = "failed", err.Error()
			if len(names) == 1 {
				return err
			}
			fmt.Fprintf(out.ios.Err, "mcpv: server %q: %v\n", safetext.Line(o.Name), err)
		}
		written = written || o.Written
		outcomes = append(outcomes, o)
	}
	if written {
		data := file.Marshal()
		if len(data) > pin.MaxFileSize {
			return fmt.Errorf("the pin would be %d MiB, more than the %d MiB a pin file may be; %s is left as it was", len(data)>>20, pin.MaxFileSize>>20, label)
		}
		if err := safefile.Replace(path, data); err != nil {
			return fmt.Errorf("writing %s: %w", label, err)
		}
	}
	if err := out.print(mustJSON(map[string]any{"file": label, "servers": outcomes})); err != nil {
		return err
	}
	if failed != nil {
		if len(names) > 1 {
			fmt.Fprintf(out.ios.Err, "mcpv: %d of %d servers could not be %s\n", failures, len(names), map[bool]string{true: "checked", false: "pinned"}[c.Check])
		}
		return batchFailed{code: exitCode(failed)} // said above
	}
	if slices.ContainsFunc(outcomes, func(o pinOutcome) bool { return o.open }) {
		return batchFailed{code: exitcode.Pinned} // the moves were said on stderr
	}
	return nil
}

// servers are the names of the servers to pin: every config server
// (--all), or the one the command line names ("" for one given by its
// command line or URL).
func (c *pinCmd) servers(out *console, t *targets) ([]string, error) {
	if !c.All {
		if !t.given() {
			return nil, usageErrorf("name the server: -- COMMAND, --url URL or --server NAME (or --all for every server of the config files)")
		}
		return []string{""}, nil
	}
	if t.given() {
		return nil, usageErrorf("--all pins every server of the config files; give no server as well")
	}
	return configServers(out, t)
}

// configServers are the names of the servers of the config files, each
// once, in the order 'mcpv servers' lists them.
func configServers(out *console, t *targets) ([]string, error) {
	cenv := t.r.env.Config(t.r.env.Path(t.r.c.flags.Config))
	files, skipped, err := config.All(cenv)
	connect.WarnSkipped(output.NewLogger(out.ios.Err), skipped)
	if err != nil {
		return nil, configError(err)
	}
	var names []string
	for _, f := range files {
		for _, s := range f.Servers {
			if !slices.Contains(names, s.Name) {
				names = append(names, s.Name)
			}
		}
	}
	if len(names) == 0 {
		return nil, usageErrorf("the config files name no server (see mcpv servers)")
	}
	return names, nil
}

// path is the pin file: FILE, else --pin or MCPV_PIN, else (for one
// server of a config file) its entry's pin.
func (c *pinCmd) path(t *targets, names []string) (path, label string, err error) {
	env := t.r.env
	if label := cmp.Or(c.File, t.r.c.flags.Pin, env.Getenv("MCPV_PIN")); label != "" {
		return env.Path(label), label, nil
	}
	if len(names) == 1 {
		s, err := t.open(names[0])
		if err != nil {
			return "", "", err
		}
		if s.settings.Pin != "" {
			if s.settings.PinTree != "" {
				if _, err := (safefile.Tree{Dir: s.settings.PinTree}).Path(s.settings.Pin); err != nil {
					return "", "", usageErrorf("the config entry's pin: %v", err)
				}
			}
			return s.settings.Pin, s.settings.PinLabel, nil
		}
	}
	return "", "", usageErrorf("name the pin file: mcpv pin FILE (or --pin FILE, MCPV_PIN, or a config entry's pin: FILE)")
}

// parsePin is the pin file read as data (or not read, err), label naming
// it in a mistake.
func parsePin(data []byte, err error, label string) (*pin.File, error) {
	if err == nil {
		var f *pin.File
		if f, err = pin.Parse(data); err == nil {
			return f, nil
		}
	}
	return nil, usageErrorf("pin file %s: %v", label, err)
}

// one pins, checks or approves the server called name ("" for the one
// the command line names). A server named by a config entry is pinned
// under its config name; one given by its command line or URL under the
// name its serverInfo gives (pin.File.Entry finds each under the other).
func (c *pinCmd) one(ctx context.Context, out *console, t *targets, file *pin.File, label, name string) (pinOutcome, error) {
	o := pinOutcome{Name: name, Moved: []pinMoved{}}
	s, err := t.open(name)
	if err != nil {
		return o, err
	}
	defer s.close()
	live, err := gather(ctx, s, true)
	if err != nil {
		return o, err
	}
	o.Name = cmp.Or(s.settings.PinEntry, live.InfoName(), s.settings.Name)
	if live.ResourcesError != "" {
		out.warnf("server %q answered resources/list with an error (%s): its resources are not %s", safetext.Line(o.Name),
			safetext.Clip(safetext.Line(live.ResourcesError), 200), map[bool]string{true: "checked", false: "pinned"}[c.Check])
	}
	entry, note, err := file.Entry(s.settings.PinEntry, live.InfoName())
	var ne *pin.NoEntryError
	switch {
	case errors.As(err, &ne) && c.Check:
		ne.File = label
		return o, err
	case err != nil:
		return c.record(out, file, o, live)
	case note != "":
		out.notef("%s: %s", label, note)
		o.Name = entry.Name
	}
	entry = entry.Masked(s.masked) // as live is
	file.Put(entry)                // written only when a move is approved
	moves := entry.Compare(live)
	o.Items = countItems(entry)
	for _, m := range moves {
		o.Moved = append(o.Moved, movedJSON(m))
	}
	switch {
	case len(moves) == 0 && !(c.Approve && !entry.HasApps && len(c.Item) == 0):
		o.Action = "unchanged"
		return o, nil
	case c.Approve:
		hadApps := entry.HasApps
		approved, err := entry.Approve(live, c.approves)
		if err != nil {
			return o, err
		}
		o.Written = len(approved) > 0 || entry.HasApps != hadApps // an entry written before apps were pinned gets them
		var left []pin.Move
		for i, m := range moves {
			o.Moved[i].Approved = slices.ContainsFunc(approved, func(a pin.Move) bool { return a.Kind == m.Kind && a.Key == m.Key })
			if m.How == pin.Twice {
				left = append(left, m)
			}
		}
		o.Action, o.Items, o.open = "approved", countItems(entry), len(left) > 0
		if o.open {
			writeMoves(out, o.Name, left, "cannot be approved while the server lists them so")
		}
		return o, nil
	}
	o.Action, o.open = "moved", true
	writeMoves(out, o.Name, moves, "")
	return o, nil
}

// record pins a server the file does not pin yet; a key it lists twice
// is pinned under neither definition, and said (exit 7).
func (c *pinCmd) record(out *console, file *pin.File, o pinOutcome, live surface.Server) (pinOutcome, error) {
	p, err := pin.Record(o.Name, live)
	if err != nil {
		return o, err
	}
	file.Put(p)
	o.Action, o.Items, o.Written = "pinned", countItems(p), true
	var twice []pin.Move
	for _, kind := range pin.Kinds {
		for _, key := range pin.Duplicates(kind, pin.Listed(kind, live)) {
			m := pin.ListedTwice(kind, key)
			twice = append(twice, m)
			o.Moved = append(o.Moved, movedJSON(m))
		}
	}
	if len(twice) > 0 {
		o.open = true
		writeMoves(out, o.Name, twice, "not pinned: the server must list each once")
	}
	return o, nil
}

// approves says whether --item names a move (every move without --item).
func (c *pinCmd) approves(m pin.Move) bool {
	return len(c.Item) == 0 || slices.ContainsFunc(c.Item, func(it string) bool {
		ref, _ := parseItem(it)
		return ref.kind == m.Kind && (ref.key == m.Key || ref.key == "")
	})
}

// writeMoves says on stderr how a server moved from its pin, a few lines
// an item; why, when not "", says why the moves are left.
func writeMoves(out *console, server string, moves []pin.Move, why string) {
	head := fmt.Sprintf("server %q moved from its pin: %d %s", safetext.Line(server), len(moves), plural(len(moves), "item", "items"))
	if why != "" {
		head = fmt.Sprintf("server %q lists %d %s more than once, which %s", safetext.Line(server), len(moves), plural(len(moves), "item", "items"), why)
	}
	fmt.Fprintf(out.ios.Err, "mcpv: %s\n", head)
	for _, m := range moves {
		fmt.Fprintf(out.ios.Err, "  %s %s\n", safetext.Line(m.Label()), m.How)
		for _, l := range pin.MoveLines(m, pin.MaxDetails) {
			fmt.Fprintf(out.ios.Err, "    %s\n", l)
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func countItems(p *pin.Server) int {
	n := 0
	for _, items := range p.Items {
		n += len(items)
	}
	return n
}

// surfaceChange is a change as JSON shows it, its texts' secrets masked.
type surfaceChange struct {
	Class   string `json:"class"`
	Object  string `json:"object"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	Old     string `json:"old,omitempty"`
	New     string `json:"new,omitempty"`
}

func changeJSON(c surface.Change) surfaceChange {
	return surfaceChange{c.Class.String(), c.Object, c.Path, c.Message, redact.MaskSecrets(c.Old), redact.MaskSecrets(c.New)}
}

func movedJSON(m pin.Move) pinMoved {
	pm := pinMoved{Kind: m.Kind, Name: m.Key, How: string(m.How), LooksLike: m.LooksLike, RenamedFrom: m.RenamedFrom}
	for _, c := range m.Changes {
		pm.Changes = append(pm.Changes, changeJSON(c))
	}
	return pm
}

// gather reads the whole surface of the session's server, bounded: 64 MiB
// of items a list, and --timeout for the whole walk; the secrets the run
// knows are masked in it, for whatever mcpv writes of it. With documents,
// it reads the documents of the tools' apps too (for a pin, which holds
// them).
func gather(ctx context.Context, s *session, documents bool) (surface.Server, error) {
	l, ctx, cancel, err := surfaceLister(ctx, s)
	if err != nil {
		return surface.Server{}, err
	}
	defer cancel()
	surf, err := l.GatherServer(ctx)
	if err == nil && documents {
		err = l.GatherDocuments(ctx, &surf)
	}
	if err != nil {
		return surf, err
	}
	maskSurface(&surf, s.masked)
	return surf, nil
}

// surfaceLister is a Lister of the session's server, bounded to 64 MiB of
// items a list, and the context that bounds its walk to --timeout
// (cancel when done).
func surfaceLister(ctx context.Context, s *session) (*surface.Lister, context.Context, context.CancelFunc, error) {
	client, err := s.client(ctx)
	if err != nil {
		return nil, ctx, nil, err
	}
	// Ended as a request's own --timeout ends, with exit 124: whichever
	// of the two ends first, the run ends the same way.
	ctx, cancel := toolcall.Checker{Timeout: s.settings.Timeout}.Bounded(ctx, "reading the server's surface")
	l := surface.NewLister(client)
	l.Budget = maxSurfaceList
	return l, ctx, cancel, nil
}

// maskSurface masks, with masked (a session's, or the run's for a file
// read), the secrets wherever surf holds them: each item, the server's
// identity and its instructions, and what a recording read.
func maskSurface(surf *surface.Server, masked func([]byte) []byte) {
	for _, items := range [][]json.RawMessage{surf.Tools, surf.Prompts, surf.Resources, surf.ResourceTemplates} {
		for i := range items {
			items[i] = masked(items[i])
		}
	}
	for uri, d := range surf.Documents {
		d.UI = masked(d.UI)
		surf.Documents[uri] = d
	}
	for _, m := range []map[string]json.RawMessage{surf.Reads.Prompts, surf.Reads.Resources} {
		for k, v := range m {
			m[k] = masked(v)
		}
	}
	surf.Info = masked(surf.Info)
	if surf.Instructions != nil {
		text := string(masked([]byte(*surf.Instructions)))
		surf.Instructions = &text
	}
}

// maxSurfaceList bounds what pin, diff and audit keep of one list.
const maxSurfaceList = 64 << 20
