package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// The fuzz targets feed arbitrary bytes to the parsers of the config
// formats: JSON (with comments and trailing commas, as VS Code and Cursor
// write it; ~/.claude.json's projects) and YAML. Each checks that parsing
// ends, quickly, without a panic; that errors have a place; that every
// server it returns is well formed; and that the servers survive being
// written out as an mcpv JSON catalog and read back.
//
//	go test ./config -run '^$' -fuzz '^FuzzParseJSON$' -fuzztime 30s
//	go test ./config -run '^$' -fuzz '^FuzzParseYAML$' -fuzztime 30s
//	go test ./config -run '^$' -fuzz '^FuzzStripJSONC$' -fuzztime 30s

// fuzzProject is the project key of ~/.claude.json in the JSON target.
const fuzzProject = "/p"

// parseLimit is how long one parse of a fuzz input may take: inputs are
// small, and the parsers are linear.
const parseLimit = 10 * time.Second

func FuzzParseJSON(f *testing.F) {
	for _, name := range []string{"claude_desktop_config.json", "cursor_mcp.json", "vscode_mcp.json", "claude.json"} {
		addFile(f, name, "/work/proj", fuzzProject)
	}
	for _, s := range []string{
		`{}`,
		`{"mcpServers": {"s": {"command": "x", "args": ["-v", 1, true], "env": {"A": "1", "B": 2}, "cwd": "d", "timeout": 30}}}`,
		`{"servers": {"h": {"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer ${T}"}, "timeout": "1m30s",
		  "oauth": {"clientId": "c", "client_secret": "s", "grant": "client-credentials"}, "protocolVersion": "2025-06-18"}}}`,
		`{"servers": {"e": {"transport": "streamable_http", "http": {"endpoint": "http://h/", "headers": {"X": "y"}}, "envFile": ".env"}}}`,
		`{"projects": {"/p": {"mcpServers": {"a": {"command": "p"}}}}, "mcpServers": {"a": {"command": "u"}, "b": {"url": "http://b/"}}}`,
		"{ // comment\n \"servers\": {\"s\": {\"command\": \"x\",},}, /* block */ }",
		`{"mcpServers": {"s": {"command": "x", "timeout": -1}}}`,
		`{"mcpServers": {"s": {"command": "x", "url": "http://h/"}}}`,
		`{"mcpServers": {"": {"command": "x"}}}`,
		`{"mcpServers": {"s": {"command": "x", "command": "y", "timeout": 1e3, "timeout": "1.5"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, Source{Path: "/p/.mcp.json", Folder: "/p", project: fuzzProject}, data)
	})
}

func FuzzParseYAML(f *testing.F) {
	addFile(f, "servers.yaml", "", "")
	for _, s := range []string{
		``,
		`servers: {}`,
		"servers:\n  s:\n    command: x\n    args: [-v, 1, true, ~x]\n    env: {A: '1', B: 2}\n    timeout: 1.5\n",
		"mcpServers:\n  h:\n    type: sse\n    url: http://h/sse\n    headers:\n      X-Key: ${env:KEY}\n    timeout: \"30\"\n",
		"servers:\n  h:\n    transport: streamable_http\n    http:\n      endpoint: http://h/\n    oauth:\n      client_id: c\n      grant: authorization_code\n",
		"x-common: &env {A: x, B: y}\nservers:\n  a: {command: a, env: *env}\n  b: {command: b, env: *env}\n",
		"servers:\n  a: {command: x}\n  a: {command: y}\n",
		"servers:\n  a:\n    command: x\n    timeout: -5s\n",
		"servers: [1, 2]\n",
		"- 1\n",
		"x-a: &a [x, x]\nx-b: &b [*a, *a]\nx-c: &c [*b, *b]\nservers: {}\n",
		"notes:\n  command: x\nservers: {}\n",
		"servers:\n  1: {command: x, protocol_version: 2025-06-18}\n  ~: {url: 'http://h/'}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, Source{Path: "/p/servers.yaml", Folder: "/p", YAML: true}, data)
	})
}

// FuzzStripJSONC checks that blanking comments and trailing commas keeps
// every byte's place (so errors point at the right line and column), does
// and leaves plain JSON alone.
func FuzzStripJSONC(f *testing.F) {
	for _, s := range []string{
		"{ // c\n \"a\": [1, 2,], /* x\n y */ \"b\": \"// not a comment\", }",
		`{"a": "\"/*", "b": [,]}`,
		"/* unterminated\n{}",
		`{"a": 1}`,
		"[1,/**/]",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out := stripJSONC(data)
		if len(out) != len(data) {
			t.Fatalf("length %d → %d", len(data), len(out))
		}
		for i := range data {
			if (data[i] == '\n') != (out[i] == '\n') {
				t.Fatalf("byte %d: %q → %q: a line break moved", i, data[i], out[i])
			}
			if out[i] != data[i] && out[i] != ' ' {
				t.Fatalf("byte %d: %q → %q: not blanked but changed", i, data[i], out[i])
			}
		}
		// Plain JSON has no comments and no trailing commas: nothing of it
		// is blanked, "//" and "/*" in strings included. (Invalid input may
		// need two passes: of ",,]" one strips the second comma only, and
		// the first is then a syntax error, rightly.)
		if json.Valid(data) && !bytes.Equal(out, data) {
			t.Fatalf("valid JSON changed: %q → %q", data, out)
		}
		if json.Valid(out) && !bytes.Equal(stripJSONC(out), out) {
			t.Fatalf("stripped valid JSON changed: %q → %q", out, stripJSONC(out))
		}
	})
}

// addFile adds testdata/name as a seed, with old replaced by new.
func addFile(f *testing.F, name, old, new string) {
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		f.Fatal(err)
	}
	if old != "" {
		data = bytes.ReplaceAll(data, []byte(old), []byte(new))
	}
	f.Add(data)
}

// parseIn parses data as a file of src within parseLimit; past it, the
// process panics, which the fuzzing engine records as a failure with its
// input.
func parseIn(src Source, data []byte) (*File, error) {
	timer := time.AfterFunc(parseLimit, func() {
		panic(fmt.Sprintf("parsing %d bytes took more than %v: %q", len(data), parseLimit, data[:min(len(data), 512)]))
	})
	defer timer.Stop()
	file := &File{Source: src, Data: data}
	return file, file.parse()
}

func checkParse(t *testing.T, src Source, data []byte) {
	var file *File
	var err error
	// YAML's aliases expand within maxYAMLNodes values; what each byte
	// costs beyond them is bounded too.
	testkit.AllocBounded(t, len(data), 32<<20, 1024, func() { file, err = parseIn(src, data) })
	if err != nil {
		// Every error names a place, but for the YAML reader's own that
		// come without one ("yaml: incomplete UTF-8 octet sequence").
		var pe *yamlnode.Error
		switch {
		case errors.As(err, &pe):
			if pe.Line < 1 || pe.Col < 1 {
				t.Fatalf("an error at %d:%d: %v", pe.Line, pe.Col, err)
			}
		case !src.YAML || !strings.HasPrefix(err.Error(), "yaml: "):
			t.Fatalf("an error without a place: %v", err)
		}
		return
	}
	checkServers(t, file)

	// Written out as mcpv's JSON catalog and read back, the servers are
	// the same.
	catalog := writeCatalog(t, file.Servers)
	back, err := parseIn(Source{Path: "/p/servers.json", Folder: "/p", Own: true}, catalog)
	if err != nil {
		t.Fatalf("the servers written back do not parse: %v\n%s", err, catalog)
	}
	ignore := cmpopts.IgnoreFields(Server{}, "File", "Line", "Col")
	if diff := cmp.Diff(file.Servers, back.Servers, ignore, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("written back as\n%s\nthe servers differ (-read +read back):\n%s", catalog, diff)
	}
}

// checkServers checks what parse promises of every server it returns.
func checkServers(t *testing.T, file *File) {
	t.Helper()
	names := map[string]bool{}
	for _, s := range file.Servers {
		if s.Name == "" {
			t.Errorf("a server without a name: %+v", s)
		}
		if names[s.Name] {
			t.Errorf("server %q returned twice", s.Name)
		}
		names[s.Name] = true
		if s.File != file || s.Line < 1 || s.Col < 1 {
			t.Errorf("server %q: from %p at %d:%d", s.Name, s.File, s.Line, s.Col)
		}
		if (s.Command == "") == (s.URL == "") {
			t.Errorf("server %q: command %q and URL %q: want exactly one", s.Name, s.Command, s.URL)
		}
		switch s.Transport {
		case "stdio":
			if s.Command == "" || len(s.Headers) > 0 {
				t.Errorf("server %q: stdio with command %q and headers %v", s.Name, s.Command, s.Headers)
			}
		case "auto", "streamable-http", "sse":
			if s.URL == "" || len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != "" {
				t.Errorf("server %q: %s with URL %q, args %q, env %v, cwd %q", s.Name, s.Transport, s.URL, s.Args, s.Env, s.Cwd)
			}
		default:
			t.Errorf("server %q: transport %q", s.Name, s.Transport)
		}
		if s.Timeout < 0 {
			t.Errorf("server %q: timeout %v", s.Name, s.Timeout)
		}
		for _, v := range append(append([]Var(nil), s.Env...), s.Headers...) {
			if v.Name == "" || strings.ContainsAny(v.Name, "=\x00") {
				t.Errorf("server %q: variable or header named %q", s.Name, v.Name)
			}
		}
		switch s.OAuth.Grant {
		case "", "authorization_code", "client_credentials", "jwt_bearer":
		default:
			t.Errorf("server %q: oauth grant %q", s.Name, s.OAuth.Grant)
		}
		switch s.OAuth.DPoP {
		case "", "auto", "always", "never":
		default:
			t.Errorf("server %q: oauth dpop %q", s.Name, s.OAuth.DPoP)
		}
	}
}

// writeCatalog writes servers as an mcpv JSON catalog, in order, with the
// field names mcpv's own catalog uses.
func writeCatalog(t *testing.T, servers []*Server) []byte {
	t.Helper()
	var b bytes.Buffer
	str := func(v string) {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
	}
	field := func(first *bool, key string) {
		if !*first {
			b.WriteString(", ")
		}
		*first = false
		str(key)
		b.WriteString(": ")
	}
	vars := func(list []Var) {
		b.WriteString("{")
		for i, v := range list {
			if i > 0 {
				b.WriteString(", ")
			}
			str(v.Name)
			b.WriteString(": ")
			str(v.Value)
		}
		b.WriteString("}")
	}
	b.WriteString("{\"servers\": {\n")
	for i, s := range servers {
		if i > 0 {
			b.WriteString(",\n")
		}
		str(s.Name)
		b.WriteString(": {")
		first := true
		if tr := map[string]string{"stdio": "stdio", "streamable-http": "streamable_http", "sse": "sse"}[s.Transport]; tr != "" {
			field(&first, "transport")
			str(tr)
		}
		for _, kv := range [][2]string{{"command", s.Command}, {"cwd", s.Cwd}, {"url", s.URL}, {"protocol_version", s.ProtocolVersion}} {
			if kv[1] != "" {
				field(&first, kv[0])
				str(kv[1])
			}
		}
		if s.Args != nil {
			field(&first, "args")
			b.WriteString("[")
			for i, a := range s.Args {
				if i > 0 {
					b.WriteString(", ")
				}
				str(a)
			}
			b.WriteString("]")
		}
		if s.Env != nil {
			field(&first, "env")
			vars(s.Env)
		}
		if s.Headers != nil {
			field(&first, "headers")
			vars(s.Headers)
		}
		if s.Timeout != 0 {
			field(&first, "timeout")
			str(s.Timeout.String())
		}
		if s.OAuth != (OAuth{}) {
			field(&first, "oauth")
			b.WriteString("{")
			of := true
			for _, kv := range [][2]string{{"client_id", s.OAuth.ClientID}, {"client_secret", s.OAuth.ClientSecret}, {"client_key", s.OAuth.ClientKey},
				{"client_metadata_url", s.OAuth.ClientMetadataURL}, {"grant", s.OAuth.Grant}} {
				if kv[1] != "" {
					field(&of, kv[0])
					str(kv[1])
				}
			}
			b.WriteString("}")
		}
		if len(s.Warnings) > 0 {
			field(&first, "envFile")
			b.WriteString("null")
		}
		b.WriteString("}")
	}
	b.WriteString("\n}}\n")
	return b.Bytes()
}

// A few hundred bytes of aliases of aliases ("billion laughs") once made
// 10⁸ values and more: a minute and gigabytes of memory, or a crash.
func TestYAMLAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	b.WriteString("servers: {s: {command: x}}\n")
	// Memory, not time, shows the expansion stopped short: 10¹⁰ values
	// would be gigabytes; what the budget lets through is a few
	// megabytes. (No parallel test runs beside this one.)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := parseIn(Source{YAML: true}, []byte(b.String()))
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "aliases expand the file beyond what mcpv reads") {
		t.Errorf("got %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 256<<20 {
		t.Errorf("allocated %d MiB", n>>20)
	}
	// Aliases within reason still work.
	file, err := parseIn(Source{YAML: true}, []byte("x-env: &env {A: x}\nservers:\n  a: {command: a, env: *env}\n  b: {command: b, env: *env}\n"))
	if err != nil || len(file.Servers) != 2 || len(file.Servers[1].Env) != 1 {
		t.Errorf("got %v, %v", file, err)
	}
}
