package commands

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/load"
	"github.com/mcpv/mcpv/internal/otel"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/trace"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// startTrace begins the run's trace when --trace (or MCPV_TRACE) names a
// file, and returns what ends it with the run's exit code (nothing when
// there is none). The trace masks what the run's stderr masks.
func (r *invocation) startTrace(ctx context.Context, args []string, start time.Time) (end func(code int), err error) {
	path := cmp.Or(r.c.outputFlags.Trace, r.env.Getenv("MCPV_TRACE"))
	if path == "" {
		return func(int) {}, nil
	}
	if err := r.notRead(path); err != nil {
		return nil, err
	}
	last := r.lastLine()
	tr, err := trace.Create(r.env.Path(path), start, r.scrub.Mask, trace.Header{Mcpv: Version, Args: traceArgs(args)})
	if err != nil {
		return nil, errkind.Usage(errors.New("--trace: " + err.Error()))
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

// startTelemetry begins the run's span when --otel or the OTLP variables
// ask for export, and returns what ends it with the run's exit code
// (nothing when nothing is exported). A failed export is said once, never
// changes the exit code, and is noted in the trace.
func (r *invocation) startTelemetry(start time.Time) (end func(code int), err error) {
	cfg, warnings, err := otel.FromEnv(r.env.Getenv, r.c.outputFlags.Otel)
	for _, w := range warnings {
		r.ios.Err.Write([]byte("mcpv: warning: otel: " + safetext.Line(w) + "\n"))
	}
	if err != nil {
		return nil, errkind.Usage(errors.New("otel: " + err.Error()))
	}
	if cfg == nil {
		return func(int) {}, nil
	}
	cfg.Timeout = cmp.Or(max(r.env.ExportWait, 0), cfg.Timeout)
	last := r.lastLine()
	r.scrub.Add(cfg.Secrets()...)
	e := otel.NewExporter(*cfg, nil)
	e.Mask = r.scrub.String
	e.Failed = func(err error) {
		line := "spans not exported to " + redact.URL(cfg.Traces) + ": " + err.Error()
		r.ios.Err.Write([]byte("mcpv: otel: " + safetext.Line(line) + "\n"))
		if r.trace != nil {
			r.trace.Note(0, "otel", map[string]any{"error": line})
		}
	}
	name := "mcpv " + r.kctx.Selected().Name
	r.telemetry = otel.Start(e, name, r.env.Getenv("TRACEPARENT"), start, otel.String("mcpv.command", r.kctx.Selected().Name))
	return func(code int) { r.telemetry.End(code, last.line()) }, nil
}

// console is the run's console on ios, with its telemetry.
func (r *invocation) console(ios *output.Streams) *console {
	c := newConsole(ios, &r.c.outputFlags, r.env)
	c.telemetry, c.jsonErrors, c.secrets = r.telemetry, r.jsonErrors, r.scrub
	return c
}

// served is observe (nil: none) with, when spans are exported, a span
// made of each request a client of serve or mock sent: a child of the
// client's span its params._meta.traceparent names.
func (c *console) served(observe func(serve.Exchange)) func(serve.Exchange) {
	t := c.telemetry
	if t == nil {
		return observe
	}
	return func(e serve.Exchange) {
		if observe != nil {
			observe(e)
		}
		if e.ID == nil || e.Asked {
			return
		}
		code, msg := "", ""
		var re *mcp.RPCError
		switch {
		case e.Cancelled:
			code, msg = "cancelled", "the request was not answered"
		case errors.As(e.Err, &re):
			code, msg = fmt.Sprint(re.Code), re.Message
		case e.Err != nil:
			code, msg = fmt.Sprint(mcp.CodeInternalError), e.Err.Error()
		}
		t.Served(e.Method, e.ID, e.Params, e.Result, code, msg, e.Time, e.Took)
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
			return errkind.Usage(fmt.Errorf("--trace %s is the file %s reads: the trace would empty it", path, r.kctx.Selected().Name))
		}
	}
	return nil
}

// traceArgs is the command line as a trace holds it: the values of
// secret-named flags, of secret headers and --env variables (in every
// form the flags take: -H VALUE, -HVALUE, --header=VALUE, --env VALUE,
// --env=VALUE) and the credentials of URLs masked, however short; the
// trace's scrubber masks what is long enough wherever else it shows.
func traceArgs(args []string) []string {
	out := redact.Args(args)
	header := func(v string) string {
		if name, value, ok := strings.Cut(v, ":"); ok {
			return name + ": " + redact.HeaderValue(name, strings.TrimSpace(value))
		}
		return v
	}
	env := func(v string) string {
		if name, value, ok := strings.Cut(v, "="); ok {
			return name + "=" + redact.ConfigValue(name, value)
		}
		return v
	}
	for i, a := range out {
		prev := ""
		if i > 0 {
			prev = args[i-1]
		}
		switch {
		case prev == "-H" || prev == "--header":
			out[i] = header(a)
		case prev == "--env":
			out[i] = env(a)
		case strings.HasPrefix(a, "--header="):
			out[i] = "--header=" + header(a[len("--header="):])
		case strings.HasPrefix(a, "-H") && len(a) > 2:
			out[i] = "-H" + header(a[2:])
		case strings.HasPrefix(a, "--env="):
			out[i] = "--env=" + env(a[len("--env="):])
		case secretArg(a):
			k, _, _ := strings.Cut(a, "=") // key, or key: for key:=json
			out[i] = k + "=" + redact.Mask
		case !strings.Contains(a, "://"):
		case strings.HasPrefix(a, "--") && strings.Contains(a, "=") && !strings.Contains(a[:strings.Index(a, "=")], "://"):
			name, value, _ := strings.Cut(a, "=")
			out[i] = name + "=" + redact.URL(value)
		default:
			out[i] = redact.URL(a)
		}
	}
	return out
}

// secretArg reports whether a is a tool's or prompt's argument
// (key=value, key:=json) whose key says it holds a secret.
func secretArg(a string) bool {
	k, _, ok := strings.Cut(a, "=")
	k = strings.TrimSuffix(k, ":")
	return ok && k != "" && !strings.HasPrefix(k, "-") && redact.ArgName(k)
}

// argSecrets are the secrets of a command line's arguments to a tool or
// a prompt: the values of those named like secrets (key=value,
// key:=JSON, in check's --call too), and what --args given as JSON
// holds under such names. What a file or stdin gives is known once it is
// sent (connect.Hooks.Sent).
func argSecrets(args []string) []string {
	var out []string
	for i, a := range args {
		switch {
		case secretArg(a):
			k, v, _ := strings.Cut(a, "=")
			if s, err := rawjson.String([]byte(v)); strings.HasSuffix(k, ":") && err == nil {
				v = s // key:="a string"
			}
			out = append(out, v)
		case a == "--args" && i+1 < len(args):
			out = append(out, redact.JSONSecrets([]byte(args[i+1]))...)
		case strings.HasPrefix(a, "--args="):
			out = append(out, redact.JSONSecrets([]byte(a[len("--args="):]))...)
		case a == "--call" && i+1 < len(args): // check's, a call's line in a word
			if words, err := shellwords.Split(args[i+1]); err == nil {
				out = append(out, argSecrets(words)...)
			}
		}
	}
	return out
}

// lastLine keeps the last line mcpv prints of its own on stderr, from
// now on: called before stderr is scrubbed, it sees what the user sees.
func (r *invocation) lastLine() *ownLastLine {
	if r.last == nil {
		r.last = &ownLastLine{w: r.ios.Err}
		streams := *r.ios
		streams.Err = r.last
		r.ios = &streams
	}
	return r.last
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

// loadFigures are the figures of a run of mcpv load that --otel exports
// as OTLP metrics: counts, rates and the latency's percentiles.
func loadFigures(res *load.Result) []otel.Gauge {
	op := otel.String("mcpv.load.schedule", res.Schedule)
	g := []otel.Gauge{
		{Name: "mcpv.load.iterations", Unit: "{iteration}", Value: float64(res.Iterations), Attrs: []otel.Attr{op}},
		{Name: "mcpv.load.errors", Unit: "{iteration}", Value: float64(res.Errors), Attrs: []otel.Attr{op}},
		{Name: "mcpv.load.throughput", Unit: "{iteration}/s", Value: res.Throughput, Attrs: []otel.Attr{op}},
		{Name: "mcpv.load.concurrency", Unit: "{session}", Value: float64(res.Concurrency), Attrs: []otel.Attr{op}},
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"min", res.Latency.Min}, {"mean", res.Latency.Mean}, {"p50", res.Latency.P50}, {"p90", res.Latency.P90}, {"p99", res.Latency.P99}, {"p99.9", res.Latency.P999}, {"max", res.Latency.Max}} {
		g = append(g, otel.Gauge{Name: "mcpv.load.latency", Unit: "ms", Value: p.v, Attrs: []otel.Attr{op, otel.String("mcpv.load.statistic", p.name)}})
	}
	return g
}
