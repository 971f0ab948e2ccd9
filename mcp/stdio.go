package mcp

// The stdio transport (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio):
// the server is a child process; messages
// are newline-delimited JSON on its stdin and stdout; its stderr is a log.
// A server that frames messages with Content-Length headers instead is
// spoken to in its framing once its first bytes show it (framing.go).
//
// Design:
//   - The child runs in its own process group, so a terminal's Ctrl-C reaches
//     mcpv alone and mcpv can cancel on the wire before shutting it down; on
//     Linux it also gets SIGKILL if mcpv dies (PR_SET_PDEATHSIG), on other
//     Unix systems a watcher ends its group then (watch_unix.go), and on
//     Windows a kill-on-close Job Object holds its whole tree.
//   - Lines have no size limit: a line of any length ends up in one slice of
//     its own, which the session keeps without copying (lines.go).
//   - All three pipes are *os.File, so writes honour deadlines and Wait never
//     blocks on copying (on Windows mcpv's ends of stdin and stdout are
//     overlapped named pipes, since anonymous pipes take no deadlines there); one goroutine copies stderr (to the user and to a tail
//     kept for error messages) and one waits for the process to exit.
//   - Close: close stdin, wait; SIGTERM the group, wait; SIGKILL the group,
//     wait. Every wait is bounded.
//   - On Windows a .cmd or .bat server (npx.cmd) runs through cmd.exe, with
//     a command line on which cmd acts on nothing and the program behind
//     the shim gets every argument as given (cmdline.go); an argument no
//     quoting can carry (a line break) fails the start.

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/safetext"
)

// CommandOptions describe a stdio server to start.
type CommandOptions struct {
	Path string   // the program, looked up in PATH when it has no slash
	Args []string // arguments after the program
	Env  []string // the whole environment of the server; nil inherits mcpv's
	Dir  string   // working directory; "" is mcpv's

	// Stderr receives the server's stderr as it comes; nil hides it. The last
	// lines are kept for error messages either way, and quoted in them
	// unless StderrShown.
	Stderr io.Writer
	// StderrShown says Stderr is where the user reads, as the lines come:
	// an error of the transport does not quote them a second time.
	StderrShown bool
	// Mask makes a line of the server's stderr safe to quote (its
	// secrets masked) before the line is clipped for an error: masked
	// after, a secret cut by the clip would show its start. Nil quotes
	// the lines as they are.
	Mask func(string) string
	// Log receives warnings about the server's output; nil discards them.
	Log *slog.Logger
	// Grace is how long Close waits after closing stdin and again after
	// SIGTERM; zero means DefaultGrace.
	Grace time.Duration
	// ExitDrain is how long a read waits for more output once the server
	// has exited (a grandchild may keep its stdout open); zero means 1 s.
	ExitDrain time.Duration
	// Groups, if set, records the server's process group while it may be
	// alive, for a caller that must be able to kill it at any moment.
	Groups *ProcessGroups
	// Framing is how messages are delimited on the pipes: FramingAuto
	// (which "" means too), FramingLines or FramingContentLength.
	Framing string
	// MaxMessage, when positive, bounds each message (and each line that
	// is no message) the server writes: a longer one ends the
	// connection with a *MessageSizeError, read no further. 0 reads
	// messages of any size.
	MaxMessage int64
	// Junk, when set, is told every line of stdout skipped as no JSON,
	// whole, on the reader goroutine (the slice is not the callee's to
	// keep): mcpv check judges what the server wrote as it came.
	Junk func(line []byte)
	// OnEvent, when set, is told when the process starts and when it
	// exits (EventStart, EventExit).
	OnEvent func(TransportEvent)
	// Serve, when set, serves in this process in place of the program:
	// it reads stdin and writes stdout and stderr (real pipes) until it
	// returns, which is the server's exit (a non-nil error its failure).
	// It must return once stdin has ended or a write to stdout fails.
	// Tests serve their fakes so where the process is not the subject.
	Serve func(stdin io.ReadCloser, stdout, stderr io.WriteCloser) error
}

