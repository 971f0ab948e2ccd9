package check

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/testkit"
)

// taskTools are goodSpec's tools and a job that runs as a task when asked
// (execution.taskSupport "optional").
const taskTools = `[
	{"name":"slow","description":"Takes a while.","inputSchema":{"type":"object"}},
	{"name":"shaped","description":"Structured.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","description":"N."}}},
	 "outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}},
	{"name":"job","description":"A job.","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}]`

// legacyTasks is a server of 2025-11-25 that runs the job as a task, which
// asks the client's name before it ends.
var legacyTasks = map[string]string{
	"tools":        taskTools,
	"capabilities": `{"tools":{},"prompts":{},"resources":{"subscribe":true},"logging":{},"completions":{},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}}`,
	"tasks":        `{"steps":2,"ask":["job"],"pollMs":20}`,
}

// sessionless is legacyTasks of a server that gives no sessions, and so
// does not declare tasks.list (it could not list a requestor's own).
var sessionless = merge(legacyTasks, map[string]string{"edges": `["no-sessions"]`,
	"capabilities": `{"tools":{},"prompts":{},"resources":{"subscribe":true},"logging":{},"completions":{},"tasks":{"cancel":{},"requests":{"tools":{"call":{}}}}}`})

// reportingTasks is legacyTasks whose task reports its progress: 1 of 2
// as it starts, 2 of 2 as it ends.
var reportingTasks = merge(legacyTasks, map[string]string{"tasks": `{"statuses":["working","working","completed"],"pollMs":20}`})

// erringTasks is legacyTasks whose job takes an integer n, and refuses a
// call that gives it no integer with -32602 (a protocol error, which the
// revision asks a server not to give for arguments), made as a task or
// not: such a task fails, and its tasks/result answers that error.
var erringTasks = merge(legacyTasks, map[string]string{"faults": `["input-errors-32602"]`,
	"tools": strings.Replace(taskTools, `{"name":"job","description":"A job.","inputSchema":{"type":"object"}`,
		`{"name":"job","description":"A job.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","description":"N."}}}`, 1)})

// extTasks is a server of the 2026-07-28 era that declares the tasks
// extension and runs the job as a task for a client that declares it too,
// asking the client's name twice before it ends.
var extTasks = map[string]string{
	"tools":        taskTools,
	"capabilities": `{"tools":{},"prompts":{},"resources":{"subscribe":true},"logging":{},"completions":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}`,
	"tasks":        `{"steps":2,"ask":["job"],"rounds":2,"pollMs":20}`,
}

var legacyTaskChecks = []string{"tasks.unknown-task", "tasks.create", "tasks.status-paths", "tasks.timestamps", "tasks.ttl", "tasks.result",
	"tasks.result-meta", "tasks.result-blocks", "tasks.no-related-meta", "tasks.listed", "tasks.input-related", "tasks.cancel", "tasks.cancel-ended", "tasks.unique-ids", "tasks.id-entropy", "tasks.forbidden-tool", "tasks.progress-ends", "tasks.id-param", "tasks.input-status"}

// legacyHTTPTaskChecks are legacyTaskChecks over HTTP, where the order
// of a task's progress and tasks/get's answers is not known.
var legacyHTTPTaskChecks = slices.DeleteFunc(slices.Clone(legacyTaskChecks), func(id string) bool { return id == "tasks.progress-ends" })

var extTaskIDs = []string{"tasks.ext-gated", "tasks.ext-listen-gated", "tasks.ext-unknown-task", "tasks.ext-undeclared", "tasks.ext-create",
	"tasks.ext-durable", "tasks.ext-get", "tasks.ext-update", "tasks.ext-input-keys", "tasks.ext-cancel"}

