//go:build unix && e2e

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// The signal stress test: SIGINT, SIGTERM and SIGHUP sent at random moments
// (once, or twice: a second Ctrl-C) of every kind of run (a call, a list, a
// task, a session's start, a command attached to a session, the session's
// keeper), against servers that starve the CPU, stop reading their stdin,
// are stopped, ignore the end of their input and SIGTERM, or are still
// starting, with mcpv's stderr a pipe or a terminal that reads, stalls, or
// is mcpv's own and takes a typed ^C. Every run must end with 130 within
// the documented bound, and leave no process of its server behind. A
// signal in mcpv's first milliseconds, before it handles signals, ends it
// as it ends any program; such a run passes only if no server started.
//
// go test runs a short form; MCPV_SIGNAL_STRESS=N runs N runs,
// MCPV_SIGNAL_STRESS_SERVER="npx -y @modelcontextprotocol/server-everything"
// adds runs against that server (scripts/signal-stress.sh), and
// MCPV_SIGNAL_STRESS_ONLY=WORDS keeps the kinds of run whose names hold
// WORDS; MCPV_SIGNAL_STRESS_SEED repeats a run's draws.

// signalBound is how long a run may take to end after its signal: the
// documented shutdown (cancel 1 s, stdin 2 s, SIGTERM 2 s, then SIGKILL)
// on a loaded machine, with room to spare, but short of the 10 s after
// which mcpv ends whatever holds it up: a run that needs those 10 s has a
// wait that does not watch the signal. A terminal that stops reading
// holds up every write to stderr, and gets stalledBound.
const (
	signalBound  = 9 * time.Second
	stalledBound = 20 * time.Second
)

type stressKind struct {
	name string
	// behaviour is the fake's; args the command's words before the server.
	behaviour string
	args      []string
	// weight is how often the kind is drawn, relative to the others.
	weight int
	// run, when set, runs the kind itself (the session kinds); else the
	// command runs against a fake of its own.
	run func(t *testing.T, p plan) stressResult
	// stop: the test stops the server (SIGSTOP) once it has started.
	stop bool
	// pin runs mcpv and its server on one CPU.
	pin bool
	// term puts mcpv's stderr on a terminal (Linux): "read" as a terminal
	// does, "stall" read until a moment before the signal and then no more
	// (a terminal that stopped: scrolled back, ^S, a frozen connection);
	// "ctty" makes it mcpv's controlling terminal, its stdin too, with mcpv
	// in the foreground, and SIGINT is a ^C typed on it.
	term string
}

// plan is when a run gets its signals: sig after delay, and again after
// again more when again is not zero (a second Ctrl-C).
type plan struct {
	sig          syscall.Signal
	delay, again time.Duration
	// coins are drawn for the kinds that vary more (the real server's:
	// typed on a terminal, on one loaded CPU).
	coins [2]bool
}

func (p plan) String() string {
	if p.again == 0 {
		return fmt.Sprintf("%v after %v", p.sig, p.delay.Round(time.Microsecond))
	}
	return fmt.Sprintf("%v after %v and again %v later", p.sig, p.delay.Round(time.Microsecond), p.again.Round(time.Microsecond))
}

type stressResult struct {
	kind    string
	plan    plan
	failure string        // "" when the run ended as it must
	took    time.Duration // from the signal to the end
	early   bool          // ended by the signal before mcpv handled signals
}

type stress struct {
	sessions *sessions // the attached kinds share its session "kept"
	bigArgs  string    // a file of arguments larger than a pipe holds
	hugeArgs string    // larger than a socket holds
	extra    []string  // MCPV_SIGNAL_STRESS_SERVER's words
}