// The framings a stdio server may be spoken to in. Auto writes lines and
// switches to Content-Length headers if the server's first bytes are a
// header block: it finds a server that speaks first, but a framed server
// that waits for the client never hears a line it can read, and needs
// FramingContentLength.
const (
	FramingAuto          = "auto"
	FramingLines         = "lines"
	FramingContentLength = "content-length"
)

// DefaultGrace is the default wait between the steps of a stdio shutdown.
const DefaultGrace = 2 * time.Second

const (
	exitDrainWait   = time.Second
	readBufferSize  = 64 << 10
	maxJunkWarnings = 10
	stderrTailBytes = 8 << 10
	stderrTailLines = 10
	smallMessage    = 64 << 10 // written with its newline in one write
	maxEarly        = 64       // messages kept until the server's framing is known
)

// CommandTransport is a Transport to a server run as a child process.
type CommandTransport struct {
	opts   CommandOptions
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	msgs   *messageReader // only the session's reader goroutine uses it
	junk   junkWarner     // reader goroutine only

	// heard is the framing the reader has seen the server use (a framing).
	heard atomic.Int32
	// spoke: the server has written something on its stdout.
	spoke atomic.Bool
	// omu serialises writing to stdin: Write, and the catch-up once the
	// server turns out to want headers. It guards framed and early.
	omu    chan struct{} // 1-slot: a Write waits for it as long as its context allows
	framed bool          // write header blocks
	early  [][]byte      // copies of what was written before the server's framing was known

	in    *stdinWriter    // writes to stdin; omu guards it
	wctx  context.Context // the context of the write holding omu (nil: the catch-up's)
	wstop func() bool     // stops the watch on wctx once armWrite set it

	wmu sync.Mutex // guards deadline arming of stdin (see Write)
	// wseq counts the writes to stdin; a cut names the write it is for,
	// so that one that comes late leaves the next write alone. Written
	// under omu and wmu.
	wseq     uint64
	wwriting bool          // a write is under way (wmu)
	exited   chan struct{} // closed when the process has exited and been reaped
	waitErr  error         // set before exited is closed
	errDone  chan struct{} // closed when the stderr copy reached EOF
	readDone chan struct{} // closed when Read has met the end of stdout
	readEnd  sync.Once     // closes readDone
	tail     *tailBuffer
	closeMu  sync.Mutex // guards Close: one at a time
	isClosed bool
	// inputClosed is set once Close has closed the server's stdin; asked
	// is closed (once, by the reader) when the server sends a request
	// after that: it waits for an answer that cannot come.
	inputClosed atomic.Bool
	asked       chan struct{}
	askedOnce   sync.Once

	stopMu  sync.Mutex // guards stopped
	stopped error      // what stoppedReading found: later writes return it at once
}

// Starter starts a stdio server as StartCommand does, or otherwise (a
// test's fake served in its own process); nil is StartCommand.
type Starter func(CommandOptions) (*CommandTransport, error)

// Start starts the server of opts.
func (s Starter) Start(opts CommandOptions) (*CommandTransport, error) {
	if s == nil {
		return StartCommand(opts)
	}
	return s(opts)
}

