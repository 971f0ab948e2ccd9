package doctor

// The walk over stdio: the command found, started, what it wrote on
// stderr and stdout before answering, and its first answer.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// maxLines bounds the lines of stdout and stderr a walk keeps.
const maxLines = 20

// stdio walks a stdio server's steps in order.
func (w *walk) stdio(ctx context.Context) {
	sw := &stdioWalk{walk: w, ctx: ctx, opts: *w.t.Stdio, answered: make(chan reply, 2), diagnosed: make(chan contact, 1), settled: make(chan struct{}, 1)}
	sw.dctx, sw.stopDiagnosis = context.WithCancel(ctx)
	defer sw.stopDiagnosis()
	sw.step("command", sw.command)
	sw.step("start", sw.start)
	if sw.tr == nil {
		sw.rest("stderr", "stdout before the answer", "first answer", "era")
		return
	}
	defer sw.close()
	// The first answer, while stderr and stdout are watched: the first
	// request made, stdout read from now on.
	var body []byte
	sw.method, body = sw.firstRequest(sw.t.Era == "modern")
	sw.asked = time.Now()
	go sw.read() // doctor's stdio reader: ends when the server answers, ends, or is closed (the walk's deferred close)
	wctx, cancel := context.WithTimeout(ctx, sw.t.StartTimeout)
	defer cancel()
	sw.wait(wctx, body)
	sw.step("stderr", sw.stderr)
	sw.step("stdout before the answer", sw.stdoutBeforeAnswer)
	sw.step("first answer", sw.firstAnswer)
	sw.step("era", sw.era)
}

// stdioWalk is a walk over stdio under way: what its steps share.
type stdioWalk struct {
	*walk
	ctx  context.Context       // the walk's
	opts mcp.CommandOptions    // how the server is started: the target's, with the walk's hooks
	tr   *mcp.CommandTransport // the server, once started
	junk lines                 // stdout's lines that are no message
	held pieces                // stdout's lines that may make a message written over several

	answered chan reply // the first answer, or why none came
	// The first line that is no message has the first exchange diagnosed
	// (Target.FirstContact) while the walk waits for its answer. Its
	// verdict ends the wait only when no lines are under way: lines held
	// that may yet make the answer, written over several (underWay), are
	// waited for, and settled tells the wait when they are let go.
	diagnosing atomic.Bool
	diagnosed  chan contact
	underWay   atomic.Bool
	settled    chan struct{}
	// The diagnosis ends with the wait (stopDiagnosis) or its own bound.
	dctx          context.Context
	stopDiagnosis context.CancelFunc

	// What the wait for the first answer found.
	method string          // the first request's
	asked  time.Time       // when it was made
	wctx   context.Context // the wait's: the walk's, bounded by StartTimeout
	got    reply
	broken *contact // the requirement the diagnosis found broken, if it ended the wait
	took   time.Duration
}

// reply is what came of the first request: its answer, or why none came.
type reply struct {
	m      *mcp.Message
	err    error
	framed int // the answer came written over this many lines
}

// offer never blocks: the walk takes one answer, and one is there.
func (sw *stdioWalk) offer(r reply) {
	select {
	case sw.answered <- r:
	default:
	}
}

// heard takes what is no message alone: junk, or a piece of one written
// over lines. An answer the pieces make is offered before the lines are
// said to be no longer under way, so that a wait told so finds it.
func (sw *stdioWalk) heard(line []byte) {
	sw.junk.add(line)
	m, n, under := sw.held.add(line)
	if m != nil {
		sw.offer(reply{m: m, framed: n})
	}
	if sw.underWay.Swap(under) && !under && len(sw.settled) == 0 { // heard alone sends
		sw.settled <- struct{}{}
	}
	if sw.t.FirstContact != nil && !sw.diagnosing.Swap(true) {
		go sw.diagnose() // doctor's first-contact diagnosis: ends when FirstContact returns, bounded by the wait's context
	}
}

// diagnose has the first exchange diagnosed, and hands what it found to
// the wait.
func (sw *stdioWalk) diagnose() {
	bctx, cancel := context.WithTimeout(sw.dctx, sw.t.StartTimeout)
	defer cancel()
	id, finding := sw.t.FirstContact(bctx)
	sw.diagnosed <- contact{id, finding}
}

