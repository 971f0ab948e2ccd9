package doctor

// The walk over stdio: the command found, started, what it wrote on
// stderr and stdout before answering, and its first answer.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/mcp"
)

// maxLines bounds the lines of stdout and stderr a walk keeps.
const maxLines = 20

func (w *walk) stdio(ctx context.Context) {
	o := *w.t.Stdio
	w.step("command", func(s *Step) {
		path, err := lookPath(o.Path, o.Dir, o.Env)
		var pe *fs.PathError
		switch {
		case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
			s.fail(codeTransport, fmt.Sprintf("%q is not found (PATH, or the path given)", o.Path), "install the server, or give its full path")
		case errors.Is(err, fs.ErrPermission) || errors.As(err, &pe) && errors.Is(pe.Err, fs.ErrPermission):
			s.fail(codeTransport, fmt.Sprintf("%q is not executable", path), "make it executable (chmod +x), or run it through its interpreter (-- node server.js)")
		case err != nil:
			s.fail(codeTransport, err.Error(), "give the server's command line after --")
		default:
			s.Finding = path
		}
	})
	var junk lines
	var tr *mcp.CommandTransport
	type got struct {
		m      *mcp.Message
		err    error
		framed int // the answer came written over this many lines
	}
	answered := make(chan got, 2)
	// offer never blocks: the walk takes one answer, and one is there.
	offer := func(g got) {
		select {
		case answered <- g:
		default:
		}
	}
	var held pieces
	// The first line that is no message has the first exchange diagnosed
	// (Target.FirstContact) while the walk waits for its answer.
	var diagnosing atomic.Bool
	diagnosed := make(chan contact, 1)
	// The diagnosis ends with the wait (stopDiagnosis) or its own bound.
	dctx, stopDiagnosis := context.WithCancel(ctx)
	defer stopDiagnosis()
	heard := func(line []byte) { // what is no message alone: junk, or a piece of one written over lines
		junk.add(line)
		if w.t.FirstContact != nil && !diagnosing.Swap(true) {
			go func() { // doctor's first-contact diagnosis: ends when FirstContact returns, bounded by the wait's context
				bctx, cancel := context.WithTimeout(dctx, w.t.StartTimeout)
				defer cancel()
				id, finding := w.t.FirstContact(bctx)
				diagnosed <- contact{id, finding}
			}()
		}
		if m, n := held.add(line); m != nil {
			offer(got{m: m, framed: n})
		}
	}
	w.step("start", func(s *Step) {
		o.Stderr, o.Junk, o.Log = nil, heard, nil // the transport keeps stderr's last lines
		o.Grace = 500 * time.Millisecond
		var err error
		tr, err = w.t.Start.Start(o)
		if err != nil {
			s.fail(codeTransport, "it could not be started: "+err.Error(), "run the command by hand to see why")
			return
		}
		s.Finding = "started"
	})
	if tr == nil {
		w.rest("stderr", "stdout before the answer", "first answer", "era")
		return
	}
	stderr := func() string { return strings.Join(tr.StderrTail(3), " | ") }
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		tr.Close(cctx)
		cancel()
	}()
	// The first answer, while stderr and stdout are watched.
	method, body := w.firstRequest(w.t.Era == "modern")
	start := time.Now()
	go func() { // doctor's stdio reader: ends when the server answers, ends, or is closed (the deferred Close)
		for {
			data, err := tr.Read()
			if err != nil {
				offer(got{err: err})
				return
			}
			if ms, err := mcp.DecodeMessages(data); err == nil {
				for _, m := range ms {
					if m.IsResponse() {
						offer(got{m: &m})
						return
					}
				}
			} else {
				heard(data)
			}
		}
	}()
	wctx, cancel := context.WithTimeout(ctx, w.t.StartTimeout)
	defer cancel()
	writeErr := tr.Write(wctx, body)
	var g got
	var broken *contact
	wait, judged := answered, diagnosed
	for wait != nil {
		select {
		case g = <-answered:
			wait = nil
		case c := <-judged:
			judged = nil
			// What the server wrote that is no message was judged on a
			// connection of mcpv check's: a requirement it breaks ends the
			// wait at once; none, and its answer is still waited for.
			if c.id != "" {
				broken, wait = &c, nil
			}
		case <-wctx.Done():
			wait = nil
		}
	}
	if diagnosing.Load() && judged != nil {
		stopDiagnosis()
		<-diagnosed // the diagnosis ends with its context
	}
	took := time.Since(start).Round(time.Millisecond)
	if g.err == nil && g.m == nil && writeErr != nil {
		g.err = writeErr
	}
	w.step("stderr", func(s *Step) {
		if tail := stderr(); tail != "" {
			s.Finding = "its last words: " + tail
			return
		}
		s.Finding = "nothing"
	})
	w.step("stdout before the answer", func(s *Step) {
		if g.framed > 0 {
			s.warn(fmt.Sprintf("the answer, written over %d lines", g.framed), "a message over stdio is one line, with no newline inside it (see the first exchange)")
			return
		}
		if n := junk.count(); n > 0 {
			s.warn(fmt.Sprintf("%d lines that are no JSON-RPC message: %s", n, junk.text()),
				"a server writes nothing but MCP messages on stdout: its logs go to stderr")
			return
		}
		s.Finding = "nothing but MCP messages"
	})
	w.step("first answer", func(s *Step) {
		exited := false
		select {
		case <-tr.Exited():
			exited = true
		default:
		}
		switch {
		case broken != nil:
			s.fail(codeRequirement, fmt.Sprintf("no answer, and what came breaks %s: %s", broken.id, broken.finding),
				"no client can open a session until it is fixed; mcpv check names the requirement and quotes its text")
		case g.m != nil && g.framed > 0:
			s.Finding = fmt.Sprintf("%s answered in %s, over %d lines", method, took, g.framed)
		case g.m != nil:
			s.Finding = fmt.Sprintf("%s answered in %s", method, took)
		case exited || g.err != nil && !errors.Is(g.err, context.DeadlineExceeded) && ctx.Err() == nil && wctx.Err() == nil:
			why := "it exited before answering"
			if g.err != nil {
				first, _, _ := strings.Cut(g.err.Error(), "\n")
				why = "no answer: " + first
			}
			if tail := stderr(); tail != "" {
				why += "; its stderr ends: " + tail
			}
			s.fail(codeTransport, why, "run the command by hand to see why: a missing argument, environment variable or file?")
		case junk.count() > 0:
			s.fail(codeRequirement, fmt.Sprintf("no answer within %s, but %d lines that are no JSON-RPC message (jsonrpc.stdout-only)", w.t.StartTimeout, junk.count()),
				"the server writes something other than JSON-RPC messages on stdout, one a line: is it an MCP server over stdio, or does it need --framing content-length?")
		default:
			s.fail(codeTimeout, fmt.Sprintf("no answer to %s within %s", method, w.t.StartTimeout),
				"a server slow to start needs more time (--connect-timeout); one that waits for something (a login, a question on its terminal) never answers")
		}
	})
	w.step("era", func(s *Step) {
		if g.m != nil {
			w.negotiated(s, method, *g.m)
		}
	})
}