// StartCommand starts the server process.
func StartCommand(opts CommandOptions) (*CommandTransport, error) {
	opts.Grace = cmp.Or(max(opts.Grace, 0), DefaultGrace)
	opts.ExitDrain = cmp.Or(max(opts.ExitDrain, 0), exitDrainWait)
	opts.Log = cmp.Or(opts.Log, slog.New(slog.DiscardHandler))
	inR, inW, err := serverPipe(false)
	var outW, outR, errR, errW *os.File
	if err == nil {
		outW, outR, err = serverPipe(true)
	}
	if err == nil {
		errR, errW, err = os.Pipe()
	}
	if err != nil {
		closeAll(inR, inW, outR, outW) // those made; a nil *os.File's Close does nothing
		return nil, &TransportError{Op: "start server", Err: err}
	}
	cmd, err := startProcess(opts, inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return nil, err
	}
	t := &CommandTransport{
		opts:     opts,
		cmd:      cmd,
		stdin:    inW,
		stdout:   outR,
		exited:   make(chan struct{}),
		errDone:  make(chan struct{}),
		omu:      make(chan struct{}, 1),
		readDone: make(chan struct{}),
		asked:    make(chan struct{}),
		tail:     &tailBuffer{max: stderrTailBytes, mask: opts.Mask},
	}
	if opts.OnEvent != nil {
		opts.OnEvent(TransportEvent{Kind: EventStart, PID: t.Pid(), Program: opts.Path})
	}
	t.in = newStdinWriter(inW, t.armWrite)
	t.msgs = newMessageReader(&drainReader{f: outR, exited: t.exited, wait: opts.ExitDrain}, readBufferSize)
	t.junk = junkWarner{log: opts.Log, where: "on the server's stdout"}
	t.msgs.junk, t.msgs.decided = t.junk.warn, t.decided
	if opts.Junk != nil {
		t.msgs.junk = func(line []byte) { t.junk.warn(line); opts.Junk(line) }
	}
	t.msgs.lines.limit = opts.MaxMessage
	t.msgs.spoke = func() { t.spoke.Store(true) }
	if f, ok := map[string]framing{FramingLines: framingLines, FramingContentLength: framingHeaders}[opts.Framing]; ok {
		t.msgs.mode = f
		t.heard.Store(int32(f))
		t.framed = f == framingHeaders
	}
	go t.copyStderr(errR) // stderr copier: stops at EOF: when every holder of the pipe has exited
	go func() {           // process waiter: stops when the process exits (Serve returns)
		t.waitErr = t.wait(inR, outW, errW)
		if opts.OnEvent != nil {
			opts.OnEvent(exitEvent(t.Pid(), t.waitErr))
		}
		close(t.exited)
		// A read blocked on a pipe a grandchild keeps open wakes up.
		t.stdout.SetReadDeadline(time.Now().Add(opts.ExitDrain))
	}()
	return t, nil
}

// drainReader reads the server's stdout. Once the server has exited, a
// grandchild may keep the pipe open for ever, so each read is given wait
// for more to arrive, and then counts as the end. What the server wrote
// before it exited is all read, however slowly the session takes it: each
// read gets a fresh wait.
type drainReader struct {
	f      *os.File
	exited <-chan struct{}
	wait   time.Duration
}

func (d *drainReader) Read(p []byte) (int, error) {
	select {
	case <-d.exited:
		d.f.SetReadDeadline(time.Now().Add(d.wait))
	default:
	}
	n, err := d.f.Read(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		select {
		case <-d.exited:
			err = io.EOF // the server is gone and nothing more came
		default:
		}
	}
	return n, err
}

// notFoundIn adds to the failure to start a server whose command is a
// relative path, run in another directory than mcpv's (a test file's, a
// config entry's cwd), the directory it was looked for in: the path is
// taken from there, not from where the user typed.
func notFoundIn(err error, opts CommandOptions) error {
	path := opts.Path
	if opts.Dir == "" || filepath.IsAbs(path) || !strings.ContainsAny(path, "/"+string(filepath.Separator)) || !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, statErr := os.Stat(filepath.Join(opts.Dir, path)); !errors.Is(statErr, fs.ErrNotExist) {
		return err // it is there: what is missing is something it needs
	}
	return fmt.Errorf("%w (looked for in %s)", err, opts.Dir)
}

