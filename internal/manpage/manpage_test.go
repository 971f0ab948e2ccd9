package manpage

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

type toyCLI struct {
	Verbose bool   `short:"v" help:"Say more."`
	Level   string `enum:"low,high" default:"low" help:"How hard to try." group:"Tuning"`
	Secret  string `hidden:"" help:"Not shown."`

	Fetch  fetchCmd `cmd:"" help:"Fetch a thing."`
	Remote struct {
		Add struct {
			Name string `arg:"" help:"The remote's name."`
		} `cmd:"" help:"Add a remote."`
	} `cmd:"" help:"Manage remotes."`
	Internal struct{} `cmd:"" hidden:"" help:"Not shown either."`
}

type fetchCmd struct {
	URL   string        `arg:"" help:"Where from."`
	Files []string      `arg:"" optional:"" placeholder:"FILE" help:"What to keep."`
	Depth int           `default:"1" help:"How deep to go."`
	Wait  time.Duration `placeholder:"DURATION" help:".5s or more; 'quoted' first words are fine."`
	Path  string        `help:"A Windows path: C:\\toy."`
}

func (fetchCmd) Help() string {
	return "Fetches URL.\n\nExamples:\n\n    $ toy fetch --depth 2 https://example.com"
}

func (toyCLI) Help() string {
	return `toy does toy things, one per run.

    toy [flags] <command> [args]
    toy help <command>          (the same as --help)

Exit codes:

    0    success
    3    the remote said no,
         politely

Environment:

    TOY_HOME  where toy lives

Examples:

    $ toy fetch https://example.com`
}

// toyPlus is toy with one more command.
type toyPlus struct {
	toyCLI `embed:""`
	Sync   struct{} `cmd:"" help:"Sync everything."`
}

func model(t *testing.T, grammar any) *kong.Application {
	t.Helper()
	k, err := kong.New(grammar, kong.Name("toy"), kong.Description("Does toy things."), kong.Exit(func(int) {}))
	if err != nil {
		t.Fatal(err)
	}
	return k.Model
}

var toyPage = Page{Section: "1", Date: "2026-01-02", Source: "toy v0.1", Manual: "User Commands",
	Files: []Entry{{"~/.toy", "toy's state."}}, SeeAlso: []string{"jq(1)", "https://example.com/toy"}}

func TestRenderToy(t *testing.T) {
	page := Render(model(t, &toyCLI{}), toyPage)
	for _, want := range []string{
		`.TH "TOY" "1" "2026\-01\-02" "toy v0.1" "User Commands"`,
		".SH NAME\ntoy \\- does toy things\n",
		".SH SYNOPSIS\n.nf\n\\fBtoy\\fR [\\fIflags\\fR] \\fIcommand\\fR [\\fIargs\\fR]\n\\fBtoy\\fR \\fBhelp\\fR \\fIcommand\\fR (the same as \\-\\-help)\n.fi\n",
		".SH DESCRIPTION\n.PP\ntoy does toy things, one per run.\n",
		".SS \"toy fetch\"\n\\fBtoy fetch\\fR \\fIurl\\fR [\\fIFILE\\fR ...] [\\fIflags\\fR]\n.PP\nFetch a thing.\n.PP\nFetches URL.\n",
		".RS 4\n.nf\n$ toy fetch \\-\\-depth 2 https://example.com\n.fi\n.RE\n",
		".TP\n\\fIurl\\fR\nWhere from.\n",
		".TP\n[\\fIFILE\\fR ...]\nWhat to keep.\n",
		".TP\n\\fB\\-\\-depth\\fR=\\fIN\\fR\nHow deep to go. Default: 1.\n",
		".TP\n\\fB\\-\\-wait\\fR=\\fIDURATION\\fR\n\\&.5s or more; 'quoted' first words are fine.\n",
		"A Windows path: C:\\etoy.\n",
		".SS \"toy remote\"\n\\fBtoy remote\\fR \\fIcommand\\fR [\\fIflags\\fR]\n",
		".SS \"toy remote add\"\n\\fBtoy remote add\\fR \\fIname\\fR [\\fIflags\\fR]\n",
		".SH \"GLOBAL FLAGS\"\nThese flags may be given before or after the command.\n",
		".TP\n\\fB\\-v\\fR, \\fB\\-\\-verbose\\fR\nSay more.\n",
		".SS \"Tuning\"\n.TP\n\\fB\\-\\-level\\fR=\\fIlow|high\\fR\nHow hard to try. Default: low.\n",
		".SH \"EXIT STATUS\"\n.TP\n\\fB0\\fR\nsuccess\n.TP\n\\fB3\\fR\nthe remote said no, politely\n",
		".SH ENVIRONMENT\n.TP\n\\fBTOY_HOME\\fR\nwhere toy lives\n",
		".SH FILES\n.TP\n\\fI~/.toy\\fR\ntoy's state.\n",
		".SH EXAMPLES\n.PP\n.RS 4\n.nf\n$ toy fetch https://example.com\n.fi\n.RE\n",
		".SH \"SEE ALSO\"\n\\fBjq\\fR(1),\nhttps://example.com/toy\n",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks\n%s\n--- page:\n%s", want, page)
		}
	}
	for _, unwanted := range []string{"secret", "toy internal", "Not shown", "Exit codes:", "Environment:", "toy [flags] <command>"} {
		if strings.Contains(page, unwanted) {
			t.Errorf("the page has %q", unwanted)
		}
	}
	var order []string
	for _, m := range regexp.MustCompile(`(?m)^\.SH (.*)$`).FindAllStringSubmatch(page, -1) {
		order = append(order, strings.Trim(m[1], `"`))
	}
	if got, want := strings.Join(order, ", "), "NAME, SYNOPSIS, DESCRIPTION, COMMANDS, GLOBAL FLAGS, EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES, SEE ALSO"; got != want {
		t.Errorf("sections %s, want %s", got, want)
	}
	// The page's own list of variables wins over the help's.
	p := toyPage
	p.Environment = []Entry{{"TOY_DEBUG", "set: debug"}}
	if page := Render(model(t, &toyCLI{}), p); !strings.Contains(page, "\\fBTOY_DEBUG\\fR\nset: debug\n") || strings.Contains(page, "TOY_HOME") {
		t.Errorf("ENVIRONMENT from the page:\n%s", page)
	}
}

// A command added to the grammar is on the page, with nothing else to do.
func TestNewCommandIsDocumented(t *testing.T) {
	before := Render(model(t, &toyCLI{}), toyPage)
	after := Render(model(t, &toyPlus{}), toyPage)
	heading := ".SS \"toy sync\"\n\\fBtoy sync\\fR [\\fIflags\\fR]\n.PP\nSync everything.\n"
	if strings.Contains(before, "toy sync") || !strings.Contains(after, heading) {
		t.Errorf("toy sync: before %v, after %v; want only after", strings.Contains(before, "toy sync"), strings.Contains(after, heading))
	}
}
