package commands

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/oauth"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// TestNoConfiguredSecretIsWritten plants secrets in every place a config
// entry can hold one and sweeps the output of every command, verbose or not,
// succeeding or failing, for them.
func TestNoConfiguredSecretIsWritten(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	secrets := []string{"envtok-SECRET-1", "hdr-SECRET-2", "urlpw-SECRET-3", "query-SECRET-4", "var-SECRET-5", "arg-SECRET-6", "cookie-SECRET-7", "flagenv-SECRET-8"}
	w.setenv("MY_TOKEN", "var-SECRET-5")
	web := demoHTTP(t, httpModes["sse"])
	withCreds := strings.Replace(web, "http://", "http://alice:urlpw-SECRET-3@", 1) + "/?api_key=query-SECRET-4"
	headers := `{"Authorization": "Bearer hdr-SECRET-2", "Cookie": "sid=cookie-SECRET-7", "X-Custom": "${MY_TOKEN}"}`
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.json"), `{"servers": {
  "local": {"command": `+q(os.Args[0])+`, "args": ["--api-key=arg-SECRET-6"],
            "env": {"`+mcptest.EnvVar+`": "plain", "API_TOKEN": "envtok-SECRET-1", "SESSION_ID": "${MY_TOKEN}"}},
  "web": {"url": `+q(withCreds)+`, "headers": `+headers+`},
  "down": {"url": "http://bob:urlpw-SECRET-3@127.0.0.1:1/mcp?api_key=query-SECRET-4", "headers": `+headers+`},
  "dead": {"command": "/nonexistent/server", "args": ["--token", "arg-SECRET-6"], "env": {"API_TOKEN": "envtok-SECRET-1"}}
}}`)
	w.write(t, ".mcp.json", `{"mcpServers": {"untrusted": {"command": "srv", "args": ["--api-key=arg-SECRET-6"], "env": {"API_TOKEN": "envtok-SECRET-1"}},
  "untrusted-web": {"url": "http://h/?token=${MY_TOKEN}", "headers": {"Authorization": "Bearer hdr-SECRET-2"}}}}`)

	commands := [][]string{
		{"info"}, {"ping"}, {"list-tools"}, {"call", "echo", "message=hi"}, {"call", "echo", "message=hi", "--dry-run"},
		{"list-resources"}, {"list-resource-templates"}, {"read", "demo://clock"}, {"list-prompts"},
		{"request", "ping"}, {"tasks", "list"}, {"call", "nope"}, {"call", "echo", "bad:=[", "--dry-run"},
	}
	var runs [][]string
	for _, server := range []string{"local", "web"} {
		for _, c := range commands {
			for _, verbose := range []bool{false, true} {
				a := append([]string{"-s", server, "--env", "EXTRA_SECRET=flagenv-SECRET-8"}, c...)
				if server == "web" {
					a = append([]string{"-s", server, "-H", "X-Api-Key: flagenv-SECRET-8"}, c...)
				}
				if verbose {
					a = append([]string{"-v"}, a...)
				}
				runs = append(runs, a)
			}
		}
	}
	runs = append(runs,
		[]string{"servers"}, []string{"servers", "web"}, []string{"servers", "local", "--pretty"},
		[]string{"-v", "ping", "-s", "down"}, []string{"-v", "ping", "-s", "dead"},
		[]string{"-v", "ping", "-s", "untrusted"}, []string{"ping", "-s", "untrusted-web"},
		[]string{"-v", "ping", "-u", withCreds, "-H", "Authorization: Bearer hdr-SECRET-2"},
		[]string{"trust"}, []string{"completions", "bash"},
	)
	ran := map[int]int{}
	for _, a := range runs {
		r := w.mcpv(t, "", a...)
		ran[r.code]++
		for _, s := range secrets {
			if strings.Contains(r.stdout, s) || strings.Contains(r.stderr, s) {
				t.Errorf("%q (exit %d) wrote %s:\nstdout %s\nstderr %s", a, r.code, s, r.stdout, r.stderr)
			}
		}
	}
	// The sweep must have seen success and each kind of failure.
	for _, code := range []int{0, 2, 3, 4} {
		if ran[code] == 0 {
			t.Errorf("no run exited %d: %v", code, ran)
		}
	}
}

// A secret the server writes on stderr is masked even when it straddles two
// of the reads mcpv forwards.
func TestServerStderrSecretSplitAcrossReads(t *testing.T) {
	t.Parallel()
	w := newCfgWorld(t)
	w.setenv("MY_API_KEY", "sk-split-secret-0123456789")
	w.write(t, filepath.Join(w.home, ".config", "mcpv", "servers.yaml"), `servers:
  leaky:
    command: `+q(os.Args[0])+`
    env: {API_KEY: "${MY_API_KEY}", `+mcptest.EnvVar+`: "plain,stderr-env=API_KEY"}
