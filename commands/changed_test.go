package commands

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// changing is one server, behind one command line or URL, whose spec the
// test changes between runs: over stdio the spec file the fake reads at
// its start, over HTTP the fake a proxy at one URL forwards to.
type changing struct {
	target []string // the flags and arguments that name the server
	serve  func(spec string)
}

func newChanging(t *testing.T, wire string) *changing {
	t.Helper()
	if wire == "stdio" {
		dir, err := os.MkdirTemp("", "spec") // no comma in the path, which MCPV_FAKE splits at
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		path := filepath.Join(dir, "spec.json")
		return &changing{target: fake("spec=" + path), serve: func(spec string) {
			if err := os.WriteFile(path, []byte(spec), 0o600); err != nil {
				t.Fatal(err)
			}
		}}
	}
	var current atomic.Pointer[httputil.ReverseProxy]
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		current.Load().ServeHTTP(w, r)
	}))
	t.Cleanup(proxy.Close)
	return &changing{target: []string{"-u", proxy.URL + "/mcp"}, serve: func(text string) {
		spec, err := mcptest.ParseSpec([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse(mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Spec: spec}).URL)
		p := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
		p.FlushInterval, p.Transport = -1, testkit.Pool(t)
		current.Store(p)
	}}
}

const (
	echoTool  = `{"name":"echo","inputSchema":{"type":"object"}}`
	echo2Tool = `{"name":"echo2","inputSchema":{"type":"object"}}`
	countInt  = `{"name":"count","inputSchema":{"type":"object","properties":{"n":{"type":"integer"}}}}`
	countStr  = `{"name":"count","inputSchema":{"type":"object","properties":{"n":{"type":"string"}}}}`
)

// spec is a spec server's JSON: its era and the members given.
func spec(era string, members ...string) string {
	return `{"era":"` + era + `"` + strings.Join(append([]string{""}, members...), ",") + `}`
}

func tools(items ...string) string { return `"tools":[` + strings.Join(items, ",") + `]` }

// TestRememberedServerThatChanged: whatever is kept of a server (its era,
// its server/discover result, its lists), a server that changed behind the
// same command line or URL is found out in the same run, within the
// connect bound (never the request's, here three minutes): the run works
// in what the server speaks now, and the next run starts there. Each kind
// of kept state, each direction of change, over stdio and HTTP; a server
// that says nothing to what it does not speak is waited for by the probe's
// own waits, seconds each. One run is the exception: a call that went
// first in the era remembered and was met with silence may have acted, and
// fails (exit 4) rather than run twice; the run after it works.
func TestRememberedServerThatChanged(t *testing.T) {
	t.Parallel()
	const hour = `"ttlMs":3600000`
	kept := map[string]string{ // what the first run keeps
		"initialize era":            spec("initialize", tools(echoTool)),
		"modern era":                spec("modern", `"ttlMs":0`, tools(echoTool)),
		"modern era, discover kept": spec("modern", hour, tools(echoTool)),
	}
	changes := []struct {
		name, from, to string
		silent         bool // the server says nothing to what it no longer speaks
	}{
		{"to the initialize era, refusing", "modern era", spec("initialize", tools(echoTool)), false},
		{"to the initialize era, refusing", "modern era, discover kept", spec("initialize", tools(echoTool)), false},
		{"to the initialize era, silent before initialize", "modern era", spec("initialize", `"faults":["mute-early"]`, tools(echoTool)), true},
		{"to the initialize era, silent before initialize", "modern era, discover kept", spec("initialize", `"faults":["mute-early"]`, tools(echoTool)), true},
		{"to the modern era, refusing initialize", "initialize era", spec("modern", tools(echoTool)), false},
		{"to the modern era, silent to initialize", "initialize era", spec("modern", `"mute":["initialize"]`, tools(echoTool)), true},
	}
	for _, wire := range []string{"stdio", "http"} {
		for _, c := range changes {
			t.Run(wire+", "+c.from+", "+c.name, func(t *testing.T) {
				if c.silent {
					testkit.SkipLong(t, "a server silent to the era it no longer speaks: the probe's waits, seconds each")
				}
				t.Parallel()
				w, server := newWorld(t), newChanging(t, wire)
				run := func(connect string) result {
					t.Helper()
					return w.mcpv(t, "", args([]string{"--connect-timeout", connect, "--timeout", "3m", "call", "echo", "-r", "-q", ".content[0].text"}, server.target)...)
				}
				works := func(n int) {
					t.Helper()
					if r := run("1m"); r.code != 0 || r.stdout != "called echo\n" {
						t.Fatalf("run %d: exit %d, stdout %q, stderr %s", n, r.code, r.stdout, r.stderr)
					}
				}
				server.serve(kept[c.from])
				works(1)
				server.serve(c.to)
				if wire == "http" && c.silent && c.to != spec("modern", `"mute":["initialize"]`, tools(echoTool)) {
					// A server that holds every POST before initialize
					// (no session yet) gives no sign of its era over HTTP,
					// where each request is answered on its own: the probe
					// waits for its answer to the connect bound, and the
					// memory is named and forgotten.
					r := run("10s")
					if r.code != 124 || !strings.Contains(r.stderr, "did not answer as remembered from an earlier run") ||
						!strings.Contains(r.stderr, "is forgotten") || strings.Count(r.stderr, "\n") != 1 {
						t.Fatalf("run 2: exit %d, stderr %s; want 124 and one line naming what was kept", r.code, r.stderr)
					}
					if r := run("1s"); r.code != 124 || strings.Contains(r.stderr, "remembered") {
						t.Errorf("run 3: exit %d, stderr %s; want 124 with nothing remembered", r.code, r.stderr)
					}
					return
				}
				if c.silent && c.from == "modern era, discover kept" {
					// The call itself went first, in the era remembered,
					// and the server read it without a word: it may have
					// acted, so it is not sent again in the era found
					// (mcp/resend.go); the era found is kept all the same.
					r := run("1m")
					if r.code != 4 || !strings.Contains(r.stderr, "may or may not have run") || strings.Count(r.stderr, "\n") != 1 {
						t.Fatalf("run 2: exit %d, stderr %s; want 4 and one line saying the call may have run", r.code, r.stderr)
					}
				} else {
					works(2)
				}
				works(3) // in the era found
			})
		}
	}
}

