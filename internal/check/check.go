// Package check is mcpv check: a server tried, requirement by requirement,
// against the MCP specification, as h2spec tries an HTTP/2 server. Each
// check is one requirement of the specification (its id, the section it
// comes from with the revision, its level, its text in a line) and one
// test of it; a failure says what was sent, what came back and why that
// breaks the requirement.
//
// A run first opens a session as every command does (the main session)
// and learns what the server offers: its era, version and capabilities,
// and its lists. The checks then run, several at once: those that read the
// server through the main session, and those that need the wire below it
// (an id of their choosing, a message that is not JSON, a header that
// lies) on connections of their own (conn.go), one per group of checks, so
// that input that may break a server breaks only its own connection.
// Watches (watch.go) see every message of every connection and report
// at the end what no single request shows: a notification of a capability
// never declared, a progress token never given.
//
// No tool is called unless the user names it (Options.Calls): a check
// that needs a call is skipped without one. Everything is bounded: each
// check has its time, the run has its own, every message its size, and
// what a failure quotes of the server is clipped, made safe for a
// terminal and masked of secrets.
package check

import (
	"slices"
	"time"
)

// Level is how strongly the specification states a requirement.
type Level string

const (
	MUST   Level = "MUST"
	SHOULD Level = "SHOULD"
	// HOST is a model provider's or host's rule, not the
	// specification's (--portable): a warning, and a failure with
	// --strict, as a SHOULD.
	HOST Level = "HOST"
)

// Status is what became of a check.
type Status int

const (
	Passed Status = iota
	Failed
	Warned  // a SHOULD that does not hold (without --strict)
	Skipped // the check does not apply
	// Blocked: the check could not run because what it depends on (a
	// session, the lists, a working ping, the tool named with --call)
	// is broken, which the check that names that defect reports.
	Blocked
	// Inconclusive: the check ran out of time (or the server out of its
	// time to start) before it could tell: a server that is only slow,
	// which is no violation of a requirement that is not about time.
	Inconclusive
)

func (s Status) String() string {
	return [...]string{"pass", "fail", "warn", "skip", "blocked", "inconclusive"}[s]
}

// Check is one requirement of the specification and the test of it.
type Check struct {
	ID      string // area.name, stable: --only and --skip name it
	Area    string // one of Areas' ids
	Title   string // what holds when it passes, in a few words
	Level   Level
	Spec    string // the revision (or standard) the requirement comes from: "2025-11-25", "2026-07-28", "JSON-RPC 2.0", "RFC 9110"
	Section string // the page and heading it is stated under, as the specification addresses them: "basic/transports#stdio"
	Quote   string // the requirement's own text, short

	needs needs
	// group: the checks of a group run in order on one connection,
	// opened for the first of them; "" runs on the stdio connection the
	// ungrouped checks share at once, or over HTTP on one of its own (or
	// none).
	group string
	run   func(t *T)
	// watch, for a watch (which has no run), sees each message the run
	// receives and says how it breaks the requirement ("" when it does
	// not); the check's result is then the first such message.
	watch   func(w *watchCtx, m seen) string
	private bool // what the watch found may hold the user's secret, so its message is said and never shown
}

// needs is what a check needs of the server and the run; a check whose
// needs are not met is skipped, saying which.
type needs struct {
	transport  string // "stdio" or "http"; "" either
	era        string // "legacy" (the server answers initialize), "modern" (it answers 2026-07-28); "" the main session's
	capability string // a server capability path that must be declared ("tools", "resources.subscribe")
	call       bool   // a tool the user named with --call
	portable   string // a host --portable names
	auth       bool   // the server asks for authorization (401 without credentials)
}

// check is the check called id that needs n and runs run.
func (n needs) check(id string, run func(t *T)) *Check {
	return &Check{ID: id, needs: n, run: run}
}

// Area is a group of checks, as the report shows them.
type Area struct {
	ID, Title string
}

// Areas are the report's areas, in its order.
var Areas = []Area{
	{"jsonrpc", "JSON-RPC and framing"},
	{"lifecycle", "Lifecycle"},
	{"lists", "Lists and pagination"},
	{"surface", "The surface: tools, prompts, resources"},
	{"reading", "Reading without side effects"},
	{"utilities", "Cancellation and progress"},
	{"tools", "Tool calls (--call)"},
	{"asks", "What the server asks of its client: elicitation and sampling"},
	{"tasks", "Tasks (2025-11-25, and the io.modelcontextprotocol/tasks extension)"},
	{"http", "Streamable HTTP"},
	{"modern", "The 2026-07-28 era"},
	{"auth", "Authorization"},
	{"extensions", "Extensions"},
	{"skills", "Skills (io.modelcontextprotocol/skills)"},
	{"apps", "MCP Apps (io.modelcontextprotocol/ui)"},
	{"card", "Server Card (SEP-2127)"},
	{"portable", "Schema portability (--portable)"},
}

