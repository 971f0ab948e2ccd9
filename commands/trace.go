package commands

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/clierr"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/trace"
)

// startTrace begins the run's trace when --trace (or MCPV_TRACE) names a
// file, and returns what ends it with the run's exit code: nil when there
// is none. The trace masks what the run's stderr masks.
func (r *invocation) startTrace(ctx context.Context, args []string, start time.Time) (end func(code int), err error) {
	path := r.c.flags.Trace
	if path == "" {
		path = r.env.Getenv("MCPV_TRACE")
	}
	if path == "" {
		return nil, nil
	}
	if err := r.notRead(path); err != nil {
		return nil, err
	}
	last := &ownLastLine{w: r.ios.Err}
	streams := *r.ios
	streams.Err = last
	r.ios = &streams
	r.scrubStderr()
	// The trace holds what servers echo: each secret in every form one
	// may echo it in, as well as what stderr masks.
	r.traceSecrets = redact.NewScrubber(nil)
	mask := func(b []byte) []byte { return r.traceSecrets.Mask(r.scrub.Mask(b)) }
	tr, err := trace.Create(r.env.Path(path), start, mask, trace.Header{Mcpv: Version, Args: traceArgs(args)})
	if err != nil {
		return nil, clierr.Usage(errors.New("--trace: " + err.Error()))
	}
	failed := false
	tr.Failed = func(err error) {
		failed = true
		// Once, and never through the trace's own lock: stderr is not it.
		r.ios.Err.Write([]byte("mcpv: --trace: " + safetext.Line(err.Error()) + "; the trace stops here\n"))
	}
	r.trace = tr
	stop := context.AfterFunc(ctx, func() {
		if cause := context.Cause(ctx); errors.Is(cause, ErrInterrupted) {
			tr.Note(0, "signal", map[string]any{"cause": cause.Error()})
		}
	})
	return func(code int) {
		stop()
		r.scrub.Flush()
		if err := tr.End(code, last.line()); err != nil && !failed {
			r.ios.Err.Write([]byte("mcpv: --trace: " + safetext.Line(err.Error()) + "\n"))
		}
	}, nil
}

// traceSecret makes the trace mask these secrets too, in every form.
func (r *invocation) traceSecret(values ...string) {
	if r.traceSecrets != nil {
		r.traceSecrets.Add(redact.Forms(values)...)
	}
}

// notRead refuses a trace file the command reads (mcpv mock replaying
// the trace given to --trace as well), which the trace would empty.
func (r *invocation) notRead(path string) error {
	c, ok := r.kctx.Selected().Target.Addr().Interface().(interface{ reads() []string })
	if !ok {
		return nil
	}
	ti, err := os.Stat(r.env.Path(path))
	if err != nil {
		return nil
	}
	for _, p := range c.reads() {
		if fi, err := os.Stat(r.env.Path(p)); p != "" && err == nil && os.SameFile(fi, ti) {
			return clierr.Usage(fmt.Errorf("--trace %s is the file %s reads: the trace would empty it", path, r.kctx.Selected().Name))
		}
	}
	return nil
}

// traceArgs is the command line as a trace holds it: the values of
// secret-named flags, of secret headers and the credentials of URLs
// masked.
func traceArgs(args []string) []string {
	out := redact.Args(args)
	for i, a := range out {
		after, prefix := "", ""
		if i > 0 {
			after = out[i-1]
		}
		if v, ok := strings.CutPrefix(a, "--env="); ok {
			after, a, prefix = "--env", v, "--env="
		}
		switch after {
		case "-H", "--header":
			if name, value, ok := strings.Cut(a, ":"); ok {
				out[i] = name + ": " + redact.HeaderValue(name, strings.TrimSpace(value))
			}
		case "--env":
			if name, value, ok := strings.Cut(a, "="); ok {
				out[i] = prefix + name + "=" + redact.ConfigValue(name, value)
			}
		}
		if strings.Contains(a, "://") {
			out[i] = redact.URL(a)
		}
	}
	return out
}

// ownLastLine passes what mcpv writes on stderr on, and keeps the last
// line of its own ("mcpv: ..."), which the trace's end line quotes.
type ownLastLine struct {
	w    io.Writer
	mu   sync.Mutex // guards last
	last []byte
}

func (l *ownLastLine) Write(p []byte) (int, error) {
	l.mu.Lock()
	for rest := p; len(rest) > 0; {
		line, after, _ := bytes.Cut(rest, []byte("\n"))
		if text, ok := bytes.CutPrefix(line, []byte("mcpv: ")); ok {
			l.last = append(l.last[:0], text[:min(len(text), 1024)]...)
		}
		rest = after
	}
	l.mu.Unlock()
	return l.w.Write(p)
}

func (l *ownLastLine) line() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.last)
}
