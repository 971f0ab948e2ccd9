package oauth

// The listener the browser is redirected to. By default mcpv takes a free
// port on 127.0.0.1 (RFC 8252 §7.3, §8.3). A redirect URI registered
// beforehand fixes the host, port and path: its port is taken or the flow
// fails, since another port would not be the registered URI; and a host
// name (localhost) is served on every loopback address a browser may
// resolve it to, IPv4 and IPv6, so that no other program can take the one
// left free and receive the code.

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/errkind"
)

// freePortTries bounds the search for a free port that both loopback
// addresses have.
const freePortTries = 8

// ListenRedirect opens the loopback listener for r and returns the redirect
// URI it answers at. A fixed port another program holds is a
// *PortInUseError.
func ListenRedirect(r Redirect) (net.Listener, string, error) {
	addrs := loopbackAddrs(r.Host)
	for try := 0; ; try++ {
		ln, port, err := listenAll(addrs, r.Port)
		if err == nil {
			return ln, r.uri(port), nil
		}
		if r.Port == 0 && errors.As(err, new(*PortInUseError)) && try < freePortTries {
			continue // the free port of the first address is taken on another
		}
		return nil, "", err
	}
}

// loopbackAddrs are the addresses a redirect to host reaches: the address
// itself, or for a name (localhost, or one the user says leads here) both
// loopback addresses.
func loopbackAddrs(host string) []string {
	bare := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	switch ip, err := netip.ParseAddr(bare); {
	case host == "":
		return []string{"127.0.0.1"}
	case err == nil:
		return []string{ip.Unmap().String()}
	}
	return []string{"127.0.0.1", "::1"}
}

// listenAll listens on port (0: a free one, chosen by the first address)
// at every address. The IPv6 loopback address may be missing (IPv6 off):
// then nothing can listen there, and the IPv4 one serves alone.
func listenAll(addrs []string, port int) (net.Listener, int, error) {
	var lns []net.Listener
	fail := func(err error) (net.Listener, int, error) {
		for _, ln := range lns {
			ln.Close()
		}
		return nil, 0, err
	}
	for i, a := range addrs {
		network := "tcp4"
		if strings.Contains(a, ":") {
			network = "tcp6"
		}
		hostPort := net.JoinHostPort(a, strconv.Itoa(port))
		ln, err := net.Listen(network, hostPort)
		switch {
		case err != nil && errkind.AddrInUse(err):
			return fail(&PortInUseError{Addr: hostPort})
		case err != nil && i > 0 && errkind.NoAddress(err):
			continue // no IPv6 loopback here: nobody can take it either
		case err != nil:
			return fail(fmt.Errorf("listening on %s for the redirect: %w", hostPort, err))
		}
		lns = append(lns, ln)
		port = cmp.Or(port, ln.Addr().(*net.TCPAddr).Port)
	}
	if len(lns) == 1 {
		return lns[0], port, nil
	}
	return newMultiListener(lns), port, nil
}

// ListenAt listens at a loopback redirect URI registered before, so that a
// client registered on an earlier run can be used again.
func ListenAt(redirectURI string) (net.Listener, error) {
	r, ok := parseRedirect(redirectURI)
	if !ok || r.Port == 0 || !IsLoopbackRedirectHost(r.Host) {
		return nil, fmt.Errorf("%s is not a loopback redirect URI of mcpv's", messageSafe(redirectURI))
	}
	ln, _, err := listenAll(loopbackAddrs(r.Host), r.Port)
	return ln, err
}

// parseRedirect reads a redirect URI of mcpv's form back into its parts.
func parseRedirect(uri string) (Redirect, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "http" || u.Port() == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return Redirect{}, false
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil || port <= 0 || port > 65535 {
		return Redirect{}, false
	}
	return Redirect{Host: u.Hostname(), Port: port, Path: u.EscapedPath()}, true
}

// multiListener accepts on several listeners at once.
//
// Concurrency: one goroutine per listener hands its connections to Accept
// over conns; Close closes done and every listener, which ends each
// goroutine (its Accept fails, or its hand-off sees done and closes the
// connection it holds).
type multiListener struct {
	lns   []net.Listener
	conns chan net.Conn // unbuffered: a connection is handed to one Accept
	done  chan struct{} // closed by Close
	once  sync.Once     // guards the close of done
}

func newMultiListener(lns []net.Listener) *multiListener {
	m := &multiListener{lns: lns, conns: make(chan net.Conn), done: make(chan struct{})}
	for _, ln := range lns {
		// A loopback accept: stopped by Close; ln.Accept fails once ln is closed.
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				select {
				case m.conns <- c:
				case <-m.done:
					c.Close()
					return
				}
			}
		}()
	}
	return m
}

func (m *multiListener) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case <-m.done:
		return nil, net.ErrClosed
	}
}

func (m *multiListener) Close() error {
	m.once.Do(func() {
		close(m.done)
		for _, ln := range m.lns {
			ln.Close()
		}
	})
	return nil
}

func (m *multiListener) Addr() net.Addr { return m.lns[0].Addr() }
