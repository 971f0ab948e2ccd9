package commands

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/jq"
	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/output"
)

// outputFlags shape what reaches stdout.
type outputFlags struct {
	Jq         string  `short:"q" name:"jq"`
	JqArg      []jqVar `name:"jq-arg" type:"jqarg"`
	JqArgJSON  []jqVar `name:"jq-argjson" type:"jqargjson"`
	RawOutput  bool    `short:"r" name:"raw-output"`
	ExitStatus bool    `short:"e" name:"exit-status"`
	Pretty     bool    `name:"pretty" xor:"layout"`
	Compact    bool    `short:"c" name:"compact" xor:"layout"`
	Color      string  `name:"color" enum:"auto,always,never" default:"auto"`
	Format     string  `short:"o" name:"output-format" enum:",json,table" default:""`
	IfDeclared bool    `name:"if-declared"`
	Errors     string  `name:"errors" enum:"text,json" default:"text"`
	// Trace and Otel are what the run keeps of itself: its trace
	// (internal/trace) and its spans (internal/otel), given to each
	// session (connect.Hooks.Tracer, Telemetry).
	Trace string `name:"trace"`
	Otel  bool   `name:"otel"`

	filter  *jq.Filter
	environ []string // what $ENV shows in --jq; set before parsing
	// inherited are variables from outside the command line, set before
	// parsing: a batch line's --jq sees the batch's.
	inherited []jqVar
}

// outputFlagDocs document outputFlags, out of the tags as connect.FlagDoc
// says why.
var outputFlagDocs = []connect.FlagDoc{
	{Name: "jq", PlaceHolder: "EXPR", Help: "Filter the result with a jq expression."},
	{Name: "jq-arg", PlaceHolder: "NAME VALUE", Help: "Set $NAME in --jq to the string VALUE, as jq's --arg does (repeatable)."},
	{Name: "jq-argjson", PlaceHolder: "NAME JSON", Help: "Set $NAME in --jq to a JSON value, as jq's --argjson does (repeatable)."},
	{Name: "raw-output", PlaceHolder: "", Help: "Write strings from --jq without quotes."},
	{Name: "exit-status", PlaceHolder: "", Help: "Exit 1 when the last --jq output is false or null, or there is none."},
	{Name: "pretty", PlaceHolder: "", Help: "Indent the JSON (the default on a terminal)."},
	{Name: "compact", PlaceHolder: "", Help: "One JSON value per line (the default in pipes)."},
	{Name: "color", PlaceHolder: "", Help: "Colour the JSON: auto, always or never (auto honours NO_COLOR, CLICOLOR=0, CLICOLOR_FORCE, FORCE_COLOR and TERM=dumb)."},
	{Name: "if-declared", PlaceHolder: "", Help: "A list command of a capability the server does not declare prints the empty list and exits 0 (said on stderr), not exit 3; also MCPV_IF_DECLARED=true, or if_declared: true in the server's config entry."},
	{Name: "errors", PlaceHolder: "FORM", Help: "How a failure is told on stderr: text (one line) or json (one object: exit, kind, message, the server's JSON-RPC error, hint; docs/mcpv-error.schema.json). MCPV_ERRORS=json sets it for every run."},
	{Name: "output-format", PlaceHolder: "FORMAT", Help: "json (the default: the result as the server sent it) or table (info and the list commands: a row per item, cut to the terminal's width, for people; --jq filters JSON only). MCPV_OUTPUT=table makes table the default on a terminal, never in a pipe."},
	{Name: "otel", PlaceHolder: "", Help: "Export spans over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318): the command's, and one per request, its context passed to the server in _meta (also without this flag when an OTLP endpoint variable is set; OTEL_SDK_DISABLED=true: never)."},
	{Name: "trace", PlaceHolder: "FILE", Help: "Write every message, the transport's events and the exit code into FILE, one JSON line each, secrets masked; mcpv mock replays it (default: MCPV_TRACE)."},
}

