//go:build !race

// The race detector's instrumentation allocates on its own account, so
// the budgets hold for a build without it (go test, not go test -race).

package commands

import (
	"context"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/output"
)

// modelBudget is what building kong's model and parsing one command line
// may allocate, as a run does it (the lean grammar; the whole one for help
// and errors). Allocations are counted, not timed: they are the same on
// every machine. The figures were about 10% under each budget when it was
// set; a change that needs more says so here. The whole grammar's grew
// by serve and mock, two commands with their flags: 1,006 KB, 12,505
// allocations when they came. A lean grammar's fell by 45 KB and 280
// allocations when its help stopped being filled in (a lean run prints
// none): 279 KB, 318 KB and 375 KB. They fell again when the commands
// reached kong one by one rather than as fields it reads the tags of:
// 205 KB in 2,320 allocations, 258 KB in 3,198 and 310 KB in 3,808; the
// whole grammar 998 KB in 12,235. They fell again when the groups of
// global flags reached kong one by one, a lean run giving it only those
// its command line names: 32 KB in 267, 63 KB in 621 and 114 KB in 1,233;
// the whole grammar, each group now a node of its own, 1,091 KB in 12,381.
// A call through a session named the 18 server flags for its --session,
// 184 KB in 2,299, until they were four groups: 134 KB in 1,536. With
// the connect flags a field kong does not walk, and no help text built for
// a lean grammar: 25 KB in 231, 54 KB in 573, 105 KB in 1,185 and 123 KB
// in 1,477; the whole grammar 1,146 KB in 12,511, then 990 KB in 12,380
// once help no longer made a whole grammar value for each flag it filled.
// A call that names none of its nine options leaves them out (callLean):
// 56 KB in 604, and 74 KB in 896 through a session; the whole grammar
// 996 KB in 12,409. The whole grammar grew by load, a command with its
// flags: 1,090 KB in 13,480 when it came; by mock's --tool and --log
// (with its longer help): 1,213 KB in 14,804, from 1,194 KB in 14,612;
// by serve's and mock's --allow-origin, --path and --sse (six flags):
// 1,258 KB in 15,217, and the budget set 10% above that; by app, a
// command with fourteen flags of its own (and the whole grammar's global
// --no-extension): 1,464 KB in 17,681, and the budget 10% above; by
// discover, and each lean grammar by the two commands' places in the
// command set: --version 28.1 KB in 233, its budget 10% above. Load's
// round two (--data, --data-order, --seed, --scenario, --baseline,
// --find-max, --report, with their help): 1,420 KB in 17,042 without app
// and discover, and the budget set 10% above that. With all of them,
// and the help made to fit a screen: 1,463 KB in 18,586, the budget 10%
// above. By serve's FILE, --all, --separator, --start and --http-tokens
// and the repeatable --server and --http-token (several servers behind
// one endpoint): the whole grammar 1,485 KB in 18,943, within its
// budget; each lean grammar by about 2 KB in as many allocations, the
// cli struct having grown past a size class (3,352 bytes to 3,464, of
// which 4,096 are allocated): list-tools 61.5 KB in 575, call 62.6 KB in
// 607, through a session 83.9 KB in 953, their budgets 1 to 2 KB above.
// By --pin-strict beside --pin in the target flags, which a call through
// a session names: 87.3 KB in 1,001, its budget 1.7 KB and 30 above.
// The fast path (--no-validate alone) gave kong all nine options, 111 KB
// in 1,228, until it was given that one beside the arguments (callFast):
// 69.5 KB in 700, its budget 10% above. By list-tools' --names and
// --usage (one tool at a time), which a lean grammar leaves out unless
// named (listToolsLean): list-tools 63.4 KB in 589, the cli struct past a
// size class again, its budget 1.6 KB above; the whole grammar 1,632 KB
// in 20,660, its budget 10 KB and 150 allocations above. By search, a
// command with three flags: the whole grammar 1,654 KB in 20,959, its
// budget 10 KB and 150 allocations above. By MCPV_TOKEN_STORE and
// DBUS_SESSION_BUS_ADDRESS in the environment topic (the keychain): 1,666
// KB in 21,030, its budget 10 KB and 150 allocations above. By the global
// --fresh and audit's --judge-env besides: 1,676 KB in 21,143, its budget 12 KB and 157
// allocations above.
var modelBudget = []struct {
	line          string
	lean          bool
	bytes, allocs float64
}{
	{"--version", true, 31 << 10, 255},
	{"list-tools", true, 65 << 10, 630},
	{"call echo message=hi", true, 64 << 10, 665},
	{"call echo --args {} --no-validate", true, 78 << 10, 770},
	{"--session s call echo message=hi", true, 89 << 10, 1031},
	{"list-tools", false, 1688 << 10, 21300}, // the whole grammar: grows with each flag
}

// TestModelBuildCost: each command line's model, built and parsed, within
// its budget.
func TestModelBuildCost(t *testing.T) {
	ios := output.NewStreams(strings.NewReader(""), io.Discard, io.Discard)
	env := testEnv(t)
	for _, b := range modelBudget {
		words := strings.Fields(b.line)
		build := func() {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(exitRequest); !ok {
						panic(r)
					}
				}
			}()
			var c cli
			lean := leanGrammar(words)
			if !b.lean {
				lean = nil
			}
			if _, err := parseWith(&c, words, ios, env, lean); err != nil {
				t.Fatalf("%s: %v", b.line, err)
			}
		}
		bytes, allocs := allocated(20, build)
		if bytes > b.bytes || allocs > b.allocs {
			t.Errorf("%s (lean %v): %.0f bytes in %.0f allocations, over its budget of %.0f in %.0f", b.line, b.lean, bytes, allocs, b.bytes, b.allocs)
		}
	}
}

// allocated is what one run of f allocates, on average over runs (after
// one run to warm what is built once), on one P as testing.AllocsPerRun
// counts.
func allocated(runs int, f func()) (bytes, allocs float64) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(runs), float64(after.Mallocs-before.Mallocs) / float64(runs)
}

// TestVersionBuildsNoGrammar: mcpv --version alone prints the version
// line without building kong's model (which took 28 KB in 233
// allocations, the lean grammar of its flag): 2.69 M user-space
// instructions to 2.35 M (docs/BENCHMARKS.md). The line is the flag's.
func TestVersionBuildsNoGrammar(t *testing.T) {
	env := testEnv(t)
	var out strings.Builder
	version := func() {
		out.Reset()
		ios := output.NewStreams(strings.NewReader(""), &out, io.Discard)
		if code := run(context.Background(), []string{"--version"}, ios, env); code != 0 {
			t.Fatalf("exit %d", code)
		}
	}
	_, allocs := allocated(20, version)
	if want := versionLine(Version, Commit, Date, runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH) + "\n"; out.String() != want {
		t.Errorf("mcpv --version printed %q, want %q", out.String(), want)
	}
	if allocs > 40 {
		t.Errorf("mcpv --version made %.0f allocations, want at most 40 (no grammar built)", allocs)
	}
}
