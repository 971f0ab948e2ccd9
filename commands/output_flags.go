package commands

import (
	"fmt"

	"github.com/mcpv/mcpv/output"
)

// outputFlags shape what reaches stdout.
type outputFlags struct {
	Jq         string `short:"q" name:"jq" placeholder:"EXPR" help:"Filter the result with a jq expression." group:"Output"`
	RawOutput  bool   `short:"r" name:"raw-output" help:"Write strings from --jq without quotes." group:"Output"`
	ExitStatus bool   `short:"e" name:"exit-status" help:"Exit 1 when the last --jq output is false or null, or there is none." group:"Output"`
	Pretty     bool   `name:"pretty" xor:"layout" help:"Indent the JSON (the default on a terminal)." group:"Output"`
	Compact    bool   `short:"c" name:"compact" xor:"layout" help:"One JSON value per line (the default in pipes)." group:"Output"`
	Color      string `name:"color" enum:"auto,always,never" default:"auto" help:"Colour the JSON: auto, always or never (auto honours NO_COLOR, CLICOLOR=0, CLICOLOR_FORCE, FORCE_COLOR and TERM=dumb)." group:"Output"`

	filter  *output.Filter
	environ []string // what $ENV shows in --jq; set before parsing
}

func (f *outputFlags) Validate() error {
	if f.Jq == "" {
		if f.RawOutput || f.ExitStatus {
			return fmt.Errorf("--raw-output and --exit-status need --jq")
		}
		return nil
	}
	filter, err := output.CompileFilter(f.Jq, f.environ)
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
			Color:  output.UseColor(f.Color, ios.OutTTY && !ios.NoANSI, getenv),
			Raw:    f.RawOutput,
		},
		Filter:     f.filter,
		ExitStatus: f.ExitStatus,
	}
}

// perLineOnly refuses the output flags that have no meaning for a batch as
// a whole: its output is one compact JSON line per operation, uncoloured.
// They belong on the lines.
// (-r and -e come only with --jq: Validate has seen to that.)
func (f *outputFlags) perLineOnly() error {
	switch {
	case f.Jq != "":
		return usageErrorf("--jq applies to each line of a batch, not to the batch: put it on the lines (for example 'call echo message=hi -q ...')")
	case f.Pretty:
		return usageErrorf("--pretty has no effect on batch output, which is one compact JSON line per operation")
	case f.Color != "auto":
		return usageErrorf("--color has no effect on batch output, which is never coloured")
	}
	return nil
}

// notWithText refuses the --jq flags beside --text, which prints text, not
// JSON for a filter.
func (f *outputFlags) notWithText() error {
	if f.Jq != "" {
		return usageErrorf("--text prints text and --jq filters JSON: give one of them (-r -q prints a string raw)")
	}
	return nil
}