func closeAll(files ...*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// Read returns the next message from the server's stdout: a JSON line, or
// the body of a Content-Length frame. Lines that are not JSON are skipped
// with a warning; blank lines silently.
func (t *CommandTransport) Read() ([]byte, error) {
	msg, err := t.msgs.next()
	if err != nil {
		t.readEnd.Do(func() { close(t.readDone) })
		if errors.As(err, new(*FramingError)) {
			return nil, &TransportError{Op: "read from server", Err: err, StderrTail: t.stderrTail()}
		}
		return nil, t.endError(err)
	}
	if t.inputClosed.Load() && asks(msg) {
		t.askedOnce.Do(func() { close(t.asked) })
	}
	return msg, nil
}

// LastStderrLine is the last line the server has written on its stderr so
// far, as a terminal would show it (after its last carriage return; the
// line may be unfinished), "" when there is none. It is raw: the server's
// bytes, clipped.
func (t *CommandTransport) LastStderrLine() string {
	for _, l := range t.tail.lines(1) {
		return l[strings.LastIndexByte(l, '\r')+1:]
	}
	return ""
}

// StderrTail is the server's last lines on its stderr so far (up to n).
func (t *CommandTransport) StderrTail(n int) []string { return t.tail.lines(n) }

// asks reports whether a wire unit holds a request.
func asks(msg []byte) bool {
	msgs, err := appendMessages(nil, msg)
	return err == nil && slices.ContainsFunc(msgs, func(m message) bool { return m.isRequest() })
}

// Silent reports whether the server has written nothing on its stdout yet
// (blank lines aside): in auto framing, its framing is still unknown.
func (t *CommandTransport) Silent() bool { return !t.spoke.Load() }

// decided is told, on the reader goroutine, which framing the server uses.
// For headers, what was written before is written again, framed, by a
// goroutine of its own so that the reader never waits on stdin.
func (t *CommandTransport) decided(f framing) {
	t.heard.Store(int32(f))
	if f == framingHeaders {
		t.opts.Log.Info("the server frames its messages with Content-Length headers; speaking them back")
		go func() { // Content-Length catch-up: ends when the catch-up is written, or stdin fails
			t.omu <- struct{}{}
			defer func() { <-t.omu }()
			t.catchUpLocked()
		}()
	}
}

// catchUpLocked applies the framing the reader has learnt, if it has: with
// headers, the early messages, which the server could not read, are sent
// again in its framing. omu must be held.
func (t *CommandTransport) catchUpLocked() error {
	switch framing(t.heard.Load()) {
	case framingUnknown:
		return nil
	case framingHeaders:
		if !t.framed {
			t.framed = true
			for _, m := range t.early {
				if err := t.in.write(frame(m)); err != nil {
					t.early = nil
					return err
				}
			}
		}
	}
	t.early = nil
	return nil
}

// endError explains why stdout ended: usually the server exited.
func (t *CommandTransport) endError(err error) error {
	t.closeMu.Lock()
	closed := t.isClosed
	t.closeMu.Unlock()
	if closed {
		return &TransportError{Op: "connection closed"}
	}
	select {
	case <-t.exited:
		return exitError(t.waitErr, t.stderrTail())
	default:
	}
	if !errors.Is(err, io.EOF) {
		return &TransportError{Op: "read from server", Err: err}
	}
	select {
	case <-t.exited:
	case <-time.After(t.opts.Grace):
		return &TransportError{Op: "server closed its stdout", StderrTail: t.stderrTail()}
	}
	return exitError(t.waitErr, t.stderrTail())
}

// exitError is the error of a server that has ended (err is its wait's),
// with the last lines of its stderr.
func exitError(err error, tail []string) *TransportError {
	what, signal := describeExit(err)
	return &TransportError{Op: "server " + what, StderrTail: tail, Signal: signal}
}

// describeExit says how a server ended (err is its wait's), and the
// signal that killed it, if one did.
func describeExit(err error) (string, syscall.Signal) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exited", 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "was killed by signal " + ws.Signal().String(), ws.Signal()
		}
		return fmt.Sprintf("exited with status %d", ee.ExitCode()), 0
	default:
		return "exited: " + err.Error(), 0
	}
}

// stderrTail returns the server's last stderr lines once the copy has caught
// up (bounded: a grandchild may hold the pipe open).
// None when the user has seen them as they came (StderrShown).
// Either way the copy is waited for: what was shown is shown before the
// error that follows it.
func (t *CommandTransport) stderrTail() []string {
	select {
	case <-t.errDone:
	case <-time.After(500 * time.Millisecond):
	}
	if t.opts.StderrShown && t.opts.Stderr != nil {
		return nil
	}
	return t.tail.lines(stderrTailLines)
}

func (t *CommandTransport) copyStderr(r *os.File) {
	defer close(t.errDone)
	defer r.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			t.tail.Write(buf[:n])
			if t.opts.Stderr != nil {
				t.opts.Stderr.Write(buf[:n])
			}
		}
		if err != nil {
			return
		}
	}
}

