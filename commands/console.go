package commands

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/content"
	"github.com/mcpv/mcpv/internal/otel"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/output"
)

// console is what a command shows the user: its streams and how results are
// printed on stdout (the output flags). A batch line gets a console of its
// own, over a buffer, through the same newConsole.
type console struct {
	ios     *output.Streams
	flags   *outputFlags
	printer *output.Printer
	env     connect.Env
	// embedded prints text exactly as it is, for a batch line's result
	// string: no newline is added to end the output.
	embedded bool
	// files, when set, confines the files the command reads (@FILE) to a
	// test file's tree: a step's path may come from what a server sent.
	files *safefile.Tree
	// telemetry is the run's span export, when asked: serve and mock make
	// a span of each request their clients send.
	telemetry *otel.Run
	// jsonErrors: failures are told as one JSON object (--errors json).
	jsonErrors bool
	// secrets is the run's masker: the reports a command writes (test's,
	// check's, audit's) mask what it knows.
	secrets *redact.Scrubber
}

// readFile reads a file the command line names (@FILE).
func (c *console) readFile(path string) ([]byte, error) {
	if c.files != nil {
		return c.files.Read(path)
	}
	return os.ReadFile(c.env.Path(path))
}

// onceFiles reads each file through read once and gives it again after,
// from any goroutine: an @FILE that is a FIFO, or changes, is what the
// first read took, however many calls name it.
func onceFiles(read func(string) ([]byte, error)) func(string) ([]byte, error) {
	var mu sync.Mutex // guards files
	files := map[string][]byte{}
	return func(path string) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if data, ok := files[path]; ok {
			return data, nil
		}
		data, err := read(path)
		files[path] = data
		return data, err
	}
}

// createFlagFile creates the file a flag (--NAME) names for what the
// command writes, before any server starts: a path that cannot be
// written is a mistake found at once (safefile, never through a link).
// An empty path is no file (nil); the caller closes the file. What a
// server sent (--events) is for its owner alone (perm 0600), as a trace is.
func createFlagFile(env connect.Env, name, path string, perm os.FileMode) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := safefile.CreateNoFollow(env.Path(path), perm)
	if err != nil {
		return nil, usageErrorf("--%s: %v", name, err)
	}
	return f, nil
}

func newConsole(ios *output.Streams, f *outputFlags, env connect.Env) *console {
	return &console{ios: ios, flags: f, printer: f.printer(ios, env.Getenv), env: env, secrets: redact.NewScrubber(nil)}
}

// print writes a result to stdout through the --jq filter and format flags.
func (c *console) print(raw json.RawMessage) error {
	c.ios.Status.Clear()
	return c.printer.Print(raw)
}

// printOf prints the result of a request, or returns its error.
func (c *console) printOf(raw json.RawMessage, err error) error {
	if err != nil {
		return err
	}
	return c.print(raw)
}

// printResult writes a result, after --save-dir has put its binary blocks in
// files, as JSON or (--text) as the text of its blocks.
func (c *console) printResult(res json.RawMessage, text bool, saveDir string) error {
	if saveDir != "" {
		saved, _, err := content.Save(res, saveDir, c.env.Cwd)
		if err != nil {
			return fmt.Errorf("--save-dir: %w", err)
		}
		res = saved
	}
	if !text {
		return c.print(res)
	}
	s, err := content.Text(res)
	if err != nil {
		return fmt.Errorf("--text: %w", err)
	}
	c.ios.Status.Clear()
	if c.ios.OutTTY {
		s = output.TerminalText(s)
	}
	if s != "" && s[len(s)-1] != '\n' && !c.embedded {
		s += "\n"
	}
	return c.write(s)
}

// write writes text on stdout as it is; a failed write is stdout's own
// (output.ClosedError): a closed pipe ends the command quietly.
func (c *console) write(s string) error {
	if _, err := io.WriteString(c.ios.Out, s); err != nil {
		return &output.ClosedError{Err: err}
	}
	return nil
}

// tell writes each failure's line on stderr, or, where failures are told
// as one JSON object, which no line may come before, returns them for the
// object to give instead.
func (c *console) tell(lines ...string) []string {
	if c.jsonErrors {
		return lines
	}
	for _, line := range lines {
		fmt.Fprintf(c.ios.Err, "mcpv: %s\n", line)
	}
	return nil
}

// unsaid are the lines of failures (each given to tell) that the
// one JSON object is to give, where failures are told so; none where
// their lines were written.
func (c *console) unsaid(failures []error) []string {
	if !c.jsonErrors {
		return nil
	}
	lines := make([]string, len(failures))
	for i, f := range failures {
		lines[i] = f.Error()
	}
	return lines
}

// warnf writes a warning on stderr.
func (c *console) warnf(format string, args ...any) {
	fmt.Fprintf(c.ios.Err, "mcpv: warning: "+format+"\n", args...)
}

// notef writes a notice on stderr.
func (c *console) notef(format string, args ...any) {
	fmt.Fprintf(c.ios.Err, "mcpv: "+format+"\n", args...)
}
