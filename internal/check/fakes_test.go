package check

// The servers the tests check: mcptest's spec server, over stdio (this
// test binary run as the fake) or over Streamable HTTP (its HTTP fake),
// behind oauthtest's guard for the authorization checks; a spec names the
// faults it plants.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
	"github.com/mcpv/mcpv/internal/testkit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
	"github.com/mcpv/mcpv/mcp/mcptest/pipeclient"
)

func TestMain(m *testing.M) {
	if mcptest.RunIfRequested() {
		return
	}
	// The tables of servers are built here, not at init: a fake started
	// from this binary (where mcptest.Program falls back to it) would
	// build them too.
	for _, add := range []func(){addEdgeServers, addAppAndCardCases, addNewBrokenCases, addModernInputCases,
		addHeaderParamCase, addPortableCases, addSkillsCases, addTaskCases} {
		add()
	}
	// Each test runs checks against a server in a process of its own, or
	// over loopback HTTP, and waits on it far more than it computes: the
	// package's tests take about a third of their time in CPU, and sixteen
	// at once left two cores idle for most of a run (about 29 s of CPU in
	// 40 s); forty-eight at once keep them busier (a run of 16 to 18 s,
	// where thirty-two took 19 to 21 and sixty-four no less than 15).
	// Under the race detector each test computes several times as much,
	// and forty-eight at once starved the packages run beside it (CI's
	// race stage took half an hour where it took a quarter): sixteen there.
	atOnce := 48
	if testkit.Race {
		atOnce = 16
	}
	testkit.WaitMoreAtOnce(atOnce)
	os.Exit(mcptest.GuardSuite(m.Run))
}

// goodSpec is a server that keeps every requirement: tools in two pages
// (one slow, reporting progress; one with an outputSchema), prompts,
// resources and a template, logging and completions.
const goodSpec = `{
	"tools":[
		{"name":"slow","description":"Takes a while.","inputSchema":{"type":"object"}},
		{"name":"shaped","description":"Structured.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","description":"N."}}},
		 "outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}},
		{"name":"echo","description":"Echoes.","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"M."}}}}],
	"prompts":[{"name":"hello","description":"Hello."},
		{"name":"greet","description":"Greets.","arguments":[{"name":"who","description":"Who.","required":true}]}],
	"resources":[{"uri":"mem://a","name":"a"},{"uri":"mem://b","name":"b"}],
	"resourceTemplates":[{"uriTemplate":"mem://{id}","name":"t"}],
	"capabilities":{"tools":{"listChanged":true},"prompts":{},"resources":{"subscribe":true},"logging":{},"completions":{}},
	"callResults":{"shaped":{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}},
	"pageSize":2
}`

// specOf is goodSpec with its members replaced or added as given (raw
// JSON), and the era given ("" or "modern").
func specOf(t testing.TB, era string, change map[string]string) *mcptest.Spec {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(goodSpec), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range change {
		m[k] = json.RawMessage(v)
	}
	if era != "" {
		m["era"], _ = json.Marshal(era)
	}
	data, _ := json.Marshal(m)
	s, err := mcptest.ParseSpec(data)
	if err != nil {
		t.Fatalf("spec: %v", err)
	}
	return s
}

// target is a server for the check to run against, and how it is built.
type fake struct {
	transport string // "stdio" or "http"
	era       string // "" or "modern"
	auth      string // over HTTP: "" none; "ok" behind a guard; or oauthtest's Broken
	version   string // the only version the main session accepts; "" any
	change    map[string]string
	// behaviours of the stdio fake besides its spec (mcptest's junk,
	// ignore-exit and slow-start, in ms)
	junk, ignoreExit bool
	slowStart        int
	probe            bool // the main session probes the era (--protocol-era auto), whatever the fake's
	// wrap, over HTTP, is what stands in front of the fake (runChecks
	// alone: a shared run does not tell two wraps apart)
	wrap   func(next http.Handler) http.Handler
	header http.Header // over HTTP, headers the user gives (runChecks alone, as wrap)
	// sse: over HTTP, every request is answered with an event stream
	sse bool
	// remote: over HTTP, the server is judged as reached at an address
	// not this machine's (Options.notLoopback)
	remote bool
	// behaviours: more of mcptest's, for the stdio fake
	behaviours string
	// portable: the hosts --portable names
	portable []string
	// secret: a secret of the run's, which the stdio fake has as
	// MCPV_TEST_SECRET
	secret string
	// timeout, after: the main session's --timeout and its timers
	timeout time.Duration
	after   func(time.Duration, func()) mcp.Timer
	// checkTime: runChecks' --check-timeout, where not 20 s (made patient
	// either way): a run whose server never answers a check's request
	// waits it whole
	checkTime time.Duration
}