func TestSignalStress(t *testing.T) {
	testkit.SkipLong(t, "40 runs of the signal cases, some with a stalled terminal")
	t.Parallel()
	runs := 40
	if n, err := strconv.Atoi(os.Getenv("MCPV_SIGNAL_STRESS")); err == nil && n > 0 {
		runs = n
	}
	st := &stress{sessions: newSessions(t)}
	st.bigArgs = filepath.Join(t.TempDir(), "args.json")
	if err := os.WriteFile(st.bigArgs, []byte(`{"pad":"`+strings.Repeat("x", 256<<10)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	st.hugeArgs = filepath.Join(t.TempDir(), "huge.json")
	if err := os.WriteFile(st.hugeArgs, []byte(`{"pad":"`+strings.Repeat("x", 4<<20)+`"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if words := strings.Fields(os.Getenv("MCPV_SIGNAL_STRESS_SERVER")); len(words) > 0 {
		st.extra = words
	}
	kinds := stressKinds(st)
	if only := os.Getenv("MCPV_SIGNAL_STRESS_ONLY"); only != "" {
		kinds = slices.DeleteFunc(kinds, func(k stressKind) bool { return !strings.Contains(k.name, only) })
		if len(kinds) == 0 {
			t.Fatalf("MCPV_SIGNAL_STRESS_ONLY=%s names no kind of run", only)
		}
	}
	var total int
	for _, k := range kinds {
		total += k.weight
		if k.name == "attached command" {
			st.sessions.startSession("kept", newServer(t, "hang,slow=5"))
		}
	}
	seed := uint64(time.Now().UnixNano())
	if s, err := strconv.ParseUint(os.Getenv("MCPV_SIGNAL_STRESS_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d (MCPV_SIGNAL_STRESS_SEED), %d runs", seed, runs)
	rng := rand.New(rand.NewPCG(seed, seed))
	type job struct {
		n    int
		kind stressKind
		plan plan
	}
	jobs := make(chan job)
	results := make(chan stressResult)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { // ends when jobs is closed
			defer wg.Done()
			for j := range jobs {
				// Each run a test of its own, on this goroutine, where its
				// helpers may end it (t.Fatal) and not the whole stress.
				r := stressResult{kind: j.kind.name, plan: j.plan, failure: "the run's test ended it (see its log)"}
				t.Run(fmt.Sprintf("%03d %s", j.n, j.kind.name), func(t *testing.T) {
					r = st.one(t, j.kind, j.plan)
					if r.failure != "" {
						t.Errorf("%v: %s", r.plan, r.failure)
					}
				})
				results <- r
			}
		}()
	}
	go func() { // ends when every job is handed out
		sigs := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
		for i := range runs {
			k := kinds[0]
			// Every kind at least once, then drawn by weight.
			if i < len(kinds) {
				k = kinds[i]
			} else {
				n := rng.IntN(total)
				for _, c := range kinds {
					if n -= c.weight; n < 0 {
						k = c
						break
					}
				}
			}
			p := plan{sig: sigs[rng.IntN(len(sigs))], delay: randomMoment(rng), coins: [2]bool{rng.IntN(2) == 0, rng.IntN(2) == 0}}
			if rng.IntN(4) == 0 {
				p.again = randomMoment(rng)
			}
			jobs <- job{i, k, p}
		}
		close(jobs)
		wg.Wait()
		close(results)
	}()
	var all []stressResult
	failed := map[string]int{}
	for r := range results {
		all = append(all, r)
		if r.failure != "" {
			failed[r.kind]++
		}
	}
	summarize(t, all, failed)
}

// randomMoment is when a run gets its signal: log-uniform from 1 ms to
// 3 s, so that mcpv's first milliseconds (signals not handled yet, the
// server starting) get about as many runs as the seconds of a call.
func randomMoment(rng *rand.Rand) time.Duration {
	lo, hi := math.Log(1e-3), math.Log(3)
	return time.Duration(math.Exp(lo+rng.Float64()*(hi-lo)) * float64(time.Second))
}

func summarize(t *testing.T, all []stressResult, failed map[string]int) {
	byKind := map[string][]time.Duration{}
	early := 0
	for _, r := range all {
		if r.failure == "" {
			byKind[r.kind] = append(byKind[r.kind], r.took)
		}
		if r.early {
			early++
		}
	}
	var names []string
	for k := range byKind {
		names = append(names, k)
	}
	for k := range failed {
		if _, ok := byKind[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%d runs, %d failed, %d ended by the signal before mcpv handled signals\n", len(all), sumOf(failed), early)
	for _, k := range names {
		d := byKind[k]
		sorted := slices.Sorted(slices.Values(d))
		med, max := time.Duration(0), time.Duration(0)
		if len(sorted) > 0 {
			med, max = sorted[len(sorted)/2], sorted[len(sorted)-1]
		}
		fmt.Fprintf(&b, "  %-28s ok %3d  failed %3d  exit after the signal: median %v, max %v\n", k, len(d), failed[k], med.Round(time.Millisecond), max.Round(time.Millisecond))
	}
	t.Log(b.String())
}

func sumOf(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func stressKinds(st *stress) []stressKind {
	call := []string{"call", "slow", "--no-validate"}
	kinds := []stressKind{
		{name: "call", behaviour: "hang,grandchild", args: call, weight: 4},
		{name: "call after a list", behaviour: "hang,slow=20", args: []string{"call", "x"}, weight: 3},
		{name: "list", behaviour: "pages=1000000,slow=10", args: []string{"list-tools"}, weight: 3},
		{name: "task", behaviour: "tasks=working,poll=20", args: []string{"call", "job", "--task"}, weight: 3},
		{name: "watch", behaviour: "updates=1,grandchild", args: []string{"watch", "fake://a"}, weight: 2},
		{name: "still starting", behaviour: "slow-start=4000,hang,grandchild", args: call, weight: 3},
		{name: "CPU-starved", behaviour: "busy=2,hang", args: call, weight: 2, pin: true},
		{name: "deaf to a large call", behaviour: "deaf", args: []string{"call", "slow", "--no-validate", "--args", "@" + st.bigArgs}, weight: 2},
		{name: "stopped", behaviour: "hang,grandchild", args: call, weight: 2, stop: true},
		{name: "ignores the end", behaviour: "hang,ignore-exit,grandchild", args: call, weight: 1},
		{name: "progress on a terminal", behaviour: "log-flood=100000000", args: []string{"call", "x", "--no-validate"}, weight: 3, term: "read"},
		{name: "stalled terminal", behaviour: "log-flood=100000000", args: []string{"call", "x", "--no-validate"}, weight: 2, term: "stall"},
		{name: "Ctrl-C typed", behaviour: "hang,slow-start=300,grandchild", args: []string{"call", "x"}, weight: 3, term: "ctty"},
		{name: "session start", weight: 2, run: st.sessionStart},
		{name: "attached command", weight: 3, run: st.attached},
		{name: "keeper", weight: 2, run: st.keeperSignalled},
		{name: "attached to a stopped keeper", weight: 2, run: st.stoppedKeeper},
		{name: "HTTP", weight: 3, run: st.overHTTP},
	}
	if p, err := openPTY(); err != nil {
		kinds = slices.DeleteFunc(kinds, func(k stressKind) bool { return k.term != "" })
	} else {
		p.close()
	}
	if st.extra != nil {
		kinds = append(kinds, stressKind{name: "real server", weight: 6, run: st.realServer})
	}
	return kinds
}

// one runs one kind once.
func (st *stress) one(t *testing.T, k stressKind, p plan) stressResult {
	if k.run != nil {
		r := k.run(t, p)
		r.kind, r.plan = k.name, p
		return r
	}
	res := stressResult{kind: k.name, plan: p}
	srv := newServer(t, k.behaviour)
	mark := markOf(srv)
	args := append(append([]string(nil), k.args...), "--env", markVar+"="+mark)
	args = append(args, srv.args()...)
	name := mcpvBin
	if k.pin {
		args = append([]string{"-c", "0", mcpvBin}, args...)
		name = "taskset"
	}
	r := &run{cmd: exec.Command(name, args...)}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	var term *terminal
	if k.term != "" {
		var err error
		if term, err = newTerminal(r.cmd, k.term == "ctty"); err != nil {
			res.failure = err.Error()
			return res
		}
		defer term.close()
	}
	if err := r.cmd.Start(); err != nil {
		res.failure = err.Error()
		return res
	}
	var helpers sync.WaitGroup
	ended := make(chan struct{})
	if term != nil {
		var stall time.Duration = -1
		if k.term == "stall" {
			stall = p.delay / 2
		}
		helpers.Add(1)
		go func() { defer helpers.Done(); term.read(stall, ended) }() // ends with the run
	}
	if k.stop {
		helpers.Add(1)
		go func() { defer helpers.Done(); stopServer(srv, ended) }() // ends with the run at the latest
	}
	send := r.signal
	if k.term == "ctty" {
		send = term.typing(r)
	}
	limit := signalBound
	if k.term == "stall" {
		limit = stalledBound
	}
	res.took, res.early, res.failure = signalRunWithin(r, p, send, func() bool { return exists(srv.pid) }, limit)
	close(ended)
	helpers.Wait()
	if left := leftovers(mark); left != "" && res.failure == "" {
		res.failure = "the server outlived mcpv: " + left
	}
	if res.failure != "" {
		res.failure += "\nstderr: " + r.stderr.String()
		if term != nil {
			res.failure += term.tail()
		}
	}
	return res
}

// stopServer stops the server's process group (SIGSTOP) once it has
// started, unless the run ends first.
func stopServer(srv *server, ended <-chan struct{}) {
	for {
		if b, err := os.ReadFile(srv.pid); err == nil && len(b) > 0 {
			pid, _ := strconv.Atoi(string(b))
			syscall.Kill(-pid, syscall.SIGSTOP)
			return
		}
		select {
		case <-ended:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// terminal is a pseudo-terminal as mcpv's stderr, read by the test.
type terminal struct {
	*pty
	mu   sync.Mutex // guards last
	last []byte     // the end of what was read
}

// newTerminal makes a terminal cmd's stderr, and with ctty its stdin and
// controlling terminal, cmd in the foreground.
func newTerminal(cmd *exec.Cmd, ctty bool) (*terminal, error) {
	p, err := openPTY()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = p.tty
	if ctty {
		cmd.Stdin = p.tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	}
	cmd.Env = append(os.Environ(), "TERM=xterm")
	return &terminal{pty: p}, nil
}

// typing sends SIGINT as a user does, typing ^C on the terminal (the
// terminal sends it to its foreground process group), and other signals
// to r.
func (t *terminal) typing(r *run) func(syscall.Signal) {
	return func(sig syscall.Signal) {
		if sig == syscall.SIGINT {
			t.master.Write([]byte{3})
			return
		}
		r.signal(sig)
	}
}

// read reads the terminal as an emulator does, and stops reading after
// stall (never, when negative) or when ended is closed.
func (t *terminal) read(stall time.Duration, ended <-chan struct{}) {
	got := make(chan []byte)
	go func() { // ends when the terminal's last holder is gone or the test closes it
		buf := make([]byte, 4096)
		for {
			n, err := t.master.Read(buf)
			if n > 0 {
				got <- bytes.Clone(buf[:n])
			}
			if err != nil {
				close(got)
				return
			}
		}
	}()
	var stop <-chan time.Time
	if stall >= 0 {
		stop = time.After(stall)
	}
	for {
		select {
		case b, ok := <-got:
			if !ok {
				return
			}
			t.mu.Lock()
			t.last = append(t.last, b...)
			if len(t.last) > 4096 {
				t.last = t.last[len(t.last)-4096:]
			}
			t.mu.Unlock()
		case <-stop:
			// Read no more: the reader goroutine blocks on got until the
			// test closes the terminal, and mcpv's writes fill it up.
			<-ended
			go func() { // ends when the reader has given up
				for range got {
				}
			}()
			return
		case <-ended:
			go func() { // ends when the reader has given up
				for range got {
				}
			}()
			return
		}
	}
}

func (t *terminal) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	last := t.last[max(0, len(t.last)-400):]
	return fmt.Sprintf("\nthe terminal's last %d bytes: %q", len(last), last)
}

// signalRun waits p.delay, sends p.sig (and again, if asked) and waits for
// the end: 130, or, before mcpv handles signals, death by the signal with
// no server started.
func signalRun(r *run, p plan, send func(syscall.Signal), started func() bool) (took time.Duration, early bool, failure string) {
	return signalRunWithin(r, p, send, started, signalBound)
}

// signalRunWithin is signalRun with a bound of its own.
func signalRunWithin(r *run, p plan, send func(syscall.Signal), started func() bool, limit time.Duration) (took time.Duration, early bool, failure string) {
	done := make(chan error, 1)
	go func() { done <- r.cmd.Wait() }() // ends when mcpv does (killed below at the latest)
	select {
	case <-done:
		return 0, false, fmt.Sprintf("ended before the signal: exit %d", r.cmd.ProcessState.ExitCode())
	case <-time.After(p.delay):
	}
	send(p.sig)
	begin := time.Now()
	var again <-chan time.Time
	if p.again > 0 {
		again = time.After(p.again)
	}
	bound := time.After(limit)
	for took == 0 {
		select {
		case <-done:
			took = time.Since(begin)
		case <-again:
			send(p.sig)
		case <-bound:
			r.cmd.Process.Kill()
			<-done
			return limit, false, fmt.Sprintf("still running %v after the signal", limit)
		}
	}
	ws := r.cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Exited() && ws.ExitStatus() == 130:
		return took, false, ""
	case ws.Signaled() && ws.Signal() == p.sig && !started():
		return took, true, "" // as any program ends before it handles signals: nothing to shut down
	case ws.Signaled():
		return took, false, fmt.Sprintf("killed by %v", ws.Signal())
	default:
		return took, false, fmt.Sprintf("exit %d, want 130", ws.ExitStatus())
	}
}

func (r *run) signal(sig syscall.Signal) { r.cmd.Process.Signal(sig) }

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// markVar is set in each stress run's server (and so in every process it
// starts) to a value of the run's own, by which leftovers finds them.
const markVar = "MCPV_STRESS_MARK"

func markOf(srv *server) string { return filepath.Dir(srv.pid) }

// leftovers names the processes, zombies aside, whose environment holds
// markVar=mark, once they have had time to go (a keeper closing its server
// in order on a loaded machine; the minute is a hang guard, waited out only
// when one stays), and kills them: none must be left.
func leftovers(mark string) string {
	var left []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if left = marked(mark); len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	for _, l := range left { // leave nothing to the next run
		pid, _ := strconv.Atoi(strings.Fields(l)[0])
		syscall.Kill(pid, syscall.SIGKILL)
		syscall.Kill(pid, syscall.SIGCONT)
	}
	return strings.Join(left, "; ")
}

// marked lists the live processes (pid and command line) whose
// environment holds markVar=mark.
func marked(mark string) []string {
	needle := []byte(markVar + "=" + mark + "\x00")
	var found []string
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(env, needle) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if zombie(pid) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
		found = append(found, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return found
}

// sessionStart signals `mcpv session start` while its server is still
// starting: no keeper and no server may stay.
func (st *stress) sessionStart(t *testing.T, p plan) stressResult {
	srv := newServer(t, "slow-start=4000,grandchild")
	mark := markOf(srv)
	name := "s" + strconv.FormatInt(time.Now().UnixNano(), 36)
	// The mark in session start's environment is in its keeper's too, so
	// that a keeper left behind is found as its server is.
	r := st.startMarked(t, mark, append([]string{"session", "start", name, "--env", markVar + "=" + mark}, srv.args()...)...)
	var res stressResult
	res.took, res.early, res.failure = signalRun(r, p, r.signal, func() bool { return exists(srv.pid) })
	if res.failure == "" {
		if left := leftovers(mark); left != "" {
			res.failure = "the keeper or its server outlived session start: " + left
		} else if code, out, _ := st.mcpv(t, "session", "list", "-r", "-q", ".sessions[].name"); code != 0 || strings.Contains(out, name) {
			res.failure = fmt.Sprintf("the session stayed: session list exit %d, %q", code, out)
		}
	}
	if res.failure != "" {
		res.failure += "\nstderr: " + r.stderr.String()
	}
	st.mcpv(t, "session", "stop", name)
	return res
}

// start starts mcpv in the sessions' world, to be waited for.
func (st *stress) start(t *testing.T, args ...string) *run {
	return st.startMarked(t, "", args...)
}

// startMarked starts mcpv as start does, with markVar=mark in its
// environment when mark is not "".
func (st *stress) startMarked(t *testing.T, mark string, args ...string) *run {
	r := &run{cmd: exec.Command(mcpvBin, args...)}
	r.cmd.Env = st.sessions.env
	if mark != "" {
		r.cmd.Env = append(slices.Clone(r.cmd.Env), markVar+"="+mark)
	}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill() })
	return r
}

// mcpv runs mcpv to its end in the sessions' world.
func (st *stress) mcpv(t *testing.T, args ...string) (code int, stdout, stderr string) {
	r := st.start(t, args...)
	code, _ = r.wait(t, 60*time.Second)
	return code, r.stdout.String(), r.stderr.String()
}

// attached signals a command attached to a session: it ends with 130,
// and the session goes on.
func (st *stress) attached(t *testing.T, p plan) stressResult {
	r := st.start(t, "--session", "kept", "call", "x")
	var res stressResult
	// Ended before it handled signals, it had not reached the session.
	res.took, res.early, res.failure = signalRun(r, p, r.signal, func() bool { return false })
	if res.failure == "" {
		if code, out, errs := st.mcpv(t, "--session", "kept", "ping"); code != 0 || out != "{}\n" {
			res.failure = fmt.Sprintf("the session after the signal: exit %d, stdout %q, stderr %q", code, out, errs)
		}
	}
	if res.failure != "" {
		res.failure += "\nstderr: " + r.stderr.String()
	}
	return res
}

// startKeeper starts a session, named prefix and a unique suffix, on a
// server of the behaviour given and marked for leftovers: its name, the
// mark and the keeper's pid. A session that did not start is res's failure.
func (st *stress) startKeeper(t *testing.T, behaviour, prefix string, res *stressResult) (name, mark string, pid int) {
	srv := newServer(t, behaviour)
	mark = markOf(srv)
	name = prefix + strconv.FormatInt(time.Now().UnixNano(), 36)
	code, out, errs := st.mcpv(t, append([]string{"session", "start", name, "--env", markVar + "=" + mark}, srv.args()...)...)
	pid, err := keeperPID(out)
	if code != 0 || err != nil {
		res.failure = fmt.Sprintf("session start: exit %d, %q, %q", code, out, errs)
	}
	return name, mark, pid
}

// keeperSignalled signals a session's keeper while a command waits on it:
// the keeper ends, its server with it, and the command ends too.
func (st *stress) keeperSignalled(t *testing.T, p plan) stressResult {
	var res stressResult
	name, mark, pid := st.startKeeper(t, "hang,grandchild", "k", &res)
	if res.failure != "" {
		return res
	}
	cmd := st.start(t, "--session", name, "call", "x", "--no-validate")
	time.Sleep(p.delay)
	syscall.Kill(pid, p.sig)
	begin := time.Now()
	if p.again > 0 {
		time.Sleep(p.again)
		syscall.Kill(pid, p.sig)
	}
	if !waitGone(pid) {
		res.failure = fmt.Sprintf("the keeper still runs %v after %v", time.Since(begin), p.sig)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	res.took = time.Since(begin)
	done := make(chan struct{})
	go func() { cmd.cmd.Wait(); close(done) }() // ends when the command does (killed below at the latest)
	select {
	case <-done:
	case <-time.After(signalBound):
		cmd.cmd.Process.Kill()
		<-done
		if res.failure == "" {
			res.failure = "the attached command outlived its keeper"
		}
	}
	if left := leftovers(mark); left != "" && res.failure == "" {
		res.failure = "the server outlived its keeper: " + left
	}
	return res
}

// stoppedKeeper signals a command that sends a large request to a keeper
// stopped (SIGSTOP) at a random moment before: its write waits on a
// keeper that reads nothing, and must give up with the signal.
func (st *stress) stoppedKeeper(t *testing.T, p plan) stressResult {
	var res stressResult
	name, mark, pid := st.startKeeper(t, "hang", "p", &res)
	if res.failure != "" {
		return res
	}
	defer func() {
		syscall.Kill(pid, syscall.SIGCONT)
		st.mcpv(t, "session", "stop", name)
		if left := leftovers(mark); left != "" && res.failure == "" {
			res.failure = "the server outlived its session: " + left
		}
	}()
	r := st.start(t, "--session", name, "call", "x", "--no-validate", "--args", "@"+st.hugeArgs)
	stopAt := time.Duration(rand.New(rand.NewPCG(uint64(p.delay), 1)).Int64N(int64(p.delay) + 1))
	stopped := make(chan struct{})
	go func() { // ends after stopAt
		defer close(stopped)
		time.Sleep(stopAt)
		syscall.Kill(pid, syscall.SIGSTOP)
	}()
	// The keeper is stopped before it is let go on: a run that ended
	// before stopAt must not leave it stopped, with its server, after the
	// deferred SIGCONT.
	defer func() { <-stopped }()
	// Ended before it handled signals, it had not reached the session.
	res.took, res.early, res.failure = signalRun(r, p, r.signal, func() bool { return false })
	if res.failure != "" {
		res.failure += fmt.Sprintf("\n(the keeper stopped %v after the command started) stderr: %s", stopAt, r.stderr.String())
	}
	return res
}

// overHTTP signals a call to an HTTP server that holds it for ever, in a
// JSON answer or an event stream, and, half the time, holds every request
// 1.5 s first, as a server still starting behind its port does.
func (st *stress) overHTTP(t *testing.T, p plan) stressResult {
	ready := time.Now()
	if p.coins[0] {
		ready = ready.Add(1500 * time.Millisecond)
	}
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{SSE: p.coins[1], Post: func(x *mcptest.Exchange) bool {
		select {
		case <-time.After(time.Until(ready)):
		case <-x.R.Context().Done():
			return true
		}
		if x.RPCMethod != "tools/call" {
			return false
		}
		if p.coins[1] {
			x.SSE()
		}
		x.Hold()
		return true
	}})
	r := st.start(t, "--url", srv.URL, "call", "x", "--no-validate")
	var res stressResult
	res.took, res.early, res.failure = signalRun(r, p, r.signal, func() bool { return false })
	if res.failure != "" {
		res.failure += fmt.Sprintf("\n(held at first: %v, a stream: %v) stderr: %s", p.coins[0], p.coins[1], r.stderr.String())
	}
	return res
}

func keeperPID(out string) (int, error) {
	var info struct{ PID int }
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.PID == 0 {
		return 0, fmt.Errorf("no pid in %q", out)
	}
	return info.PID, nil
}

// realServer runs a long call against MCPV_SIGNAL_STRESS_SERVER, its
// moments scaled to the server's start-up and call (up to 12 s). Half the
// runs are typed on mcpv's controlling terminal; half run on one CPU
// beside a process that spins on it.
func (st *stress) realServer(t *testing.T, p plan) stressResult {
	mark := filepath.Join(t.TempDir(), "mark")
	args := []string{"call", "trigger-long-running-operation", "duration:=8", "steps:=4", "--env", markVar + "=" + mark, "--"}
	args = append(args, st.extra...)
	res := stressResult{}
	loaded := p.coins[0]
	r := &run{cmd: exec.Command(mcpvBin, args...)}
	if loaded {
		r.cmd = exec.Command("taskset", append([]string{"-c", "0", mcpvBin}, args...)...)
		spin := exec.Command("taskset", "-c", "0", "sh", "-c", "while :; do :; done")
		if err := spin.Start(); err != nil {
			res.failure = err.Error()
			return res
		}
		defer func() { spin.Process.Kill(); spin.Wait() }()
	}
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	send := r.signal
	var term *terminal
	if p.coins[1] {
		var err error
		if term, err = newTerminal(r.cmd, true); err == nil {
			defer term.close()
			send = term.typing(r)
		}
	}
	if err := r.cmd.Start(); err != nil {
		res.failure = err.Error()
		return res
	}
	ended := make(chan struct{})
	var reader sync.WaitGroup
	if term != nil {
		reader.Add(1)
		go func() { defer reader.Done(); term.read(-1, ended) }() // ends with the run
	}
	p.delay *= 4
	res.took, res.early, res.failure = signalRun(r, p, send, func() bool { return len(marked(mark)) > 0 })
	close(ended)
	reader.Wait()
	if left := leftovers(mark); left != "" && res.failure == "" {
		res.failure = "the server outlived mcpv: " + left
	}
	if res.failure != "" {
		res.failure += fmt.Sprintf("\n(on one loaded CPU: %v) stderr: %s", loaded, r.stderr.String())
		if term != nil {
			res.failure += term.tail()
		}
	}
	return res
}