// Outcome is what became of one check.
type Outcome struct {
	Status Status
	// Message says why the check failed, was skipped, blocked or
	// inconclusive, in a line.
	Message string
	// BlockedBy is, for a blocked check, the id of the check whose
	// defect kept it from running.
	BlockedBy string
	// Sent and Received are what was sent and what came back, each on a
	// line, clipped, safe for a terminal and masked of secrets.
	Sent, Received string
	Notes          []string
	Took           time.Duration
}

// Result is a check and what became of it.
type Result struct {
	*Check
	Outcome
}

// Report is what a run found.
type Report struct {
	Server  string // how the server is named, secrets masked
	Era     string // "legacy" or "modern": the main session's
	Version string // the protocol version of the main session
	Results []Result
	Took    time.Duration
	Stopped error // why the run stopped before every check ran (--max-time, Ctrl-C), or nil
	// ServerTime is how much of Took the run waited on the server: while
	// one of its requests or more was unanswered.
	ServerTime time.Duration
}

// Call is a tool the user named for the checks that need a call, with
// its arguments as key=value words (typed by the tool's inputSchema, as
// mcpv call types them).
type Call struct {
	Tool  string
	Words []string
}

// Options shape a run.
type Options struct {
	Only, Skip                          []string                          // select checks by id or area; empty Only is every check
	Strict                              bool                              // fails a SHOULD that does not hold, instead of warning
	Calls                               []Call                            // the tools the user named (--call); the progress and cancellation checks use the first
	CheckTimeout, StartTimeout, MaxTime time.Duration                     // bound each check (not the start of its servers), that start, and the whole run
	Parallel                            int                               // how many checks (or groups) run at once
	Progress                            func(done, total int, id string)  // when set, told as checks end: how many of how many, and the one that ended
	Secrets                             []string                          // the client's secrets, which no log message of the server's may hold (utilities.log-secrets)
	Mask                                func(string) string               // masks what no outcome may show (the run's masker, knowing Secrets in every form); nil: Secrets alone
	ReadFile                            func(path string) ([]byte, error) // reads the @FILE a call's word names
	Portable                            []string                          // the hosts --portable names, whose rules the tools' schemas are graded against (internal/portable)

	// cancelledWait is how long a cancelled call or subscription is watched
	// for what it should no longer send (cancelCall, modern.cancel-listen):
	// 2 s and listenCancelWait when 0. A shorter one can only miss a late
	// message, never fail a correct server: its tests set it short.
	cancelledWait time.Duration
	notLoopback   bool // judges the server as reached away from loopback, whatever its URL names (http.authentication): the tests' servers are all on it
	// beforeCancel, when set, is called once the call cancelCall cancels
	// has shown it runs, before the cancellation goes; answered reports
	// the call's response come. A test holds the check back with it, as
	// a loaded machine does.
	beforeCancel func(answered func() bool)
	// afterCancel, when set, is called once that cancellation is sent,
	// before the request that follows it: as beforeCancel, with what the
	// call's answer may cross.
	afterCancel func(answered func() bool)
	afterFunc   afterFunc // when set, starts the timers of the checks' times (a test's clock); time.AfterFunc when nil
}

// Default bounds.
const (
	DefaultCheckTimeout = 15 * time.Second
	DefaultStartTimeout = 60 * time.Second
	DefaultMaxTime      = 5 * time.Minute
	DefaultParallel     = 4
)

// Selected reports whether a check is chosen by only and skip (each an
// id, or an area's id, which chooses its checks).
func Selected(c *Check, only, skip []string) bool {
	match := func(names []string) bool {
		return slices.Contains(names, c.ID) || slices.Contains(names, c.Area)
	}
	return (len(only) == 0 || match(only)) && !match(skip)
}

// Known reports whether name is a check's id or an area's.
func Known(name string) bool {
	return slices.Contains(Names(), name)
}

// Names are every area's id and check's id, for suggestions.
func Names() []string {
	var out []string
	for _, a := range Areas {
		out = append(out, a.ID)
	}
	for _, c := range Catalogue() {
		out = append(out, c.ID)
	}
	return out
}
