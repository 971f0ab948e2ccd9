package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/output"
)

// batchGroups are the global flag groups a line may not set: the batch's
// session is already open with its own.
var batchGroups = map[string]bool{"Server": true, "Authorization": true, "Server requests": true}

// sessionFlagWords are the session flags (batchGroups) the command line
// gave, as words that give them again: --name=VALUE, a word a value of a
// repeated flag, a path made absolute.
func sessionFlagWords(kctx *kong.Context, env connect.Env) []string {
	var words []string
	seen := map[string]bool{}
	for _, p := range kctx.Path {
		f := p.Flag
		if f == nil || p.Resolved || f.Group == nil || !batchGroups[f.Group.Key] || seen[f.Name] {
			continue
		}
		seen[f.Name] = true
		v := f.Target
		value := func(x any) string {
			s := fmt.Sprint(x)
			if testfile.PathFlags[f.Name] && s != "" {
				s = env.Path(s)
			}
			return "--" + f.Name + "=" + s
		}
		switch {
		case f.IsBool():
			if v.Bool() {
				words = append(words, "--"+f.Name)
			}
		case f.IsSlice():
			for i := range v.Len() {
				words = append(words, value(v.Index(i).Interface()))
			}
		default:
			words = append(words, value(v.Interface()))
		}
	}
	return words
}

// runBatchCommand runs an mcpv command line against the batch's session and
// returns what it printed as one JSON value: the value itself, an array when
// a --jq filter printed several, or a string when it printed text.
func runBatchCommand(ctx context.Context, s *session, out *console, lines *lineParser, text string) (json.RawMessage, error) {
	pl, err := lines.parse(text)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	cmd, lineOut := pl.instance(out, &buf)
	runErr := cmd.Run(ctx, s, lineOut)
	if pl.text {
		b := buf.Bytes()
		if pl.output.RawOutput {
			// -r ends each output with a newline; the last one ends the
			// output rather than belonging to the string.
			b = bytes.TrimSuffix(b, []byte("\n"))
		}
		return textValue(b), runErr
	}
	return printedValue(buf.Bytes()), runErr
}

// lineParser parses batch lines. Parsing with kong costs a few hundred
// microseconds (it visits the whole grammar); a batch that repeats a line
// parses it once.
type lineParser struct {
	environ []string               // what $ENV shows in a line's --jq
	vars    []jqVar                // the batch's --jq variables, which a line's own follow
	parsers sync.Pool              // of *batchParser
	mu      sync.Mutex             // guards lines
	lines   map[string]*parsedLine // at most maxParsedLines
}

const maxParsedLines = 4096

// parsedLine is a line parsed and validated: its command and output flags,
// to be copied for each run.
type parsedLine struct {
	cmd    reflect.Value // the selected command's struct, as parsed
	output outputFlags
	text   bool // the line prints text (-r, call --text, read --text): its result is a string
	err    error
}

// instance is the line's per-run state, built in one place: a fresh copy of
// the command, and a console of its own that prints into buf.
func (pl *parsedLine) instance(out *console, buf *bytes.Buffer) (serverCommand, *console) {
	cmd := reflect.New(pl.cmd.Type())
	cmd.Elem().Set(pl.cmd)
	ios := output.NewStreams(bytes.NewReader(nil), buf, out.ios.Err)
	ios.Status = out.ios.Status
	flags := pl.output
	c := newConsole(ios, &flags, out.env)
	c.embedded = true
	c.files = out.files
	return cmd.Interface().(serverCommand), c
}

func (b *lineParser) parse(text string) (*parsedLine, error) {
	b.mu.Lock()
	pl, ok := b.lines[text]
	b.mu.Unlock()
	if !ok {
		pl = b.parseNew(text)
		b.mu.Lock()
		if len(b.lines) < maxParsedLines {
			b.lines[text] = pl
		}
		b.mu.Unlock()
	}
	return pl, pl.err
}

func (b *lineParser) parseNew(text string) *parsedLine {
	words, err := shellwords.Split(text)
	if err != nil {
		return &parsedLine{err: usageError(err)}
	}
	if slices.Contains(words, "--") {
		return &parsedLine{err: usageErrorf("a batch line cannot name a server; the batch has one")}
	}
	bp, _ := b.parsers.Get().(*batchParser)
	if bp == nil {
		bp = &batchParser{c: &cli{}}
		ios := output.NewStreams(bytes.NewReader(nil), io.Discard, io.Discard)
		if bp.k, err = parser(bp.c, ios, func(int) { panic(exitRequest{}) }, nil); err != nil {
			panic(err) // the grammar is fixed: main's parser was built from it
		}
	}
	defer b.parsers.Put(bp)
	*bp.c = cli{} // nothing of the last line may remain; kong sets the defaults again
	bp.c.environ, bp.c.inherited = b.environ, b.vars
	kctx, err := parseBatchLine(bp.k, words)
	if err != nil {
		return &parsedLine{err: usageError(err)}
	}
	target := kctx.Selected().Target
	cmd := target.Addr().Interface()
	_, server := cmd.(serverCommand)
	_, refused := cmd.(notInBatch)
	if !server || refused {
		return &parsedLine{err: usageErrorf("%s cannot run in a batch", strings.Fields(kctx.Command())[0])}
	}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved && p.Flag.Group != nil && batchGroups[p.Flag.Group.Key] {
			return &parsedLine{err: usageErrorf("--%s applies to the whole batch: give it before 'batch'", p.Flag.Name)}
		}
	}
	if bp.c.Format == "table" {
		return &parsedLine{err: usageErrorf("--output-format table is for people at a terminal; a batch line's output is JSON")}
	}
	pl := &parsedLine{cmd: reflect.New(target.Type()).Elem(), output: bp.c.outputFlags, text: bp.c.RawOutput || bp.c.Call.Text || bp.c.Read.Text}
	pl.cmd.Set(target)
	pl.output.Pretty, pl.output.Compact, pl.output.Color = false, true, "never" // one JSON value per line, to embed
	return pl
}

// batchParser is a parser and the grammar value it fills; one worker uses
// it at a time.
type batchParser struct {
	k *kong.Kong
	c *cli
}

// parseBatchLine parses words, turning kong's exits (help) into an error.
func parseBatchLine(k *kong.Kong, words []string) (kctx *kong.Context, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(exitRequest); !ok {
				panic(r)
			}
			err = fmt.Errorf("--help and --version are not available in a batch")
		}
	}()
	return k.Parse(words)
}