// contact is what the first exchange's diagnosis found: the check whose
// requirement the server breaks, and how ("" when none).
type contact struct{ id, finding string }

// lookPath finds the command as the server's start will: a path with a
// slash relative to dir, a bare name in PATH (the server's environment's,
// when it has one).
func lookPath(name, dir string, env []string) (string, error) {
	if strings.ContainsRune(name, filepath.Separator) || strings.Contains(name, "/") {
		p := name
		if dir != "" && !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			return p, err
		case fi.IsDir():
			return p, fmt.Errorf("%q is a directory", p)
		case fi.Mode()&0o111 == 0:
			return p, fs.ErrPermission
		}
		return p, nil
	}
	for _, e := range env {
		if v, ok := strings.CutPrefix(e, "PATH="); ok {
			for _, d := range filepath.SplitList(v) {
				p := filepath.Join(d, name)
				if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
					return p, nil
				}
			}
			return name, exec.ErrNotFound
		}
	}
	return exec.LookPath(name)
}

// lines keeps the last of stdout's lines that are no message, bounded.
type lines struct {
	mu   sync.Mutex // guards the fields below: the transport's reader adds
	kept []string
	n    int
}

func (l *lines) add(line []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := strings.TrimRight(string(line), "\r")
	if strings.TrimSpace(s) == "" {
		return
	}
	l.n++
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	l.kept = append(l.kept, s)
	if len(l.kept) > maxLines {
		l.kept = l.kept[1:]
	}
}

func (l *lines) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

// text is the lines kept, the last three, on one line.
func (l *lines) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	kept := l.kept
	if len(kept) > 3 {
		kept = kept[len(kept)-3:]
	}
	return strings.Join(kept, " | ")
}

// pieces are the lines of stdout that are no message alone, held while
// they may make one written over several lines (bounded: past maxBody
// they are let go).
type pieces struct {
	mu    sync.Mutex // guards lines and size: the transport's reader and the walk add
	lines [][]byte
	size  int
}

// add holds a line, and returns the response the lines held make with it,
// and how many lines it took, once they make one.
func (p *pieces) add(line []byte) (*mcp.Message, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.size+len(line) > maxBody {
		p.lines, p.size = nil, 0
		return nil, 0
	}
	t := bytes.TrimSpace(line)
	if len(p.lines) == 0 && (len(t) == 0 || t[0] != '{') {
		return nil, 0 // only a line that begins with { begins a message
	}
	p.lines = append(p.lines, bytes.Clone(line))
	p.size += len(line) + 1
	whole := bytes.Join(p.lines, []byte("\n"))
	if ms, err := mcp.DecodeMessages(whole); err == nil && len(ms) == 1 && ms[0].IsResponse() {
		n := len(p.lines)
		p.lines, p.size = nil, 0
		return &ms[0], n
	}
	return nil, 0
}