func (f fake) target(t *testing.T) *Target {
	t.Helper()
	tg, _ := f.targetServer(t)
	return tg
}

// targetServer is f's target and, over HTTP, the fake that serves it,
// which holds every request it received.
func (f fake) targetServer(t *testing.T) (*Target, *mcptest.HTTPServer) {
	t.Helper()
	var served *mcptest.HTTPServer
	spec := specOf(t, f.era, f.change)
	info := mcp.Implementation{Name: "mcpv-check-test", Version: "0"}
	// DiscoverWait: a fake that does not answer server/discover as its
	// own is pinged at once; the outcome is the answers', not the wait's.
	opts := mcp.ClientOptions{Info: info, Probe: f.era == "" || f.probe, ProtocolVersion: map[string]string{"modern": mcp.ModernVersion}[f.era], Timeout: patient(20 * time.Second), DiscoverWait: 50 * time.Millisecond}
	if f.probe {
		opts.ProtocolVersion = ""
	}
	if f.version != "" {
		opts.ProtocolVersion, opts.Probe = f.version, false
	}
	if f.timeout > 0 {
		opts.Timeout, opts.AfterFunc = f.timeout, f.after
	}
	tg := &Target{Server: "fake", ClientInfo: info}
	if f.transport == "stdio" {
		// Not t.TempDir: the behaviours are a comma-separated list, and a
		// test's name may hold a comma.
		dir, err := os.MkdirTemp("", "mcpv-check-spec")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		path := filepath.Join(dir, "spec.json")
		data, _ := json.Marshal(spec)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		behaviours := "spec=" + path
		if f.junk {
			behaviours += ",junk"
		}
		if f.ignoreExit {
			behaviours += ",ignore-exit"
		}
		if f.behaviours != "" {
			behaviours += "," + f.behaviours
		}
		if f.slowStart > 0 {
			behaviours += fmt.Sprintf(",slow-start=%d", f.slowStart)
		}
		env := os.Environ()
		if f.secret != "" {
			env = append(env, "MCPV_TEST_SECRET="+f.secret)
		}
		// MCPV_FAKE last: a test finds its processes by it.
		env = append(env, mcptest.EnvVar+"="+behaviours)
		// The test binary serves the fake in this process, and in a
		// process of its own for a fake whose process is its subject. The
		// fake's own program, built once (seconds of linking), starts in
		// half the CPU: it serves the long tier's hundreds of processes,
		// not the quick tier's few.
		prog := os.Args[0]
		if in, err := mcptest.NewInProcess(env, ""); (in == nil || err != nil) && testkit.LongTier {
			prog = mcptest.Program()
		}
		tg.Stdio = &mcp.CommandOptions{Path: prog, Env: env}
		tg.Start = pipeclient.StartServer // in this process, where the process is not the subject
	} else {
		srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Spec: spec, SSE: f.sse})
		served = srv
		tg.URL = srv.URL
		tg.Client, tg.Plain = &http.Client{Transport: testkit.Pool(t)}, &http.Client{Transport: testkit.Pool(t)}
		tg.Header = f.header
		if f.wrap != nil {
			up, _ := url.Parse(srv.URL)
			proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: up.Scheme, Host: up.Host})
			proxy.Transport = testkit.Pool(t)
			front := httptest.NewServer(f.wrap(proxy))
			t.Cleanup(front.Close)
			tg.URL = front.URL + "/mcp"
		}
		if f.auth != "" {
			up, _ := url.Parse(srv.URL)
			proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: up.Scheme, Host: up.Host})
			proxy.Transport = testkit.Pool(t)
			as := oauthtest.New(t, proxy)
			as.Scopes, as.ChallengeScope = []string{"mcp:tools"}, "mcp:tools"
			if f.auth != "ok" {
				as.Broken = f.auth
			}
			if f.auth == "no-scope" {
				as.ChallengeScope = ""
			}
			if strings.HasPrefix(f.auth, "scope") { // the token lacks the scope a method needs
				as.Need = map[string]string{unknownMethod: "mcp:more"}
			}
			token, _ := as.Issue("")
			tg.URL = as.URL()
			tg.Header = http.Header{"Authorization": {"Bearer " + token}}
		}
	}
	tg.Open = func(ctx context.Context, h SessionHooks) (*mcp.Client, error) {
		var tr mcp.Transport
		var err error
		if tg.Stdio != nil {
			o := *tg.Stdio
			o.Log, o.MaxMessage, o.Grace = h.Log, MaxMessage, time.Second
			tr, err = tg.Start.Start(o)
		} else {
			tr, err = mcp.NewHTTPTransport(mcp.HTTPOptions{URL: tg.URL, Header: tg.Header, Client: tg.Client, MaxMessage: MaxMessage})
		}
		if err != nil {
			return nil, err
		}
		s := mcp.NewSession(tr, mcp.SessionOptions{Trace: h.Trace, Log: h.Log})
		c, err := mcp.Initialize(ctx, s, opts)
		if err != nil {
			s.Close(context.Background())
			return nil, err
		}
		t.Cleanup(func() { c.Close(context.Background()) })
		return c, nil
	}
	return tg, served
}

