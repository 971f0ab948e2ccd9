// Package keeper keeps an MCP session open between mcpv commands. A keeper
// is an mcpv process in the background that opened the session once and
// serves commands on a Unix socket (0600, in a 0700 directory, the peer's
// uid checked); each command attaches, speaks JSON-RPC through it as it
// would to the server, and leaves. The keeper relays each command's
// requests with ids of its own toward the server, routes answers, progress
// and the server's questions back to the command they belong to, and
// answers what belongs to no command by the session's own settings.
//
// On the socket, each line is one JSON object. A command first sends a
// control line ({"attach":{}}, {"status":{}} or {"stop":{}}); an attach is
// answered with {"hello":{...}}, then the command's lines are envelopes
// {"msg":JSON-RPC,"headers":[...],"seek":"tool"} and the keeper's are
// JSON-RPC messages, until a last {"closed":"why"} when the session ends.
package keeper

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/mcp"
)

// Info describes a running keeper: what session start prints and session
// list shows (secrets masked).
type Info struct {
	Name            string    `json:"name"`
	Target          string    `json:"target"`
	PID             int       `json:"pid"`
	ProtocolVersion string    `json:"protocolVersion"`
	Era             string    `json:"era"`
	Started         time.Time `json:"started"`
	LastUsed        time.Time `json:"lastUsed"`
	State           string    `json:"state"` // ready, or stopping
	Clients         int       `json:"clients"`
	Idle            string    `json:"idle"` // the idle limit; "0s" never
	Socket          string    `json:"socket"`
	Log             string    `json:"log"`
}

// hello is the keeper's answer to an attach.
type hello struct {
	State mcp.State `json:"state"`
	// Secrets are the session's secrets (its headers, tokens, env values),
	// which the command masks in what it writes, as a one-shot command
	// masks its own. Only a process of the keeper's user gets them.
	Secrets []string `json:"secrets,omitempty"`
	// Answers are the session's answers to the server's requests (roots,
	// elicitation, sampling, the log level), for the command to answer
	// those that come to it as the session would.
	Answers json.RawMessage `json:"answers,omitempty"`
}

// control is a command's first line, or a keeper's control line.
type control struct {
	Attach *struct{} `json:"attach,omitempty"`
	Status *struct{} `json:"status,omitempty"`
	Stop   *struct{} `json:"stop,omitempty"`

	Hello   *hello     `json:"hello,omitempty"`
	Info    *Info      `json:"info,omitempty"`
	Closed  *string    `json:"closed,omitempty"`
	Kind    *errorKind `json:"kind,omitempty"` // of Closed
	Failed  *failed    `json:"failed,omitempty"`
	Stopped *bool      `json:"stopped,omitempty"`
}

// failed is the keeper's word that a command's request failed on its way
// to the server, a transport failure of that request alone.
type failed struct {
	ID    json.RawMessage `json:"id"`
	Error string          `json:"error"`
	Kind  *errorKind      `json:"kind,omitempty"`
}

// errorKind carries across the socket the typed error within a failure
// of the server's side, for the command to rebuild it, and so exit as a
// one-shot command would (a 401 is exit 5, a timeout 124): at most one is
// set. A failure of no known kind is a transport error (exit 4).
type errorKind struct {
	Auth    *mcp.AuthError    `json:"auth,omitempty"`
	Status  *mcp.StatusError  `json:"status,omitempty"`
	Timeout *mcp.TimeoutError `json:"timeout,omitempty"`
}

// kindOf is the kind of err, nil when it is none of them.
func kindOf(err error) *errorKind {
	var k errorKind
	if errors.As(err, &k.Auth) || errors.As(err, &k.Status) || errors.As(err, &k.Timeout) {
		return &k
	}
	return nil
}

// carried is a failure that crossed the socket: the keeper's message, and
// the typed error within it, rebuilt.
type carried struct {
	msg string
	err error
}

func (e *carried) Error() string { return e.msg }
func (e *carried) Unwrap() error { return e.err }