// taskBroken are servers each breaking one rule of tasks: the check that
// names it.
var taskBroken = []brokenCase{
	{id: "tasks.unknown-task", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-unknown-internal"))},
	{id: "tasks.create", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-flat"))},
	{id: "tasks.status-paths", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-terminal-moves"))},
	{id: "tasks.timestamps", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-bad-timestamps"))},
	{id: "tasks.ttl", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-no-ttl"))},
	{id: "tasks.result", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-result-early"))},
	{id: "tasks.result-meta", fake: fake{transport: "http", change: legacyTasks}, break_: merge(legacyTasks, faults("task-result-no-meta"))},
	{id: "tasks.result-error", fake: fake{transport: "stdio", change: erringTasks}, break_: merge(erringTasks, faults("input-errors-32602", "task-error-as-result"))},
	{id: "tasks.listed", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-unlisted"))},
	{id: "tasks.list-anonymous", fake: fake{transport: "http", change: legacyTasks}, break_: merge(legacyTasks, map[string]string{"edges": `["no-sessions"]`})},
	{id: "tasks.progress-ends", fake: fake{transport: "stdio", change: reportingTasks}, break_: merge(reportingTasks, faults("task-progress-late"))},
	{id: "tasks.id-param", fake: fake{transport: "http", change: legacyTasks}, break_: merge(legacyTasks, faults("task-id-from-meta"))},
	{id: "tasks.input-status", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-asks-working"))},
	{id: "tasks.input-status", fake: fake{transport: "http", change: legacyTasks}, break_: merge(legacyTasks, faults("task-input-stays"))},
	{id: "tasks.input-related", fake: fake{transport: "http", change: legacyTasks}, break_: merge(legacyTasks, faults("task-input-unrelated"))},
	{id: "tasks.cancel", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-cancel-no-status"))},
	// cancelled at first, completed once its job ran on: seen only by asking again
	{id: "tasks.cancel", fake: fake{transport: "http", change: legacyTasks}, break_: merge(legacyTasks, faults("task-cancel-overrun"))},
	{id: "tasks.cancel", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-cancel-overrun"))},
	// listed while it works, gone once it ended: seen only by listing again
	{id: "tasks.listed", fake: fake{transport: "http", change: legacyTasks}, break_: merge(legacyTasks, faults("task-list-live-only"))},
	{id: "tasks.cancel-ended", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-cancel-terminal-ok"))},
	{id: "tasks.id-entropy", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-id-counter"))},
	// over HTTP, a server of no sessions, whose tasks any client reaches
	{id: "tasks.id-entropy", fake: fake{transport: "http", change: sessionless}, break_: merge(sessionless, faults("task-id-counter"))},
	{id: "tasks.forbidden-tool", fake: fake{transport: "stdio", change: legacyTasks}, break_: merge(legacyTasks, faults("task-forbidden-served"))},
	{id: "tasks.get-polled", fake: fake{transport: "http", change: legacyTasks}, break_: merge(legacyTasks, faults("tasks-get-streamed"))},
	{id: "tasks.not-declared", fake: stdio, break_: map[string]string{"tasks": `{}`, "faults": `["task-undeclared-created"]`}},

	{id: "tasks.ext-gated", fake: fake{transport: "stdio", era: "modern", change: extTasks}, break_: merge(extTasks, faults("ext-ungated"))},
	{id: "tasks.ext-listen-gated", fake: fake{transport: "http", era: "modern", change: extTasks}, break_: merge(extTasks, faults("ext-listen-ungated"))},
	{id: "tasks.ext-unknown-task", fake: fake{transport: "stdio", era: "modern", change: extTasks}, break_: merge(extTasks, faults("ext-unknown-internal"))},
	{id: "tasks.ext-header-name", fake: fake{transport: "http", era: "modern", change: extTasks}, break_: merge(extTasks, faults("no-header-check"))},
	{id: "tasks.ext-undeclared", fake: fake{transport: "stdio", era: "modern", change: extTasks}, break_: merge(extTasks, faults("ext-task-undeclared"))},
	{id: "tasks.ext-create", fake: fake{transport: "stdio", era: "modern", change: extTasks}, break_: merge(extTasks, faults("ext-result-type"))},
	{id: "tasks.ext-durable", fake: fake{transport: "stdio", era: "modern", change: extTasks}, break_: merge(extTasks, faults("ext-not-durable"))},
	{id: "tasks.ext-get", fake: fake{transport: "http", era: "modern", change: extTasks}, break_: merge(extTasks, faults("ext-get-no-result"))},
	{id: "tasks.ext-update", fake: fake{transport: "stdio", era: "modern", change: extTasks}, break_: merge(extTasks, faults("ext-update-ack"))},
	{id: "tasks.ext-input-keys", fake: fake{transport: "stdio", era: "modern", change: extTasks}, break_: merge(extTasks, faults("ext-key-reuse"))},
	{id: "tasks.ext-cancel", fake: fake{transport: "stdio", era: "modern", change: extTasks}, break_: merge(extTasks, faults("ext-cancel-ack"))},
}

func addTaskCases() {
	brokenCases = append(brokenCases, taskBroken...)
	edgeServers = append(edgeServers,
		// Tasks at their edges: every member the revision has, a task
		// that asks for input, a poll interval.
		edgeServer{name: "stdio 2025-11-25 running a task", fake: edgeFake("stdio", "", legacyTasks), holds: legacyTaskChecks},
		// A task that asks for input only after more polls than the run
		// makes before tasks/result: its status still watched meanwhile.
		edgeServer{name: "stdio 2025-11-25 running a task that asks late", fake: edgeFake("stdio", "", merge(legacyTasks, map[string]string{"tasks": `{"steps":40,"ask":["job"],"pollMs":20}`})),
			holds: []string{"tasks.input-status", "tasks.result", "tasks.status-paths"}},
		edgeServer{name: "HTTP 2025-11-25 running a task", fake: edgeFake("http", "", legacyTasks), holds: legacyHTTPTaskChecks},
		// A task whose call is refused with a JSON-RPC error, its
		// tasks/result that error.
		edgeServer{name: "stdio 2025-11-25 running a task whose call is refused", fake: edgeFake("stdio", "", erringTasks), holds: []string{"tasks.result-error"}},
		edgeServer{name: "HTTP 2025-11-25 running a task whose call is refused", fake: edgeFake("http", "", erringTasks), holds: []string{"tasks.result-error"}},
		edgeServer{name: "stdio 2026-07-28 running a task of the extension", fake: edgeFake("stdio", "modern", extTasks), holds: slices.Concat(extTaskIDs, []string{"modern.capability-status"})},
		edgeServer{name: "HTTP 2026-07-28 running a task of the extension", fake: edgeFake("http", "modern", extTasks), holds: slices.Concat(extTaskIDs, []string{"tasks.ext-header-name", "modern.capability-status"})},
		// A server that declares no tasks serves a call made as a task as
		// a call.
		edgeServer{name: "stdio 2025-11-25 taking no tasks", fake: edgeFake("stdio", "", nil), holds: []string{"tasks.not-declared"}},
		edgeServer{name: "HTTP 2025-11-25 taking no tasks", fake: edgeFake("http", "", nil), holds: []string{"tasks.not-declared"}},
	)
}

// The tasks checks pass against servers that run tasks as the revision
// and the extension say, over each transport.
func TestTaskChecksPassACorrectServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fake fake
		ids  []string
	}{
		{"stdio 2025-11-25", fake{transport: "stdio", change: legacyTasks}, legacyTaskChecks},
		{"HTTP 2025-11-25", fake{transport: "http", change: legacyTasks}, legacyHTTPTaskChecks},
		{"stdio 2026-07-28", fake{transport: "stdio", era: "modern", change: extTasks}, extTaskIDs},
		{"HTTP 2026-07-28", fake{transport: "http", era: "modern", change: extTasks}, slices.Concat(extTaskIDs, []string{"tasks.ext-header-name"})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			results := goodRun(t, tc.fake)
			for _, id := range tc.ids {
				if r, ok := results[id]; !ok {
					t.Errorf("no result of %s", id)
				} else if r.Status != Passed {
					t.Errorf("%s", describeResult(r))
				}
			}
			for _, r := range results {
				if r.Status == Failed {
					t.Errorf("failed: %s", describeResult(r))
				}
			}
		})
	}
}

// A task that never ends leaves the checks that follow it inconclusive
// when their time is out: none fails the server, and the run ends.
func TestTaskThatNeverEnds(t *testing.T) {
	testkit.SkipLong(t, "each check polls its task until its 2 s are out")
	t.Parallel()
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			f := fake{transport: transport, change: merge(legacyTasks, map[string]string{"tasks": `{"steps":1000000000}`})}
			ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
			defer cancel()
			report, err := Run(ctx, f.target(t), Options{Only: legacyTaskChecks, Strict: true, CheckTimeout: 2 * time.Second, Calls: []Call{{Tool: "job"}}})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for _, r := range report.Results {
				if r.Status == Failed {
					t.Errorf("failed: %s", describeResult(r))
				}
				if r.ID == "tasks.status-paths" && r.Status != Inconclusive {
					t.Errorf("want inconclusive: %s", describeResult(r))
				}
			}
		})
	}
}

// A run calls each tool named with --call once for each of its purposes
// (the call the calls checks look at, the task of each era, the task
// cancelled), however many checks look at what came back and however many
// run at once: a tool call has side effects. The purpose is the call's
// progress token; the server saw each at most once.
func TestToolsCalledOnceARun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		fake fake
		want []string // purposes the run must have called for
	}{
		{"2025-11-25", fake{transport: "http", change: legacyTasks}, []string{"job mcpv-check-progress-task", "slow mcpv-check-progress-0"}},
		{"2026-07-28", fake{transport: "http", era: "modern", change: extTasks}, []string{"job mcpv-check-progress-task", "slow mcpv-check-progress-0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg, srv := tc.fake.targetServer(t)
			ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
			defer cancel()
			calls := []Call{{Tool: "slow"}, {Tool: "shaped", Words: []string{"n=1"}}, {Tool: "job"}}
			report, err := Run(ctx, tg, Options{Strict: true, CheckTimeout: patient(20 * time.Second), Calls: calls})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if report.Stopped != nil {
				t.Fatalf("the run stopped: %v", report.Stopped)
			}
			seen := map[string]int{}
			for _, r := range srv.Requests() {
				if r.RPCMethod != "tools/call" {
					continue
				}
				params := member(json.RawMessage(r.Body), "params")
				purpose := str1(member(params, "name")) + " " + str1(member(member(params, "_meta"), "progressToken"))
				seen[purpose]++
			}
			for purpose, n := range seen {
				if n != 1 {
					t.Errorf("%s: called %d times in one run, not once", purpose, n)
				}
			}
			for _, purpose := range tc.want {
				if seen[purpose] == 0 {
					t.Errorf("%s: never called (seen: %v)", purpose, seen)
				}
			}
		})
	}
}

// The task a run cancels is made beside the run's task, and only when a
// check of the run judges it: a run of tasks.create alone calls the tool
// for no cancellation.
func TestCancelledTaskOnlyWhenJudged(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		only []string
		want int
	}{{[]string{"tasks.create"}, 0}, {[]string{"tasks.cancel"}, 1}, {[]string{"tasks.listed"}, 1}, {[]string{"tasks.create", "tasks.cancel", "tasks.listed"}, 1}} {
		t.Run(strings.Join(tc.only, ","), func(t *testing.T) {
			t.Parallel()
			tg, srv := fake{transport: "http", change: legacyTasks}.targetServer(t)
			ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
			defer cancel()
			report, err := Run(ctx, tg, Options{Only: tc.only, Strict: true, CheckTimeout: patient(20 * time.Second), Calls: []Call{{Tool: "job"}}})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			for _, r := range report.Results {
				if r.Status != Passed {
					t.Errorf("%s", describeResult(r))
				}
			}
			n := 0
			for _, r := range srv.Requests() {
				params := member(json.RawMessage(r.Body), "params")
				if r.RPCMethod == "tools/call" && str1(member(member(params, "_meta"), "progressToken")) == "mcpv-check-progress-cancel-task" {
					n++
				}
			}
			if n != tc.want {
				t.Errorf("the task to cancel made %d times, want %d", n, tc.want)
			}
		})
	}
}

// A call answered with resultType "task" and no taskId is a task that
// cannot be followed: tasks.ext-create fails it, and the checks that
// follow the task are blocked by it, not skipped as if the server had
// made none.
func TestExtTaskWithoutIDBlocks(t *testing.T) {
	t.Parallel()
	f := fake{transport: "stdio", era: "modern", change: merge(extTasks, faults("ext-no-task-id"))}
	results := runChecks(t, f, extTaskIDs...)
	if r := results["tasks.ext-create"]; r.Status != Failed {
		t.Errorf("want failed: %s", describeResult(r))
	}
	for _, id := range []string{"tasks.ext-durable", "tasks.ext-get", "tasks.ext-update", "tasks.ext-input-keys", "tasks.ext-cancel"} {
		if r := results[id]; r.Status != Blocked || r.BlockedBy != "tasks.ext-create" {
			t.Errorf("want blocked by tasks.ext-create: %s", describeResult(r))
		}
	}
}

// A task's poll interval is kept within the check's bounds, a long one
// too: milliseconds past a time.Duration are the longest wait, not the
// shortest.
func TestPollWait(t *testing.T) {
	for task, want := range map[string]time.Duration{
		`{}`:                       100 * time.Millisecond,
		`{"pollInterval":500}`:     500 * time.Millisecond,
		`{"pollIntervalMs":5}`:     20 * time.Millisecond,
		`{"pollInterval":-1}`:      20 * time.Millisecond,
		`{"pollInterval":60000}`:   time.Second,
		`{"pollInterval":1e13}`:    time.Second,
		`{"pollIntervalMs":1e300}`: time.Second,
	} {
		if got := pollWait(json.RawMessage(task)); got != want {
			t.Errorf("pollWait(%s) = %v, want %v", task, got, want)
		}
	}
}

// A server that asks no authorization and gives no session may still
// tell its requestors apart by a key the user sends: tasks.list declared
// is no warning then.
func TestTasksListOfAServerOfKeys(t *testing.T) {
	t.Parallel()
	f := fake{transport: "http", change: merge(legacyTasks, map[string]string{"edges": `["no-sessions"]`}), header: http.Header{"X-Api-Key": {"k"}}}
	if r := runChecks(t, f, "tasks.list-anonymous")["tasks.list-anonymous"]; r.Status != Passed {
		t.Errorf("%s", describeResult(r))
	}
}

// A server that counts its tasks may still bind them to a key the user
// sends, which a client without it does not have: no failure then.
func TestTaskIDsOfAServerOfKeys(t *testing.T) {
	t.Parallel()
	f := fake{transport: "http", change: merge(legacyTasks, faults("task-id-counter")), header: http.Header{"X-Api-Key": {"k"}}}
	if r := runChecks(t, f, "tasks.id-entropy")["tasks.id-entropy"]; r.Status != Passed {
		t.Errorf("%s", describeResult(r))
	}
}

// A server that counts its tasks and keeps each session's from every
// other binds them to what it can tell apart: another session that
// guesses an id is refused, and nothing fails.
func TestTaskIDsOfAServerOfSessions(t *testing.T) {
	t.Parallel()
	f := fake{transport: "http", change: merge(legacyTasks, faults("task-id-counter"))}
	r := runChecks(t, f, "tasks.id-entropy")["tasks.id-entropy"]
	if r.Status != Passed || !strings.Contains(strings.Join(r.Notes, " "), "was refused from another") {
		t.Errorf("%s", describeResult(r))
	}
}

// A server that asks no form elicitation gets no call more for
// asks.elicitation-validated: the check skips on what the run's asks saw.
func TestNoFormNoCallMore(t *testing.T) {
	t.Parallel()
	tg, srv := fake{transport: "http"}.targetServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), patient(2*time.Minute))
	defer cancel()
	report, err := Run(ctx, tg, Options{Only: []string{"asks.elicitation-validated"}, CheckTimeout: patient(20 * time.Second), Calls: []Call{{Tool: "slow"}}})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if r := report.Results[0]; r.Status != Skipped {
		t.Errorf("want skipped: %s", describeResult(r))
	}
	for _, r := range srv.Requests() {
		if tok := str1(member(member(member(json.RawMessage(r.Body), "params"), "_meta"), "progressToken")); strings.Contains(tok, "-form-") {
			t.Errorf("called for the form check: %s", r.Body)
		}
	}
}

// A UUID of a clock and a node (versions 1, 2 and 6) is told from one of
// chance (4) or of a clock and chance (7), whatever its case.
func TestTimeUUID(t *testing.T) {
	for id, want := range map[string]bool{
		"c232ab00-9414-11ec-b3c8-9f6bdeced846": true, "1EC9414C-232A-6B00-B3C8-9F6BDECED846": true,
		"919108f7-52d1-4320-9bac-f847db4148a8": false, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f": false,
		"task-1796105986985": false, "c232ab00941411ecb3c89f6bdeced846": false, "c232ab00-9414-11ec-b3c8-9f6bdeced84g": false,
	} {
		if timeUUID(id) != want {
			t.Errorf("timeUUID(%q) = %v, want %v", id, !want, want)
		}
	}
}
