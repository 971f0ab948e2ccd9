package commands

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/duration"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/keeper"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

type sessionCmd struct {
	Start sessionStartCmd `cmd:"" help:"Open a session in the background, for later commands' --session NAME."`
	List  sessionListCmd  `cmd:"" help:"List the running sessions."`
	Stop  sessionStopCmd  `cmd:"" help:"End a session (or --all): the server is shut down as a one-shot command would."`
}

func (c *sessionCmd) Help() string {
	return `A session outlives one command: 'mcpv session start NAME' starts a keeper (mcpv itself, in the background) that starts the server or connects to it once, with every session-shaping flag of the command line (the server, --env, -H, --root, --elicitation, --sampling-cmd, the protocol pin, OAuth), and serves later commands given --session NAME (or MCPV_SESSION) on a Unix socket only the user can use. A stateful server keeps its state between them, tasks made in one command can be collected in another, and no command pays for a server's start-up.

Commands through a session print, exit and stop on Ctrl-C exactly as one-shot commands do; Ctrl-C cancels only that command's request. Several may use one session at once. A question the server asks (elicitation, sampling) goes to the command whose request it came with when one command is waiting, else it is answered by the session's flags.

A keeper ends after --idle without commands (default 30m; 0 never), when its server exits (its commands then exit 4 with the server's stderr), on 'mcpv session stop', or on SIGTERM; it shuts its server down in order and removes its socket. Its log is sessions/NAME.log under the state directory (on Linux ~/.local/state/mcpv, on macOS ~/Library/Application Support/mcpv; 'mcpv help config-files' shows it on this system). OAuth: log in first ('mcpv auth login'); the keeper uses and refreshes the stored tokens but opens no browser.

Examples:

    $ mcpv session start mem -- npx -y @modelcontextprotocol/server-memory
    $ mcpv --session mem call create_entities --args @entities.json
    $ MCPV_SESSION=mem mcpv call read_graph
    $ mcpv session list -q '.sessions[].name'
    $ mcpv session stop mem`
}

type sessionStartCmd struct {
	Name string        `arg:"" name:"name" help:"The session's name: letters, digits, '.', '_' and '-'."`
	Idle time.Duration `name:"idle" default:"30m" help:"End the session after this long without commands; 0 never."`
}

func (c *sessionStartCmd) Help() string {
	return `Returns when the session is open: exit 0 and one JSON line describing it ({"name","target","pid","protocolVersion","era","started",...}), or the error and exit code the same command line would give a one-shot command, with no keeper left behind.`
}

// keeperArg starts mcpv as a session keeper; it is not part of the grammar.
const keeperArg = "__mcpv-session-keeper"

// keeperStart is what session start hands the keeper on its fd 3.
type keeperStart struct {
	Name     string            `json:"name"`
	Idle     time.Duration     `json:"idle"`
	Target   string            `json:"target"`
	Log      string            `json:"log"`
	Settings *connect.Settings `json:"settings"`
}

// keeperStay is the byte session start writes on the keeper's fd 3 once it
// has the keeper's ready line: the keeper may outlive it. The end of fd 3
// without it means session start is gone, and the keeper ends.
const keeperStay = 'k'

// keeperReady is the keeper's one line on its fd 4.
type keeperReady struct {
	Info  *keeper.Info `json:"info,omitempty"`
	Error string       `json:"error,omitempty"`
	Code  int          `json:"code,omitempty"`
}

func (c *sessionStartCmd) Validate() error { return keeper.CheckName(c.Name) }

func (c *sessionStartCmd) notInBatch() {}