// Write sends one message and its newline (or, to a server that frames
// with headers, its header block and the message). When ctx ends mid-write
// the pipe's deadline fires and the half-written message leaves the
// connection unusable, so stdin is closed.
func (t *CommandTransport) Write(ctx context.Context, msg []byte) error {
	return t.writeStream(ctx, msg, nil)
}

// writeStream is Write of msg, streaming m when not nil (streamWriter).
func (t *CommandTransport) writeStream(ctx context.Context, msg []byte, m *streamedMsg) error {
	err := t.write(ctx, msg, m)
	if err == errBrokenPipe {
		return t.stoppedReading(ctx) // stdin let go: a wait here blocks no other writer
	}
	return err
}

// write is writeStreamed while holding stdin.
func (t *CommandTransport) write(ctx context.Context, msg []byte, m *streamedMsg) error {
	select {
	case t.omu <- struct{}{}:
		defer func() { <-t.omu }()
	case <-ctx.Done():
		return context.Cause(ctx) // the catch-up holds stdin, and a server that does not read blocks it
	}
	// select chooses at random when stdin is free and ctx has ended as
	// well: a write that would start cut by its deadline, write nothing
	// and close stdin, which the session still needs (a task's
	// tasks/cancel follows a tasks/get its timeout ended).
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	t.wmu.Lock()
	t.wseq++
	t.wwriting = true
	t.stdin.SetWriteDeadline(time.Time{})
	t.wmu.Unlock()
	t.wctx = ctx
	err := t.catchUpLocked()
	if err == nil {
		err = t.writeMessage(msg, m)
	}
	if t.wstop != nil {
		t.wstop()
	}
	t.wctx, t.wstop = nil, nil
	t.wmu.Lock()
	t.wwriting = false
	t.wmu.Unlock()
	if err != nil {
		if ctx.Err() != nil {
			t.stdin.Close()
			return context.Cause(ctx)
		}
		if errkind.BrokenPipe(err) {
			return errBrokenPipe
		}
		return &TransportError{Op: "write to server", Err: err}
	}
	return nil
}

// armWrite is called when a write to stdin is about to wait for the
// server to read: from then on the write's context ending cuts it (see
// Write). omu is held; the catch-up's writes have no context, and wait.
func (t *CommandTransport) armWrite() {
	if t.wctx != nil && t.wstop == nil {
		seq := t.wseq
		t.wstop = context.AfterFunc(t.wctx, func() {
			// The write, when still under way, gives up at once; a cut
			// that comes after it ended (its context ended as the write
			// did) leaves the next alone.
			t.wmu.Lock()
			if t.wwriting && t.wseq == seq {
				t.stdin.SetWriteDeadline(time.Now())
			}
			t.wmu.Unlock()
		})
	}
}

// errBrokenPipe is write's word for a server that no longer reads its stdin;
// Write says why once it has let go of stdin.
var errBrokenPipe = errors.New("broken pipe")

// stoppedReading says why the server no longer reads its stdin: it exited
// (how, with the tail of its stderr), or it closed its stdin and runs on.
// What the server wrote before it went is read first, so that its
// warnings are not lost to this error: the read ends within ExitDrain once
// the server has exited. The wait ends with ctx. Its first answer is the
// answer to every later write.
func (t *CommandTransport) stoppedReading(ctx context.Context) error {
	t.stopMu.Lock()
	err := t.stopped
	t.stopMu.Unlock()
	if err != nil {
		return err
	}
	if err = t.whyStopped(ctx); ctx.Err() == nil {
		t.stopMu.Lock()
		t.stopped = cmp.Or(t.stopped, err)
		err = t.stopped
		t.stopMu.Unlock()
	}
	return err
}

