package commands

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpv/mcpv/internal/cost"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/pin"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/surface"
)

type costCmd struct {
	Files     []string `arg:"" optional:"" placeholder:"FILE" help:"Saved surfaces to count, without starting anything: pin files, mcpv test snapshots, recordings."`
	All       bool     `name:"all" help:"Every server of the config files, each server's total and the sum."`
	Tokenizer string   `name:"tokenizer" enum:"o200k,o200k_base,cl100k,cl100k_base" default:"o200k" help:"o200k (GPT-4o, GPT-4.1, GPT-5, o-series) or cl100k (GPT-4, GPT-3.5)."`
	As        string   `name:"as" enum:"openai,anthropic,mcp" default:"openai" help:"A tool as a host sends it: openai ({type: function, function: {name, description, parameters}}), anthropic ({name, description, input_schema}) or mcp (as listed, annotations and _meta too)."`
	Gateway   bool     `name:"gateway" help:"The server is mcpv serve's gateway: give each item to the server its name's prefix names, with each server's total."`
	Separator string   `name:"separator" default:"__" placeholder:"SEP" help:"With --gateway: what stands between a prefix and a name."`
	Summary   bool     `name:"summary" help:"Print one line instead of the report."`
}

func (c *costCmd) serverChoosing() {}
func (c *costCmd) tableView()      {}

func (c *costCmd) Help() string {
	return `Counts the tokens each tool, prompt and resource template and the instructions of a server cost a model, on the text a host sends (a tool as a function-calling definition, --as), with a tokenizer counted offline (--tokenizer), and the total. It counts the server the command line names, every server of the config files (--all, each server's total and the sum), saved surfaces (FILE), or mcpv serve's gateway server by server (--gateway).

The report is JSON: the tokenizer, as, total, servers (each one's total) and items, each with its server, kind, name, tokens and description (the tokens of its description alone); -o table shows the costliest first, --summary one line. Counts are exact for OpenAI's tokenizers, an estimate for others ('mcpv help cost-limits').

Examples:

    $ mcpv cost -- ./server
    $ mcpv cost --all -o table
    $ mcpv cost --tokenizer cl100k --as anthropic -s github --summary
    $ mcpv cost -r -q '.items[] | select(.tokens > 500) | .name' -- ./server`
}

// costLimitsTopic is 'mcpv help cost-limits'.
const costLimitsTopic = `mcpv cost counts tokens with OpenAI's published byte-pair encodings (o200k_base, cl100k_base), embedded in mcpv and read only when cost runs; its counts are tiktoken's exactly. What it counts is the JSON text of each item as a host sends it (--as); a provider then wraps the definitions in text of its own, so its usage reports more than the sum: OpenAI adds about a dozen tokens per request with tools and a few per function, Anthropic a tool-use system prompt of some hundreds of tokens per request.

Anthropic's and Google's tokenizers are not public: a count for their models is an estimate, o200k's count of the same text, and no published count of a fixed text lets mcpv say by how much it is off. Only the provider's own token-counting endpoint counts their models exactly.

A piece of text longer than 64 KiB with no break in it (a run of letters or of punctuation, as no honest description has) is counted 64 KiB at a time, at a cost of at most one token more per cut; such a run costs about a second per megabyte to count, unless it repeats itself.`

func (c *costCmd) Validate() error {
	if c.Separator == "" {
		return usageErrorf("--separator: give the text between a prefix and a name")
	}
	return nil
}