func (c *sessionStartCmd) Run(ctx context.Context, s *session, out *console) error {
	if s.settings.Session != "" {
		return usageErrorf("session start opens a session of its own: give it a server, not --session")
	}
	if err := sessionsSupported(); err != nil {
		return &refusal{err.Error()}
	}
	// The keeper makes the directory; a directory that is not the user's
	// alone is said here, before a keeper is started to say it.
	if _, err := keeper.Status(sessionDir(s.env), c.Name); err == nil {
		return &refusal{fmt.Sprintf("session %q is already running; stop it with 'mcpv session stop %s'", c.Name, c.Name)}
	} else if isA[*safedir.Error](err) {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	logDir, logRoot := s.env.SessionLogDir()
	if err := safedir.MkdirAll(logRoot, logDir); err != nil {
		return err
	}
	logPath := filepath.Join(logDir, c.Name+".log")
	// Not emptied here: the keeper begins it anew once it holds the name,
	// and a keeper refused the name leaves the running one's log alone.
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		return err
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		cfgR.Close()
		cfgW.Close()
		return err
	}
	defer readyR.Close()
	cmd := exec.Command(exe, keeperArg)
	cmd.Env, cmd.Dir = s.env.Environ, s.env.Cwd
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{cfgR, readyW}
	cmd.SysProcAttr = keeperProcAttr()
	err = cmd.Start()
	cfgR.Close()
	readyW.Close()
	if err != nil {
		cfgW.Close()
		return &mcp.TransportError{Op: "start the session keeper", Err: err}
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }() // keeper's waiter: ends when the keeper exits
	start := keeperStart{Name: c.Name, Idle: c.Idle, Target: describeTarget(s.settings), Settings: s.settings, Log: logPath}
	json.NewEncoder(cfgW).Encode(start)
	// cfgW stays open until the ready line is read: the keeper watches it,
	// and its end without the acknowledgement (this process gone, by any
	// signal, even one that cuts stopKeeper's wait) ends the keeper and its
	// server. A keeper that is to stay is told so with one byte.
	defer cfgW.Close()

	lines := make(chan keeperReady, 1)
	go func() { // keeper's ready-line reader: ends with the line, or at the pipe's end
		var r keeperReady
		line, err := bufio.NewReader(readyR).ReadBytes('\n')
		if err != nil || json.Unmarshal(line, &r) != nil {
			r = keeperReady{Error: "the session keeper ended before the session was open", Code: exitcode.Transport}
		}
		lines <- r
	}()
	wait := duration.Sum(s.settings.ConnectTimeout, 30*time.Second)
	if s.settings.ConnectTimeout == 0 {
		wait = 24 * time.Hour
	}
	if out.ios.Status.Enabled() {
		defer connect.ShowWaitLine(out.ios.Status, connect.WaitingFor(s.settings), nil, time.Now(), connect.WaitLineDelay).Stop()
	}
	var r keeperReady
	select {
	case r = <-lines:
	case <-ctx.Done():
		stopKeeper(cmd, exited)
		return context.Cause(ctx)
	case <-time.After(wait):
		stopKeeper(cmd, exited)
		return &mcp.TimeoutError{Method: "session start", Timeout: wait}
	}
	if r.Info == nil {
		stopKeeper(cmd, exited) // it has said why; it must not stay
		return &keeperError{msg: r.Error, code: r.Code}
	}
	if _, err := cfgW.Write([]byte{keeperStay}); err != nil {
		stopKeeper(cmd, exited)
		return &mcp.TransportError{Op: "start the session keeper", Err: err}
	}
	return out.print(mustJSON(r.Info))
}

// keeperError is a keeper's failure to open the session, with the exit
// code the same failure has in a one-shot command.
type keeperError struct {
	msg  string
	code int
}

func (e *keeperError) Error() string { return e.msg }

// describeTarget is the session's server for session list, secrets masked.
func describeTarget(s *connect.Settings) string {
	if s.URL != "" {
		return redact.URL(s.URL)
	}
	args := redact.ArgSecrets(s.Command)
	words := slices.Clone(s.Command)
	for i, w := range words {
		for _, secret := range args {
			w = strings.ReplaceAll(w, secret, "***")
		}
		words[i] = w
	}
	return strings.Join(words, " ")
}

// sessionDir is the directory of the session sockets. Only a keeper makes
// it (keeper.Listen's caller); every other command finds it or finds no
// session, and keeper.Attach, Status and Stop check its chain.
func sessionDir(env connect.Env) keeper.Dir {
	dir, root := env.SessionDir()
	return keeper.Dir{Path: dir, Root: root}
}

type sessionListCmd struct{}

func (c *sessionListCmd) noServer() {}

func (c *sessionListCmd) Help() string {
	return `Prints {"sessions": [{"name", "target", "pid", "protocolVersion", "era", "started", "lastUsed", "state", "clients", "idle", "socket", "log"}]}, targets with secrets masked. The files of a keeper that died are removed.`
}

func (c *sessionListCmd) Run(out *console, env connect.Env) error {
	dir := sessionDir(env)
	if err := safedir.Check(dir.Root, dir.Path); err != nil {
		return err // not listed, rather than a warning for each session in it
	}
	names, err := keeper.Names(dir.Path)
	if err != nil {
		return err
	}
	list := []keeper.Info{}
	for _, name := range names {
		info, err := keeper.Status(dir, name)
		if err != nil {
			if !isA[*keeper.ErrNoSession](err) {
				out.warnf("%v", err)
			}
			continue
		}
		list = append(list, info)
	}
	return out.print(mustJSON(map[string]any{"sessions": list}))
}

type sessionStopCmd struct {
	Name string `arg:"" optional:"" name:"name" help:"The session to end."`
	All  bool   `name:"all" help:"End every running session."`
}

func (c *sessionStopCmd) noServer() {}

func (c *sessionStopCmd) Validate() error {
	if c.Name == "" {
		return nil
	}
	return keeper.CheckName(c.Name)
}

func (c *sessionStopCmd) Run(out *console, env connect.Env) error {
	if (c.Name == "") == !c.All {
		return usageErrorf("session stop: give a session name or --all")
	}
	dir := sessionDir(env)
	names := []string{c.Name}
	if c.All {
		if err := safedir.Check(dir.Root, dir.Path); err != nil {
			return err
		}
		var err error
		if names, err = keeper.Names(dir.Path); err != nil {
			return err
		}
	}
	stopped := []string{}
	var first error
	for _, name := range names {
		err := keeper.Stop(dir, name, 45*time.Second)
		switch {
		case err == nil:
			stopped = append(stopped, name)
		case isA[*keeper.ErrNoSession](err) && c.All:
		case first == nil:
			first = err
		}
	}
	if first != nil {
		if isA[*keeper.ErrNoSession](first) {
			return &refusal{first.Error()}
		}
		return first
	}
	return out.print(mustJSON(map[string]any{"stopped": stopped}))
}

