package servefile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// The fuzz targets read serve files and token files as a cloned
// repository may hold them: any bytes are read or refused without a
// panic, within memory in proportion to their size (YAML's aliases
// included), every mistake at a place in the file, and what is read
// holds what the command line relies on.
//
//	go test ./internal/servefile -run '^$' -fuzz '^FuzzParse$' -fuzztime 1m
//	go test ./internal/servefile -run '^$' -fuzz '^FuzzTokenFile$' -fuzztime 1m

// allocBase is the values YAML's aliases may expand to beyond two a byte
// of the file (config's 100,000), then the decoder's own; allocPerByte
// the values made of each byte.
const (
	allocBase    = 32 << 20
	allocPerByte = 512
)

func FuzzParse(f *testing.F) {
	example, err := os.ReadFile("../../examples/gateway.serve.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example, false)
	for _, s := range []string{
		"servers:\n  a: {}\n  b: ~\n  c: {server: a, prefix: '', start: eager, connect_timeout: 5, isolate: true, record: r.json}\n",
		"separator: __\nstart: lazy\nconnect_timeout: 2m\nservers:\n  own: {command: x, args: [-v], env: {A: '1'}, cwd: d, start: lazy, framing: content-length}\n" +
			"  web: {url: 'http://127.0.0.1:1/mcp', headers: {Authorization: Bearer ${T}}, oauth: {client_id: c}, timeout: 1.5}\n",
		"servers:\n  a: {guard: {allow_tools: ['x*'], deny_tools: [y]}, pin: p.json, env: {K: v}, headers: {H: v}, oauth: {grant: client_credentials}, timeout: 3s, protocol_version: '2025-11-25'}\n" +
			"clients:\n  ci: {token_env: CI_TOKEN, servers: [a], guard: {deny_tools: [z]}}\n  desk: {token_file: desk.token}\n  abs: {token_file: /t, servers: []}\n",
		"x-common: &c {timeout: 5}\nservers:\n  a: *c\n  b: {<<: *c, pin: p}\n",
		"servers:\n  a: {args: [x]}\n",
		"servers:\n  a: {}\nclients:\n  ci: {token_env: X, servers: [b]}\n",
		"servers: {a: {prefix: [1]}}\n",
		"servers:\n  a: {}\nclients: [1]\n",
		"servers:\n  \"\": {}\n  \"\\u001b[2J\": {}\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte(`{"servers": {"a": {"command": "x"}, "b": {}}, "clients": {"c": {"token_env": "T"}}}`), true)
	for _, s := range testkit.HostileYAML() {
		f.Add(s, false)
	}
	for _, s := range testkit.HostileJSON() {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, isJSON bool) {
		src := config.Source{Path: "/repo/gateway.serve.yaml", Folder: "/repo", YAML: true, Own: true}
		if isJSON {
			src = config.Source{Path: "/repo/gateway.serve.json", Folder: "/repo", Own: true}
		}
		var file *File
		var err error
		testkit.AllocBounded(t, len(data), allocBase, allocPerByte, func() { file, err = Parse(src, data) })
		if err != nil {
			checkPlace(t, err, data)
			return
		}
		if len(file.Servers) == 0 {
			t.Fatal("a serve file read with no server")
		}
		var names []string
		for _, s := range file.Servers {
			if slices.Contains(names, s.Name) {
				t.Errorf("server %q read twice", s.Name)
			}
			names = append(names, s.Name)
			if s.Entry != nil && s.Config != "" {
				t.Errorf("server %q: config server %q and an entry of its own", s.Name, s.Config)
			}
			for _, start := range []string{s.Start, file.Start} {
				if start != "" && start != "eager" && start != "lazy" {
					t.Errorf("server %q: start %q", s.Name, start)
				}
			}
			if s.ConnectTimeout < 0 || s.Timeout < 0 || s.Line < 1 || s.Col < 1 {
				t.Errorf("server %q: %+v", s.Name, s)
			}
		}
		checkClients(t, file.Clients, "/repo")
		for _, c := range file.Clients {
			for _, name := range c.Servers {
				if !slices.Contains(names, name) {
					t.Errorf("client %q sees %q, which is not served", c.Name, name)
				}
			}
		}
	})
}

func FuzzTokenFile(f *testing.F) {
	testkit.SeedFuzz(f, []string{
		"clients:\n  ci: {token_env: CI_TOKEN, servers: [a, b], guard: {allow_tools: ['a__*']}}\n  desk: {token_file: desk.token}\n",
		"clients: {}\n",
		"clients: ~\n",
		"servers: {}\n",
		"clients:\n  a: {token_file: t, token_env: T}\n",
		"clients:\n  a: {token_file: ../../etc/passwd, servers: ~}\n",
		"clients:\n  a: [token_env]\n",
	}, testkit.HostileYAML())
	f.Fuzz(func(t *testing.T, data []byte) {
		// What ReadClients does once the file is read (safefile.ReadOwn:
		// the user's alone, bounded).
		src := config.Source{Path: "/home/u/.config/mcpv/tokens.yaml", Folder: "/home/u/.config/mcpv", YAML: true}
		var clients []*Client
		var err error
		testkit.AllocBounded(t, len(data), allocBase, allocPerByte, func() {
			var root *yamlnode.Node
			if root, err = parse(src, data, "a token file"); err == nil {
				if err = checkKeys(root, []string{"clients"}, "the top of the file", true); err == nil {
					clients, err = clientsOf(root.Get("clients"), src.Folder)
				}
			}
		})
		if err != nil {
			checkPlace(t, err, data)
			return
		}
		checkClients(t, clients, src.Folder)
	})
}

// checkClients checks that each client has exactly one way to its token,
// a token file being an absolute path (under dir when it was relative).
func checkClients(t *testing.T, clients []*Client, dir string) {
	t.Helper()
	for _, c := range clients {
		if (c.TokenFile == "") == (c.TokenEnv == "") {
			t.Errorf("client %q: token file %q and variable %q: want exactly one", c.Name, c.TokenFile, c.TokenEnv)
		}
		if c.TokenFile != "" && !filepath.IsAbs(c.TokenFile) {
			t.Errorf("client %q: token file %q is not absolute (relative to %s)", c.Name, c.TokenFile, dir)
		}
		if c.Line < 1 || c.Col < 1 {
			t.Errorf("client %q at %d:%d", c.Name, c.Line, c.Col)
		}
	}
}

// checkPlace checks that a mistake is one line at a place in the file
// (but for the YAML reader's own few that come without one).
func checkPlace(t *testing.T, err error, data []byte) {
	t.Helper()
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("a mistake of more than one line: %q", err)
	}
	var pe *yamlnode.Error
	if !errors.As(err, &pe) {
		if !strings.HasPrefix(err.Error(), "yaml: ") {
			t.Errorf("a mistake with no place: %v", err)
		}
		return
	}
	lines := strings.Count(string(data), "\n") + strings.Count(string(data), "\r") + 1
	if pe.Line < 1 || pe.Col < 1 || pe.Line > lines+1 {
		t.Errorf("a mistake at %d:%d of %d lines: %v", pe.Line, pe.Col, lines, err)
	}
}
