// Package doctor answers "why can't I connect?" for an MCP server: an
// ordered walk of what a connection needs, each step with what it found
// and, where it fails, the fix it suggests. Over HTTP: the URL, a proxy
// in the way, name resolution, TCP, TLS (the certificate, its names and
// its expiry), the endpoint's answer to a POST (status, content type,
// redirects), the 401 and its WWW-Authenticate, the .well-known documents
// (protected resource metadata, the authorization server's metadata, a
// server card where one is offered), and the era negotiated. Over stdio:
// the command found and started, what it wrote on stderr and stdout
// before answering, and its first answer. The protocol's own first
// exchange (framing, ids, the shape of the first result) is mcpv check's,
// which the caller plugs in (Target.FirstContact).
//
// Every step is bounded: a step that does not wait on the network ends
// at once, one that does waits Target.Timeout at the most, and the walk
// stops at the first step that fails (those after it are not reached).
// What a step quotes of the server is clipped and made safe for a
// terminal, and the caller masks it of secrets.
package doctor

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// Status is what a step found.
type Status int

const (
	OK      Status = iota
	Warn           // it works, but something is wrong or about to be
	Fail           // the connection cannot go past this step
	Skipped        // not reached (an earlier step failed), or does not apply
)

// Step is one step of the walk.
type Step struct {
	Name    string // "name resolution", "TLS", "first answer"
	Status  Status
	Finding string // what was found, in a line
	Fix     string // what to do about a failure or a warning, in a line
	Took    time.Duration
	// Code is, for a failure, the exit code it stands for: 4 (could not
	// connect), 5 (authorization), 1 (a requirement broken), 124 (no
	// answer in time).
	Code int
}

// Report is a walk: its steps in order.
type Report struct {
	Server string
	Steps  []Step
}

// Failed is the step that failed, or nil.
func (r *Report) Failed() *Step {
	for i := range r.Steps {
		if r.Steps[i].Status == Fail {
			return &r.Steps[i]
		}
	}
	return nil
}

// Exit codes a failed step stands for (internal/exitcode's numbers).
const (
	codeRequirement = 1
	codeTransport   = 4
	codeAuth        = 5
	codeTimeout     = 124
)

// Target is the server a walk tries.
type Target struct {
	Server string // how it is named, secrets masked
	// URL is an HTTP server's MCP endpoint; Client reaches it with the
	// user's credentials, Plain without; Header is what every request of
	// the user's carries.
	URL           string
	Client, Plain *http.Client
	Header        http.Header
	// Stdio is how a stdio server is started, and Start starts it (nil
	// is mcp.StartCommand).
	Stdio *mcp.CommandOptions
	Start mcp.Starter
	// Era is the era the user holds the server to: "auto" (or ""),
	// "legacy" or "modern".
	Era        string
	ClientInfo mcp.Implementation
	// Timeout bounds each step that waits on the network or on the
	// server; StartTimeout a stdio server's first answer.
	Timeout, StartTimeout time.Duration
	// Resolve looks a host name up; nil is net.DefaultResolver's.
	Resolve func(ctx context.Context, host string) ([]string, error)
	// FirstContact, when set, replays the protocol's first exchange and
	// names the requirement the server breaks in it ("" when none):
	// mcpv check's diagnosis.
	FirstContact func(ctx context.Context) (id, finding string)
}

// DefaultTimeout bounds a step that waits on the network, and a stdio
// server's first answer unless the user gives it more.
const DefaultTimeout = 10 * time.Second

// Walk walks what a connection to t needs, in order, and stops at the
// first step that fails.
func Walk(ctx context.Context, t Target) *Report {
	t.Timeout = cmp.Or(max(t.Timeout, 0), DefaultTimeout)
	t.StartTimeout = cmp.Or(max(t.StartTimeout, 0), DefaultTimeout)
	if t.Resolve == nil {
		t.Resolve = net.DefaultResolver.LookupHost
	}
	w := &walk{t: t, report: &Report{Server: t.Server}}
	if t.URL != "" {
		w.http(ctx)
	} else {
		w.stdio(ctx)
	}
	if w.report.Failed() == nil && t.FirstContact != nil && ctx.Err() == nil {
		w.step("first exchange", func(s *Step) {
			id, finding := t.FirstContact(ctx)
			if id == "" {
				s.Finding = "framing, ids and the first result hold the specification"
				return
			}
			s.fail(codeRequirement, fmt.Sprintf("the server breaks %s: %s", id, finding),
				"no client can open a session until it is fixed; mcpv check names the requirement and quotes its text")
		})
	}
	return w.report
}

// walk is one walk under way.
type walk struct {
	t      Target
	report *Report
}

// step runs one step and records it, unless a step before it failed:
// then it is not reached.
func (w *walk) step(name string, fn func(s *Step)) bool {
	if w.report.Failed() != nil {
		w.skip(name, "not reached")
		return false
	}
	s := Step{Name: name}
	start := time.Now()
	fn(&s)
	s.Took = time.Since(start)
	s.Finding = safetext.Line(safetext.Clip(s.Finding, 600))
	s.Fix = safetext.Line(s.Fix)
	w.report.Steps = append(w.report.Steps, s)
	return s.Status != Fail
}

// skip records a step that does not apply.
func (w *walk) skip(name, why string) {
	w.report.Steps = append(w.report.Steps, Step{Name: name, Status: Skipped, Finding: why})
}

func (s *Step) fail(code int, finding, fix string) {
	s.Status, s.Code, s.Finding, s.Fix = Fail, code, finding, fix
}

func (s *Step) warn(finding, fix string) {
	s.Status, s.Finding, s.Fix = Warn, finding, fix
}
