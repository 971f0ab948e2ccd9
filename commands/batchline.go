package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"

	"github.com/alecthomas/kong"

	"github.com/mcpv/mcpv/output"
)

// notInBatch are the commands a batch line may not run: they need no
// session, hold it open, or would nest.
var notInBatch = map[string]bool{"batch": true, "watch": true, "servers": true, "trust": true, "auth": true, "completions": true}

// batchGroups are the global flag groups a line may not set: the batch's
// session is already open with its own.
var batchGroups = map[string]bool{"Server": true, "Authorization": true, "Server requests": true}

// runBatchCommand runs an mcpv command line against the batch's session and
// returns what it printed as one JSON value: the value itself, an array when
// a --jq filter printed several, or a string when it printed text.
func (a *app) runBatchCommand(ctx context.Context, text []byte) (json.RawMessage, error) {
	pl, err := a.batch.parse(a, string(text))
	if err != nil {
		return nil, err
	}
	c := pl.c // this run's own copy; the parse stays as it was
	c.serverFlags, c.authFlags, c.clientFlags = a.flags.serverFlags, a.flags.authFlags, a.flags.clientFlags
	var out bytes.Buffer
	ios := output.NewStreams(bytes.NewReader(nil), &out, a.ios.Err)
	ios.Status = a.ios.Status
	sub := &app{ios: ios, flags: &c, target: a.target, environ: a.environ, getenv: a.getenv, explicit: pl.explicit,
		client: a.client, events: a.events, roots: a.roots, elicit: a.elicit, tools: a.tools}
	cmd := reflect.ValueOf(&c).Elem().FieldByIndex(pl.path).Addr()
	runErr := callRun(cmd, ctx, sub)
	if pl.text {
		return printedText(out.Bytes()), runErr
	}
	return printedValue(out.Bytes()), runErr
}

// callRun calls a command's Run method with the arguments it asks for.
func callRun(cmd reflect.Value, ctx context.Context, a *app) error {
	run := cmd.MethodByName("Run")
	in := make([]reflect.Value, run.Type().NumIn())
	for i := range in {
		switch t := run.Type().In(i); {
		case t == reflect.TypeOf((*context.Context)(nil)).Elem():
			in[i] = reflect.ValueOf(ctx)
		case t == reflect.TypeOf(a):
			in[i] = reflect.ValueOf(a)
		default:
			return usageErrorf("this command cannot run in a batch")
		}
	}
	if err, _ := run.Call(in)[0].Interface().(error); err != nil {
		return err
	}
	return nil
}

// batchState is what a batch keeps across lines: parsers, and the parse of
// each distinct line. Parsing with kong costs a few hundred microseconds
// (it visits the whole grammar); a batch that repeats a line parses it once.
type batchState struct {
	parsers sync.Pool // of *batchParser
	mu      sync.Mutex
	lines   map[string]*parsedLine // guarded by mu; at most maxParsedLines
}

const maxParsedLines = 4096

// parsedLine is a line parsed and validated: the grammar value, where in it
// the command is, and the flags it gave.
type parsedLine struct {
	c        cli
	path     []int
	explicit map[string]bool
	text     bool // the line prints text (-r, call --text): its result is a string
	err      error
}

func (b *batchState) parse(a *app, text string) (*parsedLine, error) {
	b.mu.Lock()
	pl, ok := b.lines[text]
	b.mu.Unlock()
	if !ok {
		pl = b.parseNew(a, text)
		b.mu.Lock()
		if len(b.lines) < maxParsedLines {
			b.lines[text] = pl
		}
		b.mu.Unlock()
	}
	return pl, pl.err
}

func (b *batchState) parseNew(a *app, text string) *parsedLine {
	words, err := splitWords(text)
	if err != nil {
		return &parsedLine{err: usageError{err}}
	}
	for _, w := range words {
		if w == "--" {
			return &parsedLine{err: usageErrorf("a batch line cannot name a server; the batch has one")}
		}
	}
	bp, _ := b.parsers.Get().(*batchParser)
	if bp == nil {
		bp = newBatchParser()
	}
	defer b.parsers.Put(bp)
	*bp.c = cli{} // nothing of the last line may remain; kong sets the defaults again
	kctx, err := parseBatchLine(bp.k, words)
	if err != nil {
		return &parsedLine{err: usageError{err}}
	}
	if name := strings.Fields(kctx.Command())[0]; notInBatch[name] {
		return &parsedLine{err: usageErrorf("%s cannot run in a batch", name)}
	}
	for _, p := range kctx.Path {
		if p.Flag != nil && !p.Resolved && p.Flag.Group != nil && batchGroups[p.Flag.Group.Key] {
			return &parsedLine{err: usageErrorf("--%s applies to the whole batch: give it before 'batch'", p.Flag.Name)}
		}
	}
	path := fieldPath(reflect.ValueOf(bp.c).Elem(), kctx.Selected().Target)
	if path == nil {
		return &parsedLine{err: usageErrorf("this command cannot run in a batch")}
	}
	pl := &parsedLine{c: *bp.c, path: path, explicit: explicitFlags(kctx), text: bp.c.RawOutput || bp.c.Call.Text}
	pl.c.Pretty, pl.c.Compact, pl.c.Color = false, true, "never" // one JSON value per line, to embed
	return pl
}

// fieldPath is the index path of the struct field target within root.
func fieldPath(root, target reflect.Value) []int {
	if root.Kind() != reflect.Struct {
		return nil
	}
	for i := range root.NumField() {
		f := root.Field(i)
		if f.Kind() != reflect.Struct {
			continue
		}
		if f.Addr().Pointer() == target.Addr().Pointer() && f.Type() == target.Type() {
			return []int{i}
		}
		if sub := fieldPath(f, target); sub != nil {
			return append([]int{i}, sub...)
		}
	}
	return nil
}

// batchParser is a parser and the grammar value it fills; one worker uses
// it at a time.
type batchParser struct {
	k *kong.Kong
	c *cli
}

func newBatchParser() *batchParser {
	bp := &batchParser{c: &cli{}}
	ios := output.NewStreams(bytes.NewReader(nil), io.Discard, io.Discard)
	k, err := parser(bp.c, ios, func(int) { panic(exitRequest{}) })
	if err != nil {
		panic(err) // the grammar is fixed: main's parser was built from it
	}
	bp.k = k
	return bp
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

// printedText is what a command printed as text, as a JSON string; nothing
// printed is null.
func printedText(b []byte) json.RawMessage {
	if len(b) == 0 {
		return nil
	}
	return mustJSON(string(b))
}

// printedValue turns what a command printed into one JSON value.
func printedValue(b []byte) json.RawMessage {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil
	}
	lines := bytes.Split(b, []byte("\n"))
	for _, l := range lines {
		if !json.Valid(l) {
			return mustJSON(string(b) + "\n")
		}
	}
	if len(lines) == 1 {
		return lines[0]
	}
	return append(append([]byte{'['}, bytes.Join(lines, []byte(","))...), ']')
}

// splitWords splits a line the way a POSIX shell would, for quoting only:
// single quotes, double quotes (with \" \\ \$ \` escapes) and backslashes.
// Nothing is expanded.
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated \" in %q", s)
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