// TestKeptListsOfAServerThatChanged: a list kept by its ttlMs is believed
// until the server shows it changed: a tool, a prompt or a resource
// renamed (refused, with the nearest name listed now), retyped (arguments
// the kept list refuses: listed again), removed, over stdio and HTTP;
// once shown, the list command gives what the server lists now, not what
// was kept; and a list whose cacheScope changed is kept for whom the
// server says now.
func TestKeptListsOfAServerThatChanged(t *testing.T) {
	t.Parallel()
	const hour = `"ttlMs":3600000`
	var (
		toolsWas   = spec("modern", hour, tools(echoTool, countInt))
		greet      = `{"name":"greet","arguments":[{"name":"who","required":true}]}`
		prompts    = func(items ...string) string { return `"prompts":[` + strings.Join(items, ",") + `]` }
		promptsWas = spec("modern", hour, prompts(greet, `{"name":"other"}`))
		resA, resB = `{"uri":"file:///a.txt","name":"a"}`, `{"uri":"file:///b.txt","name":"b"}`
		resources  = func(items ...string) string { return `"resources":[` + strings.Join(items, ",") + `]` }
	)
	cases := []struct {
		name     string
		was, now string   // what the server lists when it is kept, and after
		keep     []string // the command whose lists are kept
		call     []string
		code     int
		stdout   string
		errHas   string
		requests []string
		list     []string // the list command after, which shows what the server says now
		listHas  string
	}{
		{"tool renamed", toolsWas, spec("modern", hour, tools(echo2Tool, countInt)), []string{"call", "echo"}, []string{"call", "echo"}, 3, "", `did you mean "echo2"?`,
			[]string{"tools/call", "server/discover", "tools/list"}, []string{"list-tools"}, `"echo2"`},
		{"tool retyped", toolsWas, spec("modern", hour, tools(echoTool, countStr)), []string{"call", "echo"}, []string{"call", "count", "n=abc", "-r", "-q", ".content[0].text"}, 0, "called count\n", "",
			[]string{"tools/list", "tools/call"}, []string{"list-tools"}, `"string"`},
		{"tool removed", toolsWas, spec("modern", hour, tools(countInt)), []string{"call", "echo"}, []string{"call", "echo"}, 3, "", `"echo"`,
			[]string{"tools/call", "server/discover", "tools/list"}, []string{"list-tools", "-q", "[.tools[].name]", "--compact"}, `["count"]`},
		{"prompt renamed", promptsWas, spec("modern", hour, prompts(strings.Replace(greet, "greet", "greet2", 1), `{"name":"other"}`)), []string{"list-prompts"},
			[]string{"get-prompt", "greet", "who=x"}, 3, "", `did you mean "greet2"?`,
			[]string{"prompts/get", "server/discover", "prompts/list"}, []string{"list-prompts"}, `"greet2"`},
		{"prompt retyped", promptsWas, spec("modern", hour, prompts(`{"name":"greet","arguments":[{"name":"who"},{"name":"lang","required":true}]}`)), []string{"list-prompts"},
			[]string{"get-prompt", "greet", "who=x", "lang=en", "-r", "-q", ".messages[0].content.text"}, 0, "greet\n", "",
			[]string{"prompts/list", "prompts/get"}, []string{"list-prompts"}, `"lang"`},
		{"prompt removed", promptsWas, spec("modern", hour, prompts(`{"name":"other"}`)), []string{"list-prompts"}, []string{"get-prompt", "greet", "who=x"}, 3, "", `no prompt "greet"`,
			[]string{"prompts/get", "server/discover", "prompts/list"}, []string{"list-prompts", "-q", "[.prompts[].name]", "--compact"}, `["other"]`},
		{"resource renamed", spec("modern", hour, resources(resA)), spec("modern", hour, resources(resB)), []string{"list-resources"},
			[]string{"read", "file:///a.txt"}, 3, "", `did you mean "file:///b.txt"?`,
			[]string{"resources/read", "server/discover", "resources/list"}, []string{"list-resources"}, `"file:///b.txt"`},
	}
	for _, wire := range []string{"stdio", "http"} {
		for _, c := range cases {
			t.Run(wire+", "+c.name, func(t *testing.T) {
				t.Parallel()
				w, server := newWorld(t), newChanging(t, wire)
				server.serve(c.was)
				if r := w.mcpv(t, "", args(c.keep, server.target)...); r.code != 0 {
					t.Fatalf("first run: exit %d: %s", r.code, r.stderr)
				}
				server.serve(c.now)
				r := w.mcpv(t, "", args([]string{"-v", "--timeout", "3m"}, c.call, server.target)...)
				if r.code != c.code || r.stdout != c.stdout || !strings.Contains(r.stderr, c.errHas) {
					t.Fatalf("exit %d, stdout %q, stderr %s; want exit %d, %q, saying %q", r.code, r.stdout, r.stderr, c.code, c.stdout, c.errHas)
				}
				if got := sent(r.stderr); !slices.Equal(got, c.requests) {
					t.Errorf("sent %q, want %q", got, c.requests)
				}
				if r := w.mcpv(t, "", args(c.list, server.target)...); r.code != 0 || !strings.Contains(r.stdout, c.listHas) {
					t.Errorf("%s after: exit %d, stdout %s; want what the server lists now (%s)", c.list[0], r.code, r.stdout, c.listHas)
				}
			})
		}
	}
	for _, change := range []struct{ from, to string }{{"public", "private"}, {"private", "public"}} {
		t.Run("http, cacheScope "+change.from+" to "+change.to, func(t *testing.T) {
			t.Parallel()
			w, server := newWorld(t), newChanging(t, "http")
			as := func(who string, a ...string) result {
				t.Helper()
				r := w.mcpv(t, "", args([]string{"-v", "-H", "Authorization: Bearer " + who + "-key-0123456789"}, a, server.target)...)
				if r.code != 0 {
					t.Fatalf("%s %q: exit %d: %s", who, a, r.code, r.stderr)
				}
				return r
			}
			server.serve(spec("modern", hour, `"cacheScope":"`+change.from+`"`, tools(echoTool)))
			as("alice", "call", "echo")
			server.serve(spec("modern", hour, `"cacheScope":"`+change.to+`"`, tools(echoTool, echo2Tool)))
			as("alice", "list-tools") // listed again, and kept as the server says now
			r := as("bob", "call", "echo2")
			// public to private: alice's list is not bob's (the discover
			// result stays as kept, public); private to public: the list is
			// anyone's now, but the discover result alice kept is hers.
			wantBob := []string{"server/discover", "tools/call"}
			if change.to == "private" {
				wantBob = []string{"tools/list", "tools/call"}
			}
			if got := sent(r.stderr); !slices.Equal(got, wantBob) {
				t.Errorf("bob sent %q, want %q", got, wantBob)
			}
		})
	}
}

