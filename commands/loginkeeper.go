package commands

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/oauth"
)

// loginKeeperArg starts mcpv as the process that waits for a login handed
// off (oauth.HandOff); it is not part of the grammar.
const loginKeeperArg = "__mcpv-login-keeper"

// loginKeeperStart is what the login keeper reads on its pipe: the login
// (secrets and all, never on a command line) and how to reach the token
// endpoint.
type loginKeeperStart struct {
	HandOff   *oauth.HandOff `json:"handOff"`
	CACert    string         `json:"cacert,omitempty"`
	UserAgent string         `json:"userAgent,omitempty"`
	Timeout   time.Duration  `json:"timeout,omitempty"` // each request's bound, the command's --timeout
}

// handOffLogin starts a login keeper for each login handed off: the
// loopback listener goes to it as a file, the login on a pipe; the
// store's pending file says who waits and until when.
func handOffLogin(s *connect.Settings, env connect.Env) func(*oauth.HandOff, net.Listener) error {
	return func(h *oauth.HandOff, ln net.Listener) error {
		var lf *os.File // the redirect's listener; none for a device login
		if h.Device == nil {
			tl, ok := ln.(*net.TCPListener)
			if !ok {
				return errors.New("the redirect listens on more than one address")
			}
			var err error
			if lf, err = tl.File(); err != nil {
				return err
			}
			defer lf.Close()
		}
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		store := env.OAuthStore()
		old, _ := store.LoadPending(h.Server) // superseded once this one's file is written
		pr, pw, err := os.Pipe()
		if err != nil {
			return err
		}
		defer pw.Close()
		cmd := exec.Command(exe, loginKeeperArg)
		cmd.Env, cmd.Dir = env.Environ, env.Cwd
		cmd.ExtraFiles = []*os.File{pr}
		if lf != nil {
			cmd.ExtraFiles = append(cmd.ExtraFiles, lf)
		}
		cmd.SysProcAttr = keeperProcAttr() // it outlives the command, apart from its terminal
		err = cmd.Start()
		pr.Close()
		if err != nil {
			return err
		}
		defer cmd.Process.Release()
		p := pendingOf(h, cmd.Process.Pid)
		if err := store.SavePending(h.Server, p); err != nil {
			cmd.Process.Kill()
			return err
		}
		old.Supersede(&http.Client{Timeout: 5 * time.Second})
		if err := json.NewEncoder(pw).Encode(loginKeeperStart{HandOff: h, CACert: s.CACert, UserAgent: "mcpv/" + Version, Timeout: s.Timeout}); err != nil {
			cmd.Process.Kill()
			return err
		}
		return nil
	}
}

// runLoginKeeper waits for the login handed to it on fd 3 (the loopback
// listener on fd 4), then records how it ended where 'mcpv auth wait'
// reads it.
func runLoginKeeper(ctx context.Context, env connect.Env) int {
	cfg := os.NewFile(3, "login")
	var start loginKeeperStart
	err := json.NewDecoder(io.LimitReader(cfg, 16<<20)).Decode(&start)
	cfg.Close()
	if err != nil || start.HandOff == nil {
		return exitcode.Usage
	}
	h := start.HandOff
	var ln net.Listener
	if h.Device == nil {
		lnf := os.NewFile(4, "listener")
		ln, err = net.FileListener(lnf)
		lnf.Close()
		if err != nil {
			return exitcode.Transport
		}
	}
	store := env.OAuthStore()
	p := pendingOf(h, os.Getpid())
	hc, err := connect.LoginHTTPClient(start.CACert, start.UserAgent, start.Timeout)
	switch {
	case err != nil:
	case h.Device != nil:
		err = h.CompleteDevice(ctx, hc, store)
	default:
		err = h.Complete(ctx, ln, hc, store)
	}
	p.Done = err == nil
	if err != nil {
		p.Error = err.Error()
	}
	// The outcome is written only while the pending file is this
	// process's: a newer login of the same server owns it once it took
	// this one's place (and wrote it before it told this one so).
	if now, lerr := store.LoadPending(h.Server); lerr == nil && now != nil && now.PID == p.PID && !errors.Is(err, oauth.ErrSuperseded) {
		if store.SavePending(h.Server, p) != nil {
			return exitcode.Auth
		}
	}
	if err != nil {
		return exitcode.Auth
	}
	return exitcode.OK
}

// pendingOf is what the store says of h while process pid waits for it.
func pendingOf(h *oauth.HandOff, pid int) oauth.Pending {
	p := oauth.Pending{PID: pid, URL: h.StartURL(), Expires: h.Expires}
	if h.Device != nil {
		p.UserCode, p.Note = h.Device.UserCode, h.Device.Elsewhere
	} else {
		p.Port = h.Port()
	}
	return p
}
