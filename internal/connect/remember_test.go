package connect

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/serverstate"
)

// TestServerIdentity: a server is told from another by what makes it the
// server it is, and not by what a shell sets for itself; the credentials
// of an HTTP server are told apart by a digest, never their value.
func TestServerIdentity(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "server")
	os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755)
	env := Env{Cwd: dir, GOOS: "linux", Environ: []string{"HOME=" + dir}}
	stdio := func(mod func(s *Settings)) string {
		s := &Settings{Command: []string{prog, "--flag"}, Env: []string{"PATH=/bin", "TOKEN=a", "_=/usr/bin/strace", "SHLVL=2"}, Framing: "auto"}
		if mod != nil {
			mod(s)
		}
		return identity(context.Background(), s, env, Hooks{}).Server
	}
	base := stdio(nil)
	if got := stdio(func(s *Settings) { s.Env = []string{"SHLVL=3", "TOKEN=a", "PATH=/bin", "_=./mcpv", "OLDPWD=/"} }); got != base {
		t.Error("the shell's own variables (or their order) make another server")
	}
	for name, mod := range map[string]func(s *Settings){
		"another argument":    func(s *Settings) { s.Command = []string{prog, "--other"} },
		"another environment": func(s *Settings) { s.Env = []string{"PATH=/bin", "TOKEN=b"} },
		"another directory":   func(s *Settings) { s.Dir = t.TempDir() },
		"another framing":     func(s *Settings) { s.Framing = "content-length" },
	} {
		if stdio(mod) == base {
			t.Errorf("%s: the same server", name)
		}
	}
	later := time.Now().Add(time.Hour)
	os.Chtimes(prog, later, later)
	if stdio(nil) == base {
		t.Error("the program rebuilt: the same server")
	}

	http := func(header, value string) serverstate.Identity {
		s := &Settings{URL: "https://example.com/mcp", Header: map[string][]string{header: {value}}, Auth: Auth{Mode: "none"}}
		return identity(context.Background(), s, env, Hooks{})
	}
	a, b := http("Authorization", "Bearer one"), http("Authorization", "Bearer two")
	if a.Server != b.Server || a.Credentials == b.Credentials || !a.Private {
		t.Errorf("two tokens: %+v, %+v; want one server, two credentials", a, b)
	}
	if c := http("X-Api-Key", "one"); c.Credentials == a.Credentials {
		t.Error("another header, the same credentials")
	}
}

// A digest is of each word's length in bytes, a colon, the word and a
// semicolon, in order: what is kept of a server between runs is found by
// it, so it may not change from one version of mcpv to the next.
func TestDigestOfWords(t *testing.T) {
	d := digest()
	d.add("stdio", "")
	d.add("é<;>", "12:x;")
	want := sha256.Sum256([]byte("5:stdio;0:;5:é<;>;5:12:x;;"))
	if got := d.sum(); got != hex.EncodeToString(want[:]) {
		t.Errorf("digest %s, want %x", got, want)
	}
}