// TestCheckSeesTheServerAsItIsNow: mcpv check neither reads nor keeps
// what is remembered of a server. One remembered in the 2026-07-28 era
// that now speaks only the initialize era is checked in the initialize
// era, as it is, and passes; a check leaves nothing in the state
// directory.
func TestCheckSeesTheServerAsItIsNow(t *testing.T) {
	t.Parallel()
	for _, wire := range []string{"stdio", "http"} {
		t.Run(wire, func(t *testing.T) {
			t.Parallel()
			w, server := newWorld(t), newChanging(t, wire)
			state := t.TempDir()
			w.setenv("XDG_STATE_HOME", state)
			server.serve(spec("modern", `"ttlMs":3600000`, tools(echoTool)))
			if r := w.mcpv(t, "", args([]string{"check"}, server.target)...); r.code != 0 {
				t.Fatalf("check: exit %d, stderr %s", r.code, r.stderr)
			}
			if kept, _ := filepath.Glob(filepath.Join(state, "*", "*")); len(kept) > 0 {
				t.Errorf("a check kept %v", kept)
			}
			if r := w.mcpv(t, "", args([]string{"list-tools", "-r", "-q", ".tools[0].name"}, server.target)...); r.code != 0 || r.stdout != "echo\n" {
				t.Fatalf("list-tools: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
			}
			server.serve(spec("initialize", tools(echoTool)))
			r := w.mcpv(t, "", args([]string{"check", "--format", "json", "-r", "-q", ".protocolVersion"}, server.target)...)
			if r.code != 0 || r.stdout != "2025-11-25\n" {
				t.Errorf("check: exit %d, stdout %q, stderr %s; want 0 and the initialize era's version", r.code, r.stdout, r.stderr)
			}
		})
	}
}