`)
	r := w.mcpv(t, "", "ping", "-s", "leaky")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr tail %q", r.code, r.stderr[max(0, len(r.stderr)-200):])
	}
	if strings.Contains(r.stderr, "sk-split-secret") || !strings.Contains(r.stderr, "***") {
		t.Errorf("stderr ends %q", r.stderr[max(0, len(r.stderr)-100):])
	}
}

// A server that echoes back what it was sent cannot make mcpv print a
// secret: a header from -H @FILE, a stored OAuth token, a password in the
// URL or in an --env value.
func TestSecretsTheServerEchoesAreMasked(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	state := t.TempDir()
	w.setenv("XDG_STATE_HOME", state)
	f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" && x.RPCMethod != "tools/list" {
			return false
		}
		x.Reply(x.Error(-32000, fmt.Sprintf("you sent %s %s %s", x.R.Header.Get("X-Api-Key"), x.R.Header.Get("Authorization"), x.R.URL.RawQuery)))
		return true
	})
	// A token stored for this server, as a login would leave it.
	target := f.URL + "?api_key=url-key-0123456789"
	server, _ := oauth.CanonicalResource(target)
	store := &oauth.Store{Dir: filepath.Join(state, "mcpv", "oauth"), Root: state}
	if err := store.Save(&oauth.Record{Server: server, Issuer: "https://as.example", Resource: server,
		Token: oauth.Token{AccessToken: "stored-token-0123456789", TokenType: "Bearer"}, Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	headers := filepath.Join(t.TempDir(), "headers")
	os.WriteFile(headers, []byte("X-Api-Key: file-key-0123456789\n"), 0o600)

	r := w.mcpv(t, "", "-v", "-u", target, "-H", "@"+headers, "call", "x")
	if r.code != 3 || !strings.Contains(r.stderr, "you sent *** Bearer *** api_key=***") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, secret := range []string{"file-key-0123456789", "stored-token-0123456789", "url-key-0123456789"} {
		if strings.Contains(r.stderr, secret) {
			t.Errorf("stderr shows %s:\n%s", secret, r.stderr)
		}
	}
	// A password inside an --env value, which the server writes on stderr.
	r = w.mcpv(t, "", args([]string{"--env", "DATABASE_URL=postgres://app:db-pass-0123456789@db/x", "ping"}, fake("plain,stderr-env=DATABASE_URL"))...)
	if r.code != 0 || strings.Contains(r.stderr, "db-pass-0123456789") || !strings.Contains(r.stderr, "postgres://app:***@db/x") {
		t.Errorf("--env URL password: exit %d, stderr ends %q", r.code, r.stderr[max(0, len(r.stderr)-120):])
	}
}

// The Basic credential built from a URL's user:password is masked when the
// server echoes it, as the header's Base64 and as the text it decodes to.
func TestBasicCredentialTheServerEchoesIsMasked(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	f := newHTTPFake(t, func(x *mcptest.Exchange) bool {
		if x.RPCMethod != "tools/call" && x.RPCMethod != "tools/list" {
			return false
		}
		auth := x.R.Header.Get("Authorization")
		decoded, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(auth, "Basic "))
		x.Reply(x.Error(-32000, fmt.Sprintf("you sent %s, that is %s", auth, decoded)))
		return true
	})
	target := strings.Replace(f.URL, "http://", "http://user:SECRETPW@", 1)
	r := w.mcpv(t, "", "-v", "-u", target, "call", "x")
	if r.code != 3 || !strings.Contains(r.stderr, "you sent Basic ***") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	for _, secret := range []string{"SECRETPW", base64.StdEncoding.EncodeToString([]byte("user:SECRETPW")), "dXNlcjpTRUNSRVRQVw"} {
		if strings.Contains(r.stderr, secret) {
			t.Errorf("stderr shows %s:\n%s", secret, r.stderr)
		}
	}
}

// auth status, login and logout name the server and the resource a token
// is for with the URL's credentials masked, as everywhere else.
func TestAuthStatusMasksTheURLCredential(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	state := t.TempDir()
	w.setenv("XDG_STATE_HOME", state)
	target := "http://127.0.0.1:1/mcp?api_key=url-key-0123456789"
	server, _ := oauth.CanonicalResource(target)
	store := &oauth.Store{Dir: filepath.Join(state, "mcpv", "oauth"), Root: state}
	if err := store.Save(&oauth.Record{Server: server, Issuer: "https://as.example", Resource: server,
		Token: oauth.Token{AccessToken: "stored-token-0123456789", TokenType: "Bearer"}, Updated: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"status", "logout"} {
		r := w.mcpv(t, "", "auth", sub, "-u", target, "-c")
		if r.code != 0 || !strings.Contains(r.stdout, `"server":"http://127.0.0.1:1/mcp?api_key=***"`) {
			t.Errorf("auth %s: exit %d, stdout %q, stderr %q", sub, r.code, r.stdout, r.stderr)
		}
		if sub == "status" && !strings.Contains(r.stdout, `"resource":"http://127.0.0.1:1/mcp?api_key=***"`) {
			t.Errorf("auth status: stdout %q", r.stdout)
		}
		if strings.Contains(r.stdout+r.stderr, "url-key-0123456789") {
			t.Errorf("auth %s shows the key: %q %q", sub, r.stdout, r.stderr)
		}
	}
}