// command finds the command as the server's start will.
func (sw *stdioWalk) command(s *Step) {
	path, err := lookPath(sw.opts.Path, sw.opts.Dir, sw.opts.Env)
	var pe *fs.PathError
	switch {
	case errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist):
		s.fail(codeTransport, fmt.Sprintf("%q is not found (PATH, or the path given)", sw.opts.Path), "install the server, or give its full path")
	case errors.Is(err, fs.ErrPermission) || errors.As(err, &pe) && errors.Is(pe.Err, fs.ErrPermission):
		s.fail(codeTransport, fmt.Sprintf("%q is not executable", path), "make it executable (chmod +x), or run it through its interpreter (-- node server.js)")
	case err != nil:
		s.fail(codeTransport, err.Error(), "give the server's command line after --")
	default:
		s.Finding = path
	}
}

// start starts the server, its stdout's junk heard by the walk.
func (sw *stdioWalk) start(s *Step) {
	sw.opts.Stderr, sw.opts.Junk, sw.opts.Log = nil, sw.heard, nil // the transport keeps stderr's last lines
	sw.opts.Grace = 500 * time.Millisecond
	var err error
	sw.tr, err = sw.t.Start.Start(sw.opts)
	if err != nil {
		s.fail(codeTransport, "it could not be started: "+err.Error(), "run the command by hand to see why")
		return
	}
	s.Finding = "started"
}

// close ends the server, and with it the reader.
func (sw *stdioWalk) close() {
	cctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	sw.tr.Close(cctx)
	cancel()
}

// read offers the first response on stdout, or why stdout ended, and has
// what is no message heard.
func (sw *stdioWalk) read() {
	for {
		data, err := sw.tr.Read()
		if err != nil {
			sw.offer(reply{err: err})
			return
		}
		if ms, err := mcp.DecodeMessages(data); err == nil {
			for _, m := range ms {
				if m.IsResponse() {
					sw.offer(reply{m: &m})
					return
				}
			}
		} else {
			sw.heard(data)
		}
	}
}

// wait writes the first request and waits, within wctx, for its answer
// or a requirement the diagnosis finds broken.
func (sw *stdioWalk) wait(wctx context.Context, body []byte) {
	sw.wctx = wctx
	writeErr := sw.tr.Write(wctx, body)
	wait, judged := sw.answered, sw.diagnosed
	var verdict *contact // a requirement broken, held while lines are under way
	for wait != nil {
		select {
		case sw.got = <-sw.answered:
			wait = nil
		case c := <-judged:
			judged = nil
			// What the server wrote that is no message was judged on a
			// connection of mcpv check's: a requirement it breaks ends the
			// wait, once no lines that may make the answer are under way;
			// none, and its answer is still waited for.
			if c.id != "" {
				verdict = &c
			}
		case <-sw.settled:
		case <-wctx.Done():
			wait = nil
		}
		if wait != nil && verdict != nil && !sw.underWay.Load() {
			if len(sw.answered) > 0 { // it came with the verdict: the answer is taken (the wait alone receives)
				sw.got = <-sw.answered
			}
			wait = nil
		}
	}
	if sw.got.m == nil && sw.got.err == nil {
		sw.broken = verdict // held to the wait's bound, it stands when no answer came
	}
	if sw.diagnosing.Load() && judged != nil {
		sw.stopDiagnosis()
		<-sw.diagnosed // the diagnosis ends with its context
	}
	sw.took = time.Since(sw.asked).Round(time.Millisecond)
	if sw.got.err == nil && sw.got.m == nil && writeErr != nil {
		sw.got.err = writeErr
	}
}

// stderrTail is the last of what the server wrote on stderr, on one line.
func (sw *stdioWalk) stderrTail() string { return strings.Join(sw.tr.StderrTail(3), " | ") }

// stderr is what the server wrote on stderr before its answer.
func (sw *stdioWalk) stderr(s *Step) {
	s.Finding = "nothing"
	if tail := sw.stderrTail(); tail != "" {
		s.Finding = "its last words: " + tail
	}
}