// whyStopped is stoppedReading's first look.
func (t *CommandTransport) whyStopped(ctx context.Context) error {
	select {
	case <-t.readDone:
	case <-t.exited:
		select {
		case <-t.readDone:
		case <-ctx.Done():
		case <-time.After(t.opts.ExitDrain + time.Second):
		}
	case <-ctx.Done():
	case <-time.After(t.opts.ExitDrain + time.Second):
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	// Its stdout can end a moment before its exit is seen: a server that
	// closed both is waited for, within ExitDrain, before it is said to
	// run on.
	select {
	case <-t.exited:
	case <-ctx.Done():
		return context.Cause(ctx)
	case <-time.After(t.opts.ExitDrain):
	}
	select {
	case <-t.exited:
		return exitError(t.waitErr, t.stderrTail())
	default:
		return &TransportError{Op: "server closed its stdin", StderrTail: t.stderrTail()}
	}
}

// writeMessage writes msg in the server's framing; omu must be held. Until
// the server has shown its framing, a copy is kept for catchUpLocked (a
// session sends little before the first answer: initialize, mostly).
// A message that streams a string (m, when not nil) is written in
// chunks as its file is read; one whose file fails it midway is ended
// as a line the server cannot take for a message (its string left
// open), or, framed, by closing stdin.
func (t *CommandTransport) writeMessage(msg []byte, m *streamedMsg) error {
	if m != nil && framing(t.heard.Load()) != framingUnknown {
		return t.writeStreamed(m)
	}
	if m != nil {
		whole, err := m.whole()
		if err != nil {
			return err
		}
		msg = whole
	}
	if framing(t.heard.Load()) == framingUnknown && len(t.early) < maxEarly {
		t.early = append(t.early, bytes.Clone(msg))
	}
	head, end := []byte(nil), newline
	if t.framed {
		head, end = frameHeader(int64(len(msg))), nil
	}
	if len(msg) < smallMessage {
		// One write, so the server never reads a message without its
		// newline (or its header block); a large one is not worth copying.
		return t.in.write(slices.Concat(head, msg, end))
	}
	for _, b := range [][]byte{head, msg, end} {
		if len(b) > 0 {
			if err := t.in.write(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeStreamed writes m in the server's framing; omu must be held.
func (t *CommandTransport) writeStreamed(m *streamedMsg) error {
	if t.framed {
		if err := t.in.write(frameHeader(m.size())); err != nil {
			return err
		}
	}
	var wrote error // a write's own failure, not the file's
	err := m.writeTo(func(b []byte) error {
		wrote = t.in.write(b)
		return wrote
	}, streamChunk)
	switch {
	case err == nil:
		if t.framed {
			return nil
		}
		return t.in.write(newline)
	case wrote == nil && !t.framed:
		if werr := t.in.write(newline); werr != nil {
			return werr
		}
	case wrote == nil:
		t.stdin.Close()
	}
	return err
}

// streamChunk is how much of a streamed message is read and written at
// a time.
const streamChunk = 64 << 10

// Close shuts the server down: close stdin, wait; SIGTERM to its process group,
// wait; SIGKILL, wait. When ctx is done it goes straight to SIGKILL. A
// server served in the process (Serve) has no group: past the first wait
// its stdout is closed, which fails its writes, and it is waited for once
// more.
func (t *CommandTransport) Close(ctx context.Context) error {
	t.closeMu.Lock()
	defer t.closeMu.Unlock()
	if t.isClosed {
		return nil
	}
	t.isClosed = true
	t.stdin.Close()
	t.inputClosed.Store(true)
	if t.cmd == nil {
		if !t.waitExit(ctx, t.opts.Grace, t.asked) {
			t.stdout.Close()
			t.waitExit(context.Background(), t.opts.Grace, nil)
		}
		t.stdout.Close()
		return nil
	}
	pid := t.cmd.Process.Pid
	// A server that asks something once its input has closed waits for
	// an answer that cannot come (its own timer on it may keep it running
	// for a minute): it is not finishing, so the grace ends there.
	if !t.waitExit(ctx, t.opts.Grace, t.asked) {
		killGroup(pid, syscall.SIGTERM)
		if !t.waitExit(ctx, t.opts.Grace, nil) {
			killGroup(pid, syscall.SIGKILL)
			t.waitExit(context.Background(), t.opts.Grace, nil)
		}
	}
	// The server is gone; anything it left behind in its group goes too.
	killGroup(pid, syscall.SIGKILL)
	groupEnded(pid)
	if g := t.opts.Groups; g != nil {
		g.mu.Lock()
		delete(g.pids, pid)
		g.mu.Unlock()
	}
	t.stdout.Close()
	return nil
}

// waitExit waits up to d for the process to exit; it gives up at once when
// ctx is done or stop is closed.
func (t *CommandTransport) waitExit(ctx context.Context, d time.Duration, stop <-chan struct{}) bool {
	select {
	case <-t.exited:
		return true
	case <-time.After(d):
		return false
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	}
}

// Pid is the server's process id (also its process group id); 0 for a
// server served in the process.
func (t *CommandTransport) Pid() int {
	if t.cmd == nil {
		return 0
	}
	return t.cmd.Process.Pid
}

// startProcess starts the server's program on the pipes' far ends, which
// it closes (the child has its own copies), or, where opts.Serve is set,
// nothing: the far ends are Serve's (wait). The caller closes the near
// ends when it fails.
func startProcess(opts CommandOptions, inR, outW, errW *os.File) (*exec.Cmd, error) {
	if opts.Serve != nil {
		return nil, nil
	}
	cmd := exec.Command(opts.Path, opts.Args...)
	cmd.Env = opts.Env
	cmd.Dir = opts.Dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = sysProcAttr()
	if err := prepareCommand(cmd); err != nil {
		closeAll(inR, outW, errW)
		return nil, &TransportError{Op: fmt.Sprintf("start server %q", opts.Path), Err: err}
	}
	err := cmd.Start()
	closeAll(inR, outW, errW) // the child has its own copies
	if err != nil {
		return nil, &TransportError{Op: fmt.Sprintf("start server %q", opts.Path), Err: notFoundIn(unwrap[*exec.Error](err), opts)}
	}
	if err := afterStart(cmd.Process.Pid); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, &TransportError{Op: fmt.Sprintf("start server %q", opts.Path), Err: err}
	}
	opts.Groups.add(cmd.Process.Pid)
	return cmd, nil
}

// wait waits for the process to exit, or runs Serve on the pipes' far
// ends and closes them when it returns, as a process's exit does.
func (t *CommandTransport) wait(inR, outW, errW *os.File) error {
	if t.cmd != nil {
		return t.cmd.Wait()
	}
	defer closeAll(inR, outW, errW)
	return t.opts.Serve(inR, outW, errW)
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu   sync.Mutex // guards buf
	max  int
	mask func(string) string // applied to each line before it is clipped (nil: none)
	buf  []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
	}
	return len(p), nil
}

// lines returns up to n last non-empty lines.
func (b *tailBuffer) lines(n int) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for l := range bytes.SplitSeq(b.buf, []byte{'\n'}) {
		if l = bytes.TrimRight(l, "\r"); len(bytes.TrimSpace(l)) > 0 {
			if b.mask != nil {
				l = []byte(b.mask(string(l)))
			}
			out = append(out, string(clip(l, 300)))
		}
	}
	if len(out) > n {
		out = keepCause(out, n)
	}
	return out
}

// keepCause is the last n of lines, unless none of them reads as an error
// and an earlier line does (a server that says why it stops, then prints
// its usage): that line comes first, then how many were left out, then
// the last lines.
func keepCause(lines []string, n int) []string {
	last := lines[len(lines)-n:]
	if n < 3 || slices.ContainsFunc(last, readsAsError) {
		return last
	}
	for i := len(lines) - n - 1; i >= 0; i-- {
		if readsAsError(lines[i]) {
			rest := lines[len(lines)-(n-2):]
			return append([]string{lines[i], fmt.Sprintf("… (%d lines)", len(lines)-(n-2)-i-1)}, rest...)
		}
	}
	return last
}

// readsAsError says whether a line of a server's stderr says why it
// failed, in the words programs use for it.
func readsAsError(line string) bool {
	l := strings.ToLower(line)
	return slices.ContainsFunc([]string{"error", "fatal", "panic", "exception", "traceback", "failed", "cannot", "can't", "unknown option", "unknown flag", "invalid", "not found", "no such", "denied", "refused"},
		func(w string) bool { return strings.Contains(l, w) })
}

func clip(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return []byte(safetext.Clip(string(b), n))
}

func quoteClip(b []byte, n int) string {
	if len(b) <= n {
		return fmt.Sprintf("%q", b)
	}
	return fmt.Sprintf("%q… (%d more bytes)", b[:n], len(b)-n)
}
