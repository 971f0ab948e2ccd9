package connect

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/serverstate"
)

// remember opens what is kept of the server s names between runs, for a
// session whose hooks ask for it (Hooks.Remember); nil otherwise.
func remember(ctx context.Context, s *Settings, env Env, h Hooks) *serverstate.Store {
	if !h.Remember || s.Session != "" || s.ResumeSession != "" {
		return nil
	}
	dir, root := env.stateDir("servers")
	kept := serverstate.Open(dir, root, identity(ctx, s, env, h), nil)
	kept.DefaultTTL = s.ListTTL
	kept.Fresh = s.Fresh || s.Pin != "" // a pin is held to what the server lists now
	return kept
}

// identity tells the server s names, and the credentials sent to it, from
// every other: by digests of what they are, never their values.
func identity(ctx context.Context, s *Settings, env Env, h Hooks) serverstate.Identity {
	server := digest()
	if s.URL == "" {
		dir := cmp.Or(env.Path(s.Dir), env.Cwd)
		server.add("stdio", dir, s.Framing)
		server.add(s.Command...)
		server.add(serverEnv(s.Env)...) // the credentials of a stdio server are its environment
		server.add(filesNamed(s, dir)...)
		return serverstate.Identity{Server: server.sum(), Private: true}
	}
	server.add("http", s.URL, s.Mode, s.CACert)
	server.add(fileIdentity(env.Path(s.CACert)))
	creds := digest()
	var headers []string
	for name, values := range s.Header {
		for _, v := range values {
			headers = append(headers, strings.ToLower(name)+": "+v)
		}
	}
	slices.Sort(headers)
	creds.add(headers...)
	a := s.Auth
	creds.add(a.Grant, a.ClientID, a.ClientSecret, a.ClientKey, fileIdentity(env.Path(a.ClientKey)), a.ClientMetadataURL,
		a.IDPTokenEndpoint, a.IDPClientID, a.IDToken, a.Assertion, a.DPoP)
	private := true
	if s.AuthMode(h) != "none" && s.Header.Get("Authorization") == "" && !s.Untrusted {
		tokens, ok := tokensOf(ctx, s.URL, env)
		creds.add(tokens...)
		private = ok
	}
	return serverstate.Identity{Server: server.sum(), Credentials: creds.sum(), Private: private}
}

// shellBookkeeping are variables a shell sets for itself that no server
// is configured by: the last command's path (which differs with the way
// mcpv was started), the shell's depth, the directory before.
var shellBookkeeping = []string{"_", "SHLVL", "OLDPWD"}

// serverEnv is a stdio server's environment as it identifies the server:
// sorted, without shellBookkeeping.
func serverEnv(env []string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(shellBookkeeping, name)
	})
	slices.Sort(out)
	return out
}

// tokensOf is what mcpv holds from the server's authorization servers:
// each record's token, which identifies whose they are; ok false when the
// store cannot be read, and the credentials cannot be told.
func tokensOf(ctx context.Context, url string, env Env) ([]string, bool) {
	canon, err := oauth.CanonicalResource(url)
	if err != nil {
		return nil, true // no OAuth for such a URL
	}
	records, err := env.OAuthStore().Find(ctx, canon)
	if err != nil {
		return nil, false
	}
	var out []string
	for _, r := range records {
		out = append(out, r.Issuer, r.Resource, r.Client.ID, string(rawjson.Marshal(r.Token)))
	}
	return out, true
}

// filesNamed identifies the files a stdio server's command line names (the
// program, found on the server's PATH, a script given to an interpreter):
// the server rebuilt or edited is another server.
func filesNamed(s *Settings, dir string) []string {
	var out []string
	for i, w := range s.Command {
		p := w
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if i == 0 && !strings.ContainsRune(w, filepath.Separator) && !strings.ContainsRune(w, '/') {
			p = onPath(w, s.Env)
		}
		if id := fileIdentity(p); id != "" {
			out = append(out, w, id)
		}
	}
	return out
}

// onPath is the file a program name runs, looked for on PATH in env.
func onPath(name string, env []string) string {
	for _, kv := range env {
		path, ok := strings.CutPrefix(kv, "PATH=")
		if !ok {
			continue
		}
		for _, d := range filepath.SplitList(path) {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				return p
			}
		}
	}
	return ""
}

// fileIdentity is a regular file's size and time, "" for a path that is
// none.
func fileIdentity(path string) string {
	fi, err := os.Stat(path) // "" is no file either
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return fmt.Sprintf("%s %d %d", path, fi.Size(), fi.ModTime().UnixNano())
}

// digester hashes words, each with its length, so that no two lists of
// words hash alike.
type digester struct{ h hash.Hash }

func digest() digester { return digester{sha256.New()} }

func (d digester) add(words ...string) {
	var b []byte // "len:word;" for each word, in one write
	for _, w := range words {
		b = append(append(append(strconv.AppendInt(b, int64(len(w)), 10), ':'), w...), ';')
	}
	d.h.Write(b)
}

func (d digester) sum() string { return hex.EncodeToString(d.h.Sum(nil)) }