func (c *costCmd) Run(ctx context.Context, out *console, t *targets) error {
	if err := surfaceArgs(t, c.Files, c.All, "count"); err != nil {
		return err
	}
	enc, err := cost.Get(c.Tokenizer)
	if err != nil {
		return usageErrorf("--tokenizer: %v", err)
	}
	counter := &cost.Counter{Encoding: enc, As: c.As}
	var items []cost.Item
	count := func(name string, s surface.Server) error {
		got, err := counter.Server(name, s)
		items = append(items, got...)
		return err
	}
	failures, err := eachSurface(ctx, out, t, c.Files, c.All, "counted", "cost", func(_ string, _ *pin.SurfaceFile, s surface.Server) error {
		return count(s.Name, s)
	}, func(name string) (string, error) {
		s, err := c.live(ctx, t, name)
		if err != nil {
			return s.Name, err
		}
		return s.Name, count(s.Name, s)
	})
	if err != nil {
		return err
	}
	if c.Gateway {
		cost.ByPrefix(items, c.Separator)
	}
	r := cost.NewReport(enc.Name, c.As, items, c.All || c.Gateway || len(c.Files) > 0)
	if err := c.print(out, r); err != nil || len(failures) == 0 {
		return err
	}
	return batchFailed{exitCode(failures[0]), out.unsaid(failures)}
}

// surfaceArgs refuses a command line of a command that reads surfaces
// (audit, cost: verb, what it does to them) that names nothing to read,
// or --all beside a server.
func surfaceArgs(t *targets, files []string, all bool, verb string) error {
	if len(files) == 0 && !all && !t.given() {
		return usageErrorf("give what to %s: FILE, --all, or a server: -- COMMAND, --url URL or --server NAME", verb)
	}
	if all && t.given() {
		return usageErrorf("--all %ss every server of the config files; give no server as well", verb)
	}
	return nil
}

// eachSurface gives file each server of the saved surfaces files, then
// live, in turn, the name of each server to open: the config files' (all,
// for --all), or the one the command line names (""). A server live fails
// on (known: the name live knows it by) is said on stderr, as one that
// could not be done (with command's help), and kept among failures, in
// order; when it was the one thing to read, its exit code ends the command.
func eachSurface(ctx context.Context, out *console, t *targets, files []string, all bool, done, command string,
	file func(path string, sf *pin.SurfaceFile, s surface.Server) error, live func(name string) (known string, err error)) (failures []error, err error) {
	for _, path := range files {
		sf, err := readSide(path, out)
		if err != nil {
			return nil, err
		}
		for _, s := range sf.Servers {
			if err := file(path, sf, s); err != nil {
				return nil, err
			}
		}
	}
	var names []string
	switch {
	case all:
		if names, err = configServers(out, t); err != nil {
			return nil, err
		}
	case t.given():
		names = []string{""}
	}
	for _, name := range names {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx) // interrupted: no more servers started
		}
		known, err := live(name)
		if err == nil {
			continue
		}
		who := "the server" // the command line's, which failed before it said its name
		if n := cmp.Or(name, known); n != "" {
			who = fmt.Sprintf("server %q", safetext.Line(n))
		}
		told := toldError{fmt.Sprintf("%s could not be %s: %s", who, done, exitcode.Message(err, exitCode(err), "mcpv "+command+" --help")), err}
		failures = append(failures, told)
		reasons := out.tell(told.line)
		if len(names) == 1 && len(files) == 0 {
			return nil, batchFailed{exitCode(err), reasons}
		}
	}
	return failures, nil
}

// toldError is a failure and the line that tells it.
type toldError struct {
	line string
	err  error
}

func (e toldError) Error() string { return e.line }
func (e toldError) Unwrap() error { return e.err }

// live reads the surface of the server the command line names (name "")
// or of the config files' server called name.
func (c *costCmd) live(ctx context.Context, t *targets, name string) (surface.Server, error) {
	s, err := t.open(name)
	if err != nil {
		return surface.Server{Name: name}, err
	}
	defer s.close()
	surf, err := gather(ctx, s, false)
	surf.Name = cmp.Or(name, surf.Name, s.settings.Name)
	if !c.All && !c.Gateway && len(c.Files) == 0 {
		surf.Name = ""
	}
	return surf, err
}

func (c *costCmd) print(out *console, r cost.Report) error {
	switch {
	case c.Summary:
		out.ios.Status.Clear()
		return out.write(r.Summary() + "\n")
	case out.asTable():
		return out.printTable(r.Table())
	}
	return out.printOf(json.Marshal(r))
}