// rebuild is the error of msg and kind, as the keeper had it.
func rebuild(msg string, kind *errorKind) error {
	switch {
	case kind == nil:
	case kind.Auth != nil:
		return &carried{msg, kind.Auth}
	case kind.Status != nil:
		return &carried{msg, kind.Status}
	case kind.Timeout != nil:
		return &carried{msg, kind.Timeout}
	}
	return errors.New(msg)
}

// envelope carries a command's JSON-RPC message with what the transport
// toward the server needs beside it.
type envelope struct {
	Msg     json.RawMessage   `json:"msg"`
	Headers []mcp.ParamHeader `json:"headers,omitempty"`
	// Seek is the tool a tools/list request looks for (mcp.ToolSought):
	// the keeper answers it from the pages it keeps with a page of that
	// tool alone when it can, as the command's walk would have found it.
	Seek string `json:"seek,omitempty"`
}

// CheckName refuses a session name that could not be a file name of its
// own in the session directory (safedir.CheckName, the one rule of such
// names). Every path of a session is made from a name that passed it
// (PathsOf), wherever the name came from.
func CheckName(name string) error {
	if err := safedir.CheckName("the name", name); err != nil {
		return fmt.Errorf("session name %w", err)
	}
	return nil
}

// Paths are a session's socket, info and lock files in dir.
type Paths struct{ Socket, Info, Lock string }

// PathsOf names the files of session name in dir, once the name is checked.
func PathsOf(dir, name string) (Paths, error) {
	if err := CheckName(name); err != nil {
		return Paths{}, err
	}
	base := filepath.Join(dir, name)
	return Paths{Socket: base + ".sock", Info: base + ".json", Lock: base + ".lock"}, nil
}

// ErrNoSession is a session that is not running.
type ErrNoSession struct{ Name string }

func (e *ErrNoSession) Error() string {
	return fmt.Sprintf("no session %q is running; start it with 'mcpv session start %s ...'", e.Name, e.Name)
}

// Dir is the directory of the session sockets (Path), and the directory
// above it from which every one must be the user's alone (Root).
type Dir struct{ Path, Root string }

// The first lines a command sends, each a control with one member, kept
// as bytes: a command encodes nothing else of the kind, and encoding a
// control would first build the encoders of every member it may hold.
var (
	attachLine = []byte(`{"attach":{}}` + "\n")
	statusLine = []byte(`{"status":{}}` + "\n")
	stopLine   = []byte(`{"stop":{}}` + "\n")
)

// dial connects to the keeper of name and sends the first line. Nothing is
// sent before the directories, the socket file and the process listening
// on it are known to be the user's: another user's socket would be handed
// the command's arguments. Nothing is made: with no directory, no session
// runs.
func dial(d Dir, name string, first []byte) (net.Conn, *bufio.Reader, error) {
	p, err := PathsOf(d.Path, name)
	if err != nil {
		return nil, nil, err
	}
	if err := safedir.Check(d.Root, d.Path); err != nil {
		return nil, nil, err
	}
	fi, err := os.Lstat(p.Socket)
	if errors.Is(err, os.ErrNotExist) {
		cleanStale(p)
		return nil, nil, &ErrNoSession{name}
	}
	if err != nil {
		return nil, nil, err
	}
	if err := ownSocket(p.Socket, fi); err != nil {
		return nil, nil, refused(name, fmt.Errorf("%s %w", p.Socket, err))
	}
	c, err := net.DialTimeout("unix", p.Socket, 5*time.Second)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errkind.Refused(err) {
			cleanStale(p)
			return nil, nil, &ErrNoSession{name}
		}
		return nil, nil, err
	}
	if err := checkPeer(c); err != nil {
		c.Close()
		return nil, nil, refused(name, fmt.Errorf("the process on %s: %w", p.Socket, err))
	}
	if _, err := c.Write(first); err != nil {
		c.Close()
		return nil, nil, err
	}
	return c, bufio.NewReaderSize(c, 64<<10), nil
}