// stdoutBeforeAnswer is what the server wrote on stdout that is no
// message, or its answer written over lines.
func (sw *stdioWalk) stdoutBeforeAnswer(s *Step) {
	if sw.got.framed > 0 {
		s.warn(fmt.Sprintf("the answer, written over %d lines", sw.got.framed), "a message over stdio is one line, with no newline inside it (see the first exchange)")
		return
	}
	if n := sw.junk.count(); n > 0 {
		s.warn(fmt.Sprintf("%d lines that are no JSON-RPC message: %s", n, sw.junk.text()),
			"a server writes nothing but MCP messages on stdout: its logs go to stderr")
		return
	}
	s.Finding = "nothing but MCP messages"
}

// firstAnswer is the first request's answer, or why none came.
func (sw *stdioWalk) firstAnswer(s *Step) {
	exited := false
	select {
	case <-sw.tr.Exited():
		exited = true
	default:
	}
	g := sw.got
	switch {
	case sw.broken != nil:
		s.fail(codeRequirement, fmt.Sprintf("no answer, and what came breaks %s: %s", sw.broken.id, sw.broken.finding),
			"no client can open a session until it is fixed; mcpv check names the requirement and quotes its text")
	case g.m != nil && g.framed > 0:
		s.Finding = fmt.Sprintf("%s answered in %s, over %d lines", sw.method, sw.took, g.framed)
	case g.m != nil:
		s.Finding = fmt.Sprintf("%s answered in %s", sw.method, sw.took)
	case exited || g.err != nil && !errors.Is(g.err, context.DeadlineExceeded) && sw.ctx.Err() == nil && sw.wctx.Err() == nil:
		why := "it exited before answering"
		if g.err != nil {
			first, _, _ := strings.Cut(g.err.Error(), "\n")
			why = "no answer: " + first
		}
		if tail := sw.stderrTail(); tail != "" {
			why += "; its stderr ends: " + tail
		}
		s.fail(codeTransport, why, "run the command by hand to see why: a missing argument, environment variable or file?")
	case sw.junk.count() > 0:
		s.fail(codeRequirement, fmt.Sprintf("no answer within %s, but %d lines that are no JSON-RPC message (jsonrpc.stdout-only)", sw.t.StartTimeout, sw.junk.count()),
			"the server writes something other than JSON-RPC messages on stdout, one a line: is it an MCP server over stdio, or does it need --framing content-length?")
	default:
		s.fail(codeTimeout, fmt.Sprintf("no answer to %s within %s", sw.method, sw.t.StartTimeout),
			"a server slow to start needs more time (--connect-timeout); one that waits for something (a login, a question on its terminal) never answers")
	}
}

// era is the era the first answer negotiated.
func (sw *stdioWalk) era(s *Step) {
	if sw.got.m != nil {
		sw.negotiated(s, sw.method, *sw.got.m)
	}
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
	l.kept = append(l.kept, safetext.Runes(s, 300))
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
	return strings.Join(l.kept[max(len(l.kept)-3, 0):], " | ")
}

// pieces are the lines of stdout that are no message alone, held while
// they may make one written over several lines (bounded: past maxBody
// they are let go, and so are lines that make a whole value that is no
// response, or that no more lines could make JSON).
type pieces struct {
	mu    sync.Mutex // guards lines and size: the transport's reader and the walk add
	lines [][]byte
	size  int
}

// add holds a line, and returns the response the lines held make with it
// and how many lines it took, once they make one; under says whether
// lines are held after it, a value begun and not yet ended.
func (p *pieces) add(line []byte) (m *mcp.Message, n int, under bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.size+len(line) > maxBody {
			p.lines, p.size = nil, 0
			return nil, 0, false
		}
		if t := bytes.TrimSpace(line); len(p.lines) == 0 && (len(t) == 0 || t[0] != '{') {
			return nil, 0, false // only a line that begins with { begins a message
		}
		p.lines = append(p.lines, bytes.Clone(line))
		p.size += len(line) + 1
		whole := bytes.Join(p.lines, []byte("\n"))
		var v json.RawMessage
		err := json.NewDecoder(bytes.NewReader(whole)).Decode(&v)
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, 0, true // a value begun: more lines may end it
		}
		held := len(p.lines)
		p.lines, p.size = nil, 0 // a whole value, or what no more lines make JSON
		if err == nil {
			if ms, err := mcp.DecodeMessages(whole); err == nil && len(ms) == 1 && ms[0].IsResponse() {
				return &ms[0], held, false
			}
			return nil, 0, false
		}
		if held == 1 {
			return nil, 0, false // else the last line may begin a value of its own: tried alone
		}
	}
}