// runKeeper is the keeper process: it reads what session start sent on fd
// 3, opens the session, says so on fd 4 and serves until the session ends.
// servers records its server's process group while it runs, as a one-shot
// command's.
func runKeeper(ctx context.Context, ios *output.Streams, env connect.Env, servers *mcp.ProcessGroups) int {
	cfg, ready := os.NewFile(3, "start"), os.NewFile(4, "ready")
	say := func(r keeperReady) {
		ready.Write(append(mustJSON(r), '\n'))
		ready.Close()
	}
	var start keeperStart
	dec := json.NewDecoder(cfg)
	if cfg == nil || ready == nil || dec.Decode(&start) != nil || start.Settings == nil {
		fmt.Fprintln(ios.Err, "mcpv: the session keeper is started by 'mcpv session start'")
		return exitcode.Usage
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stayed := make(chan struct{})
	go watchStarter(io.MultiReader(dec.Buffered(), cfg), stayed, cancel) // starter watcher: ends with fd 3's end or the stay byte
	log := output.NewLogger(ios.Err)
	fail := func(err error) int {
		code := exitCode(err)
		say(keeperReady{Error: err.Error() + exitcode.Hint(err), Code: code})
		log.Error(err.Error())
		return code
	}
	dir := sessionDir(env)
	if err := safedir.MkdirAll(dir.Root, dir.Path); err != nil {
		return fail(err)
	}
	ln, err := keeper.Listen(dir.Path, start.Name)
	if err != nil {
		return fail(&refusal{err.Error()})
	}
	logw, err := keeper.OpenLog(start.Log)
	if err != nil {
		ln.Release()
		return fail(err)
	}
	defer logw.Close()
	// The server's stream is bounded by the log's rate; the keeper's own
	// lines (why it ended above all) are not.
	own := redact.NewScrubber(logw)
	server := own.Writer(logw.Server())
	defer func() { own.Flush(); server.Flush() }()
	k := &keeper.Keeper{Log: output.NewLogger(own), Answers: sessionAnswers(start.Settings.Answers, env), Held: stayed}
	secret := func(s ...string) { own.Add(s...); k.AddSecret(s...) }
	secret(start.Settings.Secrets...)
	// The server inherits the keeper's environment as a one-shot command's
	// does its: the secrets there are masked as that command's are, and
	// why the session did not open (the server's words) is logged masked.
	secret(redact.EnvSecrets(env.Environ)...)
	log = output.NewLogger(own)
	h := connect.Hooks{
		Client:         mcp.Implementation{Name: "mcpv", Version: Version},
		Stderr:         server,
		Log:            k.Log,
		Secret:         secret,
		Sent:           own.Add,
		Mask:           own.String,
		OnNotification: k.Notify,
		Route:          k.Route,
		ReadGate:       k.ReadGate,
		Groups:         servers,
	}
	conn, err := connect.Open(ctx, start.Settings, env, h)
	if err != nil {
		ln.Release()
		return fail(err)
	}
	k.Client = conn.Client
	k.Info = keeper.Info{Name: start.Name, Target: start.Target, PID: os.Getpid(), ProtocolVersion: conn.Client.ProtocolVersion(),
		Era: map[bool]string{true: "modern", false: "legacy"}[conn.Client.Modern()], Started: time.Now().UTC().Truncate(time.Second), Socket: ln.Paths.Socket, Log: start.Log}
	info := k.Info
	info.State, info.Idle, info.LastUsed = "ready", start.Idle.String(), info.Started
	say(keeperReady{Info: &info})
	why := k.Serve(ctx, ln, start.Idle)
	if cause := context.Cause(ctx); errors.Is(cause, errStarterGone) {
		why = cause.Error()
	}
	fmt.Fprintf(own, "mcpv: %s\n", why)
	return exitcode.OK
}

// errStarterGone ends a keeper whose session start went before it was
// told to stay.
var errStarterGone = errors.New("the session start that asked for this session is gone; the session ends")

// watchStarter reads the keeper's fd 3 after the start's settings: the stay
// byte lets the keeper outlive its starter, and closes stayed (the idle
// countdown begins); the end of the pipe without it (the starter exited,
// however it was ended) cancels the keeper's context, which ends the
// session's opening or its serving, and its server.
func watchStarter(r io.Reader, stayed chan<- struct{}, cancel context.CancelCauseFunc) {
	b := make([]byte, 1)
	for {
		n, err := r.Read(b)
		if n == 1 && b[0] == keeperStay {
			close(stayed)
			return
		}
		if err != nil {
			cancel(errStarterGone)
			return
		}
	}
}
