package testrun

// The steps that look at the server itself: snapshot (its tools, prompts
// and resource templates, compared with a file, and breaking changes
// failing) and lint (the specification's rules), both from
// internal/surface.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/cost"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
	"github.com/mcpv/mcpv/mcp"
)

// surfaceLists keeps a file's server lists from one surface step to the
// next (--snapshot and --lint list the server once between them), until
// a command step runs, which may change them. mask is the run's masker,
// which a snapshot goes through.
type surfaceLists struct {
	l    *surface.Lister
	mask func([]byte) []byte
}

func (sl *surfaceLists) of(c *mcp.Client) *surface.Lister {
	if sl.l == nil {
		sl.l = surface.NewLister(c)
	}
	return sl.l
}

// snapshot gathers the server's surface and compares it with file, in
// tree: a breaking change fails the step, any other change is a note. A
// missing file, or update, writes the file; in CI mode a missing file
// fails the step, naming record, the command that records it, unless
// update. Both sides go through mask, the run's masker: a server that
// echoes the user's key puts no key in a file that is committed, and
// compares equal with a file written before the key was masked.
func (r *Runner) snapshot(ctx context.Context, lists *surface.Lister, mask func([]byte) []byte, tree safefile.Tree, file, record string) (fs []testreport.Failure, notes []string, code int) {
	shown := r.rel(file)
	update := r.Update
	now, err := lists.Gather(ctx)
	if err != nil {
		return []testreport.Failure{{Kind: "snapshot", Message: fmt.Sprintf("could not list the server's surface: %v", err)}}, nil, r.Code(err)
	}
	now = maskSnapshot(now, mask)
	if len(now.Unimplemented) > 0 {
		notes = append(notes, fmt.Sprintf("the server answers %s with method not found: taken as empty", strings.Join(now.Unimplemented, ", ")))
	}
	data, err := tree.Read(file)
	var changes []surface.Change
	write := false // the file is written anew
	switch {
	case errors.Is(err, os.ErrNotExist) && r.CI && !update:
		return []testreport.Failure{{Kind: "snapshot", Message: fmt.Sprintf("%s does not exist, and a missing snapshot is not written in CI (--ci): record it with '%s' and commit it",
			shown, record)}}, notes, exitcode.OK
	case errors.Is(err, os.ErrNotExist):
		notes = append(notes, "written to "+shown)
		write = true
	case err != nil:
		return []testreport.Failure{{Kind: "snapshot", Message: err.Error()}}, nil, exitcode.Usage
	default:
		old, perr := surface.ParseSnapshot(data)
		switch {
		case perr != nil && !update:
			return []testreport.Failure{{Kind: "snapshot", Message: fmt.Sprintf("%s is not a snapshot mcpv can read: %v (--update writes it anew)", shown, perr)}}, nil, exitcode.Usage
		case perr != nil:
			notes = append(notes, fmt.Sprintf("written anew to %s, which was not a snapshot mcpv can read (%v)", shown, perr))
			write = true
		default:
			changes = surface.Diff(maskSnapshot(old, mask), now)
			write = update && len(changes) > 0
			if write {
				notes = append(notes, "updated "+shown)
			}
		}
	}
	var breaking []string
	for _, ch := range changes {
		switch {
		case ch.Breaking && !update:
			breaking = append(breaking, ch.String())
		case ch.Breaking:
			notes = append(notes, "accepted: "+ch.String())
		default:
			notes = append(notes, ch.String())
		}
	}
	if len(breaking) > 0 {
		what := map[bool]string{true: "change", false: "changes"}[len(breaking) == 1]
		return []testreport.Failure{{Kind: "snapshot", Message: fmt.Sprintf("%d breaking %s since %s (mcpv test --update accepts them)", len(breaking), what, shown),
			Details: breaking}}, notes, exitcode.OK
	}
	if write {
		if err := tree.WriteFile(file, now.Marshal()); err != nil {
			return []testreport.Failure{{Kind: "snapshot", Message: err.Error()}}, notes, exitcode.Usage
		}
	}
	return nil, notes, exitcode.OK
}

// maskSnapshot is s with each item through mask (nil: none), in lists of
// its own: the lister keeps the items it gave for the steps after.
func maskSnapshot(s surface.Snapshot, mask func([]byte) []byte) surface.Snapshot {
	if mask == nil {
		return s
	}
	for _, list := range []*[]json.RawMessage{&s.Tools, &s.Prompts, &s.ResourceTemplates} {
		if *list != nil {
			masked := make([]json.RawMessage, len(*list))
			for i, raw := range *list {
				masked[i] = mask(raw)
			}
			*list = masked
		}
	}
	return s
}

// lint checks the server against the specification's rules: an error
// fails the step, a warning is a note; rules in ignore are not reported.
func (r *Runner) lint(ctx context.Context, lists *surface.Lister, ignore []string) (fs []testreport.Failure, notes []string, code int) {
	findings, err := lists.Lint(ctx)
	if err != nil {
		return []testreport.Failure{{Kind: "lint", Message: fmt.Sprintf("could not check the server: %v", err)}}, nil, r.Code(err)
	}
	fs, notes = findingsOf(findings, ignore)
	return fs, notes, exitcode.OK
}