// refused is a session mcpv will not speak to.
func refused(name string, err error) error {
	return &mcp.TransportError{Op: "session " + name, Err: fmt.Errorf("refused: %w", err)}
}

// cleanStale removes the files of a keeper that died without removing
// them; while a keeper holds the session's lock, they are its own.
func cleanStale(p Paths) {
	if held(p.Lock) {
		return
	}
	os.Remove(p.Socket)
	os.Remove(p.Info)
}

// readControl reads one control line. A hello, the first line of a
// command's way to its first request, is walked rather than decoded
// (parseHello): encoding/json would first build its picture of each type
// the line holds.
func readControl(r *bufio.Reader) (control, error) {
	line, err := readLine(r)
	if err != nil {
		return control{}, err
	}
	if h, ok := parseHello(line); ok {
		return control{Hello: h}, nil
	}
	var c control
	if err := json.Unmarshal(line, &c); err != nil {
		return control{}, fmt.Errorf("the session keeper sent a line that is not JSON")
	}
	return c, nil
}

// maxLine bounds one line on the socket, as a stdio server's are bounded.
const maxLine = 256 << 20

// readLine reads one line, without its end, into a slice of its own. A
// line longer than r's buffer is kept in pieces as it comes and joined
// once at its size: grown by append, it would be copied over and over and
// leave about three times itself behind for the collector.
func readLine(r *bufio.Reader) ([]byte, error) {
	chunk, err := r.ReadSlice('\n')
	var pieces [][]byte
	size := 0
	for errors.Is(err, bufio.ErrBufferFull) {
		if size += len(chunk); size > maxLine {
			return nil, fmt.Errorf("a line longer than %d bytes", maxLine)
		}
		pieces = append(pieces, bytes.Clone(chunk))
		chunk, err = r.ReadSlice('\n')
	}
	if err != nil {
		return nil, err
	}
	return bytes.Join(append(pieces, chunk[:len(chunk)-1]), nil), nil
}

// Status asks a running keeper for its Info.
func Status(d Dir, name string) (Info, error) {
	c, r, err := dial(d, name, statusLine)
	if err != nil {
		return Info{}, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	ctl, err := readControl(r)
	if err == nil && ctl.Info == nil {
		err = errors.New("its answer holds no status")
	}
	if err != nil {
		return Info{}, fmt.Errorf("session %q did not answer its status: %v", name, err)
	}
	return *ctl.Info, nil
}

// Names lists the sessions that have files in dir.
func Names(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".sock"); ok && CheckName(name) == nil {
			names = append(names, name)
		}
	}
	return names, nil
}

// Stop asks the keeper of name to end the session, and waits (up to wait)
// until it has: the server shut down, the lock released and the keeper's
// process gone. A keeper whose socket was removed cannot be asked: it is
// sent SIGTERM, found by the pid in the lock it holds (it would end by
// itself soon, see checkEvery).
func Stop(d Dir, name string, wait time.Duration) error {
	p, _ := PathsOf(d.Path, name)
	pid := holder(p.Lock)
	c, r, err := dial(d, name, stopLine)
	if errors.As(err, new(*ErrNoSession)) && pid > 0 && holder(p.Lock) == pid { // still that keeper's: no pid of another process signalled
		terminate(pid) // as session start ends a keeper that is not to stay
		return awaitEnd(p, pid, name, wait)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(wait))
	for {
		// The keeper closes the connection when it is done, and says
		// Stopped once the server is shut down; its own process ends
		// after either, its lock with it.
		if ctl, err := readControl(r); err != nil || ctl.Stopped != nil {
			return awaitEnd(p, pid, name, wait)
		}
	}
}

// awaitEnd waits until no keeper holds the lock of p and the process pid
// (the keeper that held it, 0 if none was seen) has ended: the lock is
// released a moment before the process exits, and a caller told the
// session stopped may look for the process at once.
func awaitEnd(p Paths, pid int, name string, wait time.Duration) error {
	for end := time.Now().Add(wait); held(p.Lock) || alive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			return fmt.Errorf("session %q did not stop within %v", name, wait)
		}
	}
	return nil
}