// jqVar is a --jq-arg or --jq-argjson: at orders them as given (the last
// of a name wins, as in jq).
type jqVar struct {
	jq.Variable
	at int
}

// SetDefaults gives each flag the default of its tag (see
// connect.TargetFlags.SetDefaults).
func (f *outputFlags) SetDefaults() { f.Color, f.Format, f.Errors = "auto", "", "text" }

// variables are the --jq variables: the inherited ones first, then those
// of the command line in the order given.
func (f *outputFlags) variables() []jqVar {
	given := append(slices.Clone(f.JqArg), f.JqArgJSON...)
	slices.SortStableFunc(given, func(a, b jqVar) int { return a.at - b.at })
	return append(slices.Clone(f.inherited), given...)
}

func (f *outputFlags) Validate() error {
	if f.Format == "table" && (f.Jq != "" || f.Pretty || f.Compact) {
		return fmt.Errorf("--output-format table shows a table for people, and --jq, --pretty and --compact shape JSON: give one or the other")
	}
	if f.Jq == "" {
		if f.RawOutput || f.ExitStatus {
			return fmt.Errorf("--raw-output and --exit-status need --jq")
		}
		return nil
	}
	var vars []jq.Variable
	for _, v := range f.variables() {
		vars = append(vars, v.Variable)
	}
	var err error
	f.filter, err = jq.Compile(f.Jq, f.environ, vars...)
	return err
}

func (f *outputFlags) printer(ios *output.Streams, getenv func(string) string) *output.Printer {
	return &output.Printer{
		Out: ios.Out,
		Format: output.Format{
			Pretty:   f.Pretty || (ios.OutTTY && !f.Compact),
			Color:    output.UseColor(f.Color, ios.OutTTY && !ios.NoANSI, getenv),
			Raw:      f.RawOutput,
			Terminal: ios.OutTTY,
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
	case f.Format == "table":
		return usageErrorf("--output-format table is for people at a terminal; batch output is a JSON line per operation")
	}
	return nil
}

// notWithText refuses the --jq flags beside --text (text), which prints
// text, not JSON for a filter.
func (f *outputFlags) notWithText(text bool) error {
	if text && f.Jq != "" {
		return usageErrorf("--text prints text and --jq filters JSON: give one of them (-r -q prints a string raw)")
	}
	return nil
}

// jqVarMapper decodes --jq-arg (and with json --jq-argjson), which takes
// two words, NAME and VALUE, as jq's --arg and --argjson do
// (--jq-arg=NAME VALUE too).
type jqVarMapper struct{ json bool }

var jqVarName = &lazy.Regexp{Pattern: `^[A-Za-z_][A-Za-z0-9_]*$`}

func (m jqVarMapper) Decode(ctx *kong.DecodeContext, target reflect.Value) error {
	what := map[bool]string{true: "JSON", false: "VALUE"}[m.json]
	at := -ctx.Scan.Len() // fewer words left: given later
	name := ctx.Scan.Pop()
	if name.IsEOL() {
		return fmt.Errorf("give NAME and %s", what)
	}
	if n := name.String(); !jqVarName.Get().MatchString(n) {
		if strings.Contains(n, "=") {
			return fmt.Errorf("%q: give NAME and %s as two words (as jq's --arg takes them), not NAME=%s", n, what, what)
		}
		return fmt.Errorf("%q is not a jq variable name (letters, digits and _, not first a digit)", n)
	}
	value := ctx.Scan.Pop()
	if value.IsEOL() {
		return fmt.Errorf("$%s: give its %s after the name", name, what)
	}
	v := jq.Variable{Name: name.String(), Value: value.String()}
	if m.json {
		decoded, err := jq.DecodeJSON([]byte(value.String()))
		if err != nil {
			return fmt.Errorf("$%s: invalid JSON: %v", name, err)
		}
		v.Value = decoded
	}
	target.Set(reflect.Append(target, reflect.ValueOf(jqVar{Variable: v, at: at})))
	return nil
}