// cost counts what the server's surface costs a model and holds it to the
// step's budget: each budget passed fails the step; the count is a note.
func (r *Runner) cost(ctx context.Context, lists *surface.Lister, b *testfile.CostBudget) (fs []testreport.Failure, notes []string, code int) {
	s, err := lists.GatherServer(ctx)
	if err != nil {
		return []testreport.Failure{{Kind: "cost", Message: fmt.Sprintf("could not read the server's surface: %v", err)}}, nil, r.Code(err)
	}
	enc, err := cost.Get(b.Tokenizer)
	if err != nil {
		return []testreport.Failure{{Kind: "cost", Message: err.Error()}}, nil, exitcode.Usage
	}
	items, err := (&cost.Counter{Encoding: enc, As: b.As}).Server("", s)
	if err != nil {
		return []testreport.Failure{{Kind: "cost", Message: err.Error()}}, nil, exitcode.Transport
	}
	rep := cost.NewReport(enc.Name, b.As, items, false)
	for _, o := range cost.OverBudget(rep, b.Max, b.Tools) {
		f := testreport.Failure{Kind: "cost", Message: o.String(), Expected: fmt.Sprintf("at most %d tokens", o.Limit), Actual: fmt.Sprintf("%d tokens", o.Tokens)}
		if o.Tokens < 0 {
			f.Actual = "no such tool"
		}
		fs = append(fs, f)
	}
	return fs, []string{rep.Summary()}, exitcode.OK
}

func findingsOf(findings []surface.Finding, ignore []string) (fs []testreport.Failure, notes []string) {
	for _, f := range findings {
		switch {
		case slices.Contains(ignore, f.Rule):
		case f.Severity == surface.SeverityWarning:
			notes = append(notes, f.String())
		default: // an error, as the failure says already
			fs = append(fs, testreport.Failure{Kind: "lint", Message: strings.TrimPrefix(f.String(), f.Severity+": ")})
		}
	}
	return fs, notes
}

func (r *Runner) rel(path string) string {
	if rel, err := filepath.Rel(r.Cwd, path); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return path
}

// ruleStrayOutput: a stdio server wrote lines on its stdout that are not
// JSON-RPC messages, which a stdio server must not do (server/transports,
// "stdio"). A warning: mcpv skips them.
const ruleStrayOutput = "stray-output"

// strayOutput counts the session's warnings about a server's stray output
// (mcp/stdio.go and mcp/session.go word them) and keeps its other
// warnings (instructions that moved since they were pinned, say), the
// first maxWarnings of them, for the report; it passes every record on.
type strayOutput struct {
	slog.Handler
	mu       *sync.Mutex // guards n, first and warnings: the session's goroutines log at once
	n        *int
	first    *string
	warnings *[]string
}

// maxWarnings bounds the warnings a file's report keeps.
const maxWarnings = 20

// strayPrefixes begin the session's warnings about stray output.
var strayPrefixes = []string{"skipped a line on the server's stdout that is not JSON", "more non-JSON lines on the server's stdout",
	"skipping a message that is not JSON-RPC"}

func (s *strayOutput) Handle(ctx context.Context, r slog.Record) error {
	s.mu.Lock()
	switch {
	case slices.ContainsFunc(strayPrefixes, func(p string) bool { return strings.HasPrefix(r.Message, p) }):
		if *s.n++; *s.n == 1 {
			*s.first = r.Message
		}
	case r.Level >= slog.LevelWarn && len(*s.warnings) < maxWarnings:
		*s.warnings = append(*s.warnings, r.Message)
	}
	s.mu.Unlock()
	return s.Handler.Handle(ctx, r)
}

// said are the session's warnings kept for the report.
func (s *strayOutput) said() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(*s.warnings)
}

func (s *strayOutput) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *s
	c.Handler = s.Handler.WithAttrs(attrs)
	return &c
}

func (s *strayOutput) WithGroup(name string) slog.Handler {
	c := *s
	c.Handler = s.Handler.WithGroup(name)
	return &c
}

// finding is the lint finding for the stray output seen, if any.
func (s *strayOutput) finding() (surface.Finding, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if *s.n == 0 {
		return surface.Finding{}, false
	}
	count := fmt.Sprintf("%d times", *s.n)
	if *s.n > maxStrayWarnings {
		count = fmt.Sprintf("more than %d times", maxStrayWarnings)
	}
	return surface.Finding{Object: "the server's stdout", Rule: ruleStrayOutput, Severity: surface.SeverityWarning,
		Message: fmt.Sprintf("output that is not JSON-RPC, %s (first: %s)", count, *s.first)}, true
}

// maxStrayWarnings is how many stray lines the session warns about before
// it stops counting them aloud.
const maxStrayWarnings = 10

// noteStrayOutput adds the stray output seen in a file's session to its
// last lint step that ran, as that step's finding.
func noteStrayOutput(rep *testreport.File, file *testfile.File, stray *strayOutput) {
	f, ok := stray.finding()
	if !ok {
		return
	}
	for i := len(rep.Steps) - 1; i >= 0; i-- {
		sr := &rep.Steps[i]
		st := file.Steps[sr.Index-1]
		if st.Kind != testfile.StepLint || sr.Status == testreport.Skipped {
			continue
		}
		_, notes := findingsOf([]surface.Finding{f}, st.Ignore)
		sr.Notes = append(sr.Notes, notes...)
		return
	}
}

// recordCommand is the command line that records the snapshot of step st
// of the test file path: with --snapshot when that flag made the step.
func recordCommand(st *testfile.Step, path string) string {
	cmd := "mcpv test --no-ci "
	if st.ByFlag {
		cmd += "--snapshot "
	}
	return cmd + shellwords.Quote(path)
}