// runChecks runs the checks named (all when none) against f, strictly:
// a SHOULD that does not hold fails.
func runChecks(t *testing.T, f fake, only ...string) map[string]Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute)) // a hang guard
	defer cancel()
	// The calls of the tools the server lists (naming another is a usage
	// error).
	var calls []Call
	spec := specOf(t, f.era, f.change)
	for _, c := range []Call{{Tool: "gated"}, {Tool: "slow"}, {Tool: "shaped", Words: []string{"n=1"}}, {Tool: "job"}, {Tool: "media.get-all_v2"}} {
		if caps := member(spec.Capabilities, "tools"); spec.Capabilities != nil && caps == nil {
			break // tools not declared: none listed
		}
		for _, tl := range spec.Tools {
			if n, _ := str(member(tl, "name")); n == c.Tool {
				calls = append(calls, c)
			}
		}
	}
	opts := Options{Only: only, Strict: true, CheckTimeout: patient(cmp.Or(f.checkTime, 20*time.Second)), Calls: calls, Portable: f.portable, Secrets: secretsOf(f), notLoopback: f.remote}
	if !slices.ContainsFunc(only, func(id string) bool {
		return slices.Contains([]string{"utilities.cancel-call", "modern.cancel-call", "modern.cancel-listen"}, id)
	}) {
		// A correct server's cancelled call or subscription sends nothing
		// however long it is watched: only the run that must see a late
		// message (the broken server's) waits the check's whole time for it.
		opts.cancelledWait = 100 * time.Millisecond
	}
	report, err := Run(ctx, f.target(t), opts)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if report.Stopped != nil {
		t.Fatalf("the run stopped: %v", report.Stopped)
	}
	out := map[string]Result{}
	for _, r := range report.Results {
		out[r.ID] = r
	}
	return out
}

// describe is a result for a test's failure.
func describeResult(r Result) string {
	s := r.ID + ": " + r.Status.String()
	if r.Message != "" {
		s += ": " + r.Message
	}
	for _, x := range []string{r.Sent, r.Received} {
		if x != "" {
			s += "\n    " + x
		}
	}
	if len(r.Notes) > 0 {
		s += "\n    notes: " + strings.Join(r.Notes, "; ")
	}
	return s
}

// secretsOf are the run's secrets: f's, if it has one.
func secretsOf(f fake) []string {
	if f.secret == "" {
		return nil
	}
	return []string{f.secret}
}

// patient is d, the time a test gives what must not run out (a correct
// server's answer, a run's end, a hang guard), made long enough for the
// machine: three times under the race detector, and times the load
// waiting for each CPU, up to four. A time whose end the test is about
// (a server that never answers, judged at it) is not made patient.
func patient(d time.Duration) time.Duration {
	f, load := 1.0, 0.0
	if testkit.Race {
		f = 3
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Sscan(string(b), &load)
	}
	return time.Duration(float64(d) * f * min(max(load/float64(runtime.NumCPU()), 1), 4))
}

// Failed reports whether a requirement the run holds the server to does
// not hold: a MUST, or with strict a SHOULD as well.
func (r *Report) Failed() bool { return r.count(Failed) > 0 }

// Inconclusive is how many checks ran out of time before they could tell.
func (r *Report) Inconclusive() int { return r.count(Inconclusive) }

func (r *Report) count(s Status) int {
	n := 0
	for _, res := range r.Results {
		if res.Status == s {
			n++
		}
	}
	return n
}
