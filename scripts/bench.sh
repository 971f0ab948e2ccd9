#!/usr/bin/env bash
# Measures mcpv on this machine and writes docs/BENCHMARKS.md.
#
#   bash scripts/bench.sh [-n RUNS] [--quick] [--peers]
#
# Each figure is the median of RUNS runs (default 11; --quick: 5, and a
# 100,000-line batch instead of a million), taken with GNU time (wall
# seconds and peak RSS of the largest process). Where there is a reference,
# mcpv and the reference are run alternately and the ratio of the medians is
# given:
#   - one list-tools against the go-sdk demo server, against the raw floor:
#     the same server fed the same messages from a file by the shell;
#   - a batch of 20,000 pings against the same server and its raw floor,
#     and beside the least a client can do over the server's pipes
#     (scripts/bench/pipefeed, a module of its own);
#   - a 100 MB tool result (wall time and peak memory);
#   - a batch of a million lines (peak memory, against 10,000 lines);
#   - one list-tools against the npm "everything" server, against the MCP
#     Inspector CLI doing the same (when npm can install them);
#   - twenty calls through a session against twenty one-shot commands, and
#     one call through a warm session against mcpv --version plus one
#     round trip (the same npm server), with the least any client does
#     through that keeper for the same call (scripts/bench/sessionfloor, a
#     module of its own) beside the hello-world program;
#   - mcpv --version against a hello-world Go program built by the same
#     toolchain, and the package initialisation GODEBUG=inittrace=1 reports;
#   - list-tools of 10,000 tools over 100 pages against 1,000 over 10, and
#     a call of the last of them through a warm session against a ping;
#   - every Go benchmark in the repository (medians of 5);
#   - one list-tools, one call (stdio and Streamable HTTP) and --version
#     beside the Go peers, mcptools (MCPV_BENCH_MCPTOOLS, a build by path)
#     and a minimal client on mark3labs/mcp-go, 3×RUNS interleaved rounds,
#     paired ratios (scripts/bench/peers.sh). --peers runs only these and
#     prints them, writing nothing;
#   - the round trips beside the same peers, with mcpv as a user runs it
#     (its era found and remembered, not pinned): list-tools, the default
#     call, the fast-path call (--no-validate, JSON arguments) and a call
#     against a server that lets its lists be kept, over stdio and
#     Streamable HTTP (scripts/bench/peers.sh). --trips runs only these and
#     prints them, writing nothing.
# mcpv, the hello-world program and the Go peers run from four copies of
# their files, a different one each run of a row (see measure_in).
# Peers are built or installed OUTSIDE the repository, in
#   ${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}
# Needs go, GNU time (/usr/bin/time); node and npm for the Node peers; the
# module proxy (or a module cache) for mark3labs/mcp-go.
set -euo pipefail

runs=11
quick=0
peers_only=0
trips_only=0
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift ;;
	--quick) quick=1; runs=5 ;;
	--peers) peers_only=1 ;;
	--trips) trips_only=1 ;;
	-h | --help) sed -n '2,46p' "$0"; exit 0 ;;
	*) echo "bench: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "bench: $*" >&2; exit 2; }
[ -x /usr/bin/time ] || die "GNU time (/usr/bin/time) is required (Debian: apt-get install time)"
command -v go >/dev/null || die "go is required"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
dir=${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd -P)
case "$dir/" in "$repo"/*) die "MCPV_BENCH_DIR must be outside the repository" ;; esac
# The session keepers the rows start (sections 5 and 7) have sockets of
# their own, beside nobody else's; what mcpv keeps of a server between runs
# is the bench's too, begun anew.
export XDG_RUNTIME_DIR=$dir/rt XDG_STATE_HOME=$dir/state
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
rm -rf "$XDG_STATE_HOME"

echo "building mcpv, the demo server and the reference programs into $dir"
# mcpv is built as a release is (.goreleaser.yaml): static, no symbol table.
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/mcpv" . && go build -o "$dir/demo-server" ./examples/demo-server) || die "go build failed"
# A hello-world Go program, built by the same toolchain with the same flags: the floor of any Go
# program's start-up on this machine.
mkdir -p "$dir/hello" "$dir/manytools"
cat >"$dir/hello/main.go" <<'EOS'
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
EOS
printf 'module hello\n\ngo 1.26\n' >"$dir/hello/go.mod"
# A stdio server with N tools served P to a page (initialize era), for the
# cost of a large listing.
cat >"$dir/manytools/main.go" <<'EOS'
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

func main() {
	n, _ := strconv.Atoi(os.Args[1])
	per, _ := strconv.Atoi(os.Args[2])
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		switch m.Method {
		case "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"manytools","version":"1"}}}`+"\n", m.ID)
		case "tools/list":
			start, _ := strconv.Atoi(m.Params.Cursor)
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[`, m.ID)
			for i := start; i < min(start+per, n); i++ {
				if i > start {
					out.WriteByte(',')
				}
				fmt.Fprintf(out, `{"name":"tool_%d","description":"Tool number %d, which takes a query and a limit.","inputSchema":{"type":"object","properties":{"query":{"type":"string","description":"what to look for"},"limit":{"type":"integer","minimum":1,"maximum":100}},"required":["query"]}}`, i, i)
			}
			out.WriteString("]")
			if start+per < n {
				fmt.Fprintf(out, `,"nextCursor":"%d"`, start+per)
			}
			out.WriteString("}}\n")
		default:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", m.ID)
		}
		out.Flush()
	}
}
EOS
printf 'module manytools\n\ngo 1.26\n' >"$dir/manytools/go.mod"
(cd "$dir/hello" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/hello-world" .) || die "go build of the hello-world program failed"
(cd "$dir/manytools" && go build -o "$dir/manytools-server" .) || die "go build of the many-tools server failed"
mcpv=$dir/mcpv
demo=$dir/demo-server
# The comparisons with a raw floor speak the initialize era, as the floor's
# messages do (the demo server speaks both; the big fake only that one).
legacy=(--protocol-version 2025-11-25)

# The clients are run from copies of their files, a different one each run
# of a row (as scripts/bench/paired.sh does): on a virtual machine the same
# bytes run faster or slower from one file than from another, by as much as
# the gaps measured here. copied PROG... makes the copies.
copies=4
declare -A copied=()
copied() {
	local p k base
	mkdir -p "$dir/copies"
	for p in "$@"; do
		base=$dir/copies/${#copied[@]}-${p##*/} # numbered: two programs may share a name
		for ((k = 1; k <= copies; k++)); do cp "$p" "$base.$k"; done
		copied[$p]=$base
	done
}

# measure_in NAME FILE CMD...: run CMD once with stdin from FILE; append
# "wall_seconds rss_kb" to $dir/NAME.t (wall from the shell's microsecond
# clock, peak RSS from GNU time). A program that has copies runs from the
# one the row's run count picks.
measure_in() {
	local name=$1 file=$2 t0 t1 rss runs
	shift 2
	if [ -n "${copied[$1]:-}" ]; then
		runs=$(wc -l <"$dir/$name.t" 2>/dev/null || echo 0)
		set -- "${copied[$1]}.$((runs % copies + 1))" "${@:2}"
	fi
	t0=${EPOCHREALTIME//[!0-9]/}
	/usr/bin/time -f '%M' -o "$dir/$name.rss" "$@" >/dev/null 2>"$dir/$name.err" <"$file" ||
		{ cat "$dir/$name.err" >&2; die "$name failed: $*"; }
	t1=${EPOCHREALTIME//[!0-9]/}
	rss=$(tail -n 1 "$dir/$name.rss")
	awk -v us=$((10#$t1 - 10#$t0)) -v rss="$rss" 'BEGIN{printf "%.4f %d\n", us/1e6, rss}' >>"$dir/$name.t"
}
measure() { local name=$1; shift; measure_in "$name" /dev/null "$@"; }
median() { # FIELD NAME: the median of a column of $dir/NAME.t
	awk -v f="$1" '{print $f}' "$dir/$2.t" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'
}
mb() { awk -v k="$1" 'BEGIN{printf "%.0f MB", k/1024}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.2f×", a/b; else print "n/a" }'; }
secs() { awk -v s="$1" 'BEGIN{ if (s < 1) printf "%.1f ms", s*1000; else printf "%.2f s", s }'; }
reset() { local n; for n in "$@"; do : >"$dir/$n.t"; done; }

rows=()
row() { rows+=("| $1 | $2 | $3 | $4 |"); printf '%-58s %-22s %-22s %s\n' "$1" "$2" "$3" "$4"; }

init='{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'
inited='{"jsonrpc":"2.0","method":"notifications/initialized"}'

# shellcheck source=bench/peers.sh
. "$repo/scripts/bench/peers.sh"
peers_build
copied "$mcpv" "$dir/hello-world" "$dir/mcpgo-client" "$dir/pipefeed" "$dir/sessionfloor" ${mcptools:+"$mcptools"}

echo
printf '%-58s %-22s %-22s %s\n' WHAT MCPV REFERENCE RATIO
if [ "$peers_only" = 1 ]; then
	peers
	exit 0
fi
if [ "$trips_only" = 1 ]; then
	trips
	exit 0
fi

# 1. One list-tools, against the raw floor.
printf '%s\n%s\n%s\n' "$init" "$inited" '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' >"$dir/raw-list.jsonl"
reset list raw-list
for _ in $(seq "$runs"); do
	measure list "$mcpv" "${legacy[@]}" list-tools -- "$demo"
	measure_in raw-list "$dir/raw-list.jsonl" "$demo"
done
row "one list-tools, go-sdk demo server, stdio" "$(secs "$(median 1 list)"), $(mb "$(median 2 list)")" \
	"raw floor $(secs "$(median 1 raw-list)")" "$(ratio "$(median 1 list)" "$(median 1 raw-list)")"

# 2. A batch of 20,000 pings, against the raw floor.
pings=20000
{ printf '%s\n%s\n' "$init" "$inited"; seq "$pings" | awk '{printf "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n", $1}'; } >"$dir/raw-pings.jsonl"
lines() { awk -v n="$1" -v l="$2" 'BEGIN{for (i = 0; i < n; i++) print l}'; }
lines "$pings" ping >"$dir/pings.txt"
lines "$pings" '{"method":"ping"}' >"$dir/pings.jsonl"
brun=$(( runs < 5 ? runs : 5 ))
reset batch-cmd batch-json batch-seq raw-pings pipefeed
for _ in $(seq "$brun"); do
	measure_in batch-json "$dir/pings.jsonl" "$mcpv" "${legacy[@]}" batch --parallel 64 -- "$demo"
	measure_in batch-cmd "$dir/pings.txt" "$mcpv" "${legacy[@]}" batch --parallel 64 -- "$demo"
	measure_in batch-seq "$dir/pings.txt" "$mcpv" "${legacy[@]}" batch -- "$demo"
	measure_in raw-pings "$dir/raw-pings.jsonl" "$demo"
	measure pipefeed "$dir/pipefeed" "$pings" 64 "$demo"
done
raw=$(median 1 raw-pings)
row "batch of $pings pings (JSON lines, --parallel 64)" "$(secs "$(median 1 batch-json)"), $(mb "$(median 2 batch-json)")" "raw floor $(secs "$raw")" "$(ratio "$(median 1 batch-json)" "$raw")"
row "batch of $pings pings (\"ping\" lines, --parallel 64)" "$(secs "$(median 1 batch-cmd)"), $(mb "$(median 2 batch-cmd)")" "raw floor $(secs "$raw")" "$(ratio "$(median 1 batch-cmd)" "$raw")"
row "batch of $pings pings (\"ping\" lines, one at a time)" "$(secs "$(median 1 batch-seq)"), $(mb "$(median 2 batch-seq)")" "raw floor $(secs "$raw")" "$(ratio "$(median 1 batch-seq)" "$raw")"
# What two pipes cost the server, whatever the client does (scripts/bench/pipefeed).
row "the least a client does: $pings pings, 64 in flight (pipefeed)" "$(secs "$(median 1 pipefeed)")" "raw floor $(secs "$raw")" "$(ratio "$(median 1 pipefeed)" "$raw")"
row "batch of $pings pings (JSON lines, --parallel 64) beside it" "$(secs "$(median 1 batch-json)")" "pipefeed $(secs "$(median 1 pipefeed)")" "$(ratio "$(median 1 batch-json)" "$(median 1 pipefeed)")"

# 3. A 100 MB tool result, from a lean shell server that streams it (the
# go-sdk server would itself hold several copies, and GNU time reports the
# largest process).
cat >"$dir/big-server.sh" <<'EOS'
#!/usr/bin/env bash
# A stdio MCP server with one tool, "big", whose result is a text of $1 bytes.
while IFS= read -r line; do
	id=$(sed -n 's/.*"id":\([0-9][0-9]*\).*/\1/p' <<<"$line")
	case $line in
	*'"method":"initialize"'*)
		printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"big","version":"1"}}}\n' "$id" ;;
	*'"method":"tools/list"'*)
		printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"big","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
	*'"method":"tools/call"'*)
		printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' "$id"
		head -c "$1" /dev/zero | tr '\0' x
		printf '"}]}}\n' ;;
	esac
done
EOS
chmod +x "$dir/big-server.sh"
size=100000000
reset big big-jq
for _ in $(seq "$brun"); do
	measure big "$mcpv" "${legacy[@]}" call big -- "$dir/big-server.sh" "$size"
	measure big-jq "$mcpv" "${legacy[@]}" call big -q '.content[0].text | length' -- "$dir/big-server.sh" "$size"
done
big_rss=$(median 2 big)
row "a 100 MB tool result, stdio, to /dev/null" "$(secs "$(median 1 big)"), $(mb "$big_rss")" "the result: 95 MB" \
	"$(ratio "$big_rss" 97657) its size"
row "the same through --jq '.content[0].text \| length'" "$(secs "$(median 1 big-jq)"), $(mb "$(median 2 big-jq)")" "the result: 95 MB" \
	"$(ratio "$(median 2 big-jq)" 97657) its size"

# 4. Memory of a long batch: a million lines against ten thousand.
long=1000000
[ "$quick" = 0 ] || long=100000
reset batch-long batch-short
lines 10000 '{"method":"ping"}' >"$dir/short.jsonl"
measure_in batch-short "$dir/short.jsonl" "$mcpv" "${legacy[@]}" batch --parallel 64 -- "$demo"
lines "$long" '{"method":"ping"}' >"$dir/long.jsonl"
measure_in batch-long "$dir/long.jsonl" "$mcpv" "${legacy[@]}" batch --parallel 64 -- "$demo"
row "batch of $long lines: peak memory (and time)" "$(mb "$(median 2 batch-long)") ($(secs "$(median 1 batch-long)"))" \
	"10,000 lines: $(mb "$(median 2 batch-short)")" "$(ratio "$(median 2 batch-long)" "$(median 2 batch-short)")"

# 5. Against the MCP Inspector CLI, on the npm everything server.
if command -v npm >/dev/null && command -v node >/dev/null; then
	# shellcheck source=lib/npm-pinned.sh
	. "$repo/scripts/lib/npm-pinned.sh"
	npm_pinned "$repo/scripts/bench" "$dir" || rm -rf "$dir/node_modules"
	everything=$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js
	inspector=$dir/node_modules/@modelcontextprotocol/inspector-cli/build/index.js
	if [ -f "$everything" ] && [ -f "$inspector" ]; then
		reset ev-mcpv ev-inspector
		for _ in $(seq "$runs"); do
			measure ev-mcpv env GZIP_ALLOWED_DOMAINS=localhost "$mcpv" list-tools -- node "$everything" stdio
			# The Inspector CLI finds its package.json relative to the working directory.
			(cd "$dir/node_modules" && measure ev-inspector env GZIP_ALLOWED_DOMAINS=localhost node "$inspector" node "$everything" stdio --method tools/list)
		done
		row "one list-tools, npm everything server, stdio" "$(secs "$(median 1 ev-mcpv)"), $(mb "$(median 2 ev-mcpv)")" \
			"Inspector CLI $(secs "$(median 1 ev-inspector)"), $(mb "$(median 2 ev-inspector)")" "$(ratio "$(median 1 ev-inspector)" "$(median 1 ev-mcpv)") faster"
		# The client alone: the same call against the go-sdk demo server.
		reset demo-inspector
		for _ in $(seq "$runs"); do
			(cd "$dir/node_modules" && measure demo-inspector node "$inspector" "$demo" --method tools/list)
		done
		row "one list-tools, go-sdk demo server: the clients alone" "$(secs "$(median 1 list)"), $(mb "$(median 2 list)")" \
			"Inspector CLI $(secs "$(median 1 demo-inspector)"), $(mb "$(median 2 demo-inspector)")" "$(ratio "$(median 1 demo-inspector)" "$(median 1 list)") faster"
		# Sessions: twenty calls through one session against twenty one-shot
		# commands, each starting the server (side by side, a few rounds:
		# the one-shot loop takes seconds).
		"$mcpv" session stop bench >/dev/null 2>&1 || true
		env GZIP_ALLOWED_DOMAINS=localhost "$mcpv" session start bench -- node "$everything" stdio >/dev/null || die "session start failed"
		cat >"$dir/twenty.sh" <<'EOS'
#!/bin/sh
# twenty MCPV FLAG VALUE [SERVER...]: twenty sequential calls, through the
# session (FLAG --session) or each starting SERVER (FLAG --, VALUE its program).
m=$1; shift
i=0
while [ $i -lt 20 ]; do "$m" call echo message=x "$@" >/dev/null || exit 1; i=$((i + 1)); done
EOS
		chmod +x "$dir/twenty.sh"
		reset twenty-session twenty-oneshot warm-call floor-call floor-hello
		for _ in $(seq 3); do
			measure twenty-session "$dir/twenty.sh" "$mcpv" --session bench
			measure twenty-oneshot env GZIP_ALLOWED_DOMAINS=localhost "$dir/twenty.sh" "$mcpv" -- node "$everything" stdio
		done
		# Beside each warm call, the least any client through the keeper
		# does for it (scripts/bench/sessionfloor: attach, the same call,
		# nothing decoded) and the hello-world program.
		sock=$("$mcpv" session list -r -q '.sessions[] | select(.name == "bench") | .socket')
		[ -S "$sock" ] || die "no socket for the bench session"
		echo_call='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}'
		for _ in $(seq "$runs"); do
			measure warm-call "$mcpv" --session bench call echo message=x
			measure floor-call "$dir/sessionfloor" "$sock" "$echo_call"
			measure floor-hello "$dir/hello-world"
		done
		"$mcpv" session stop bench >/dev/null
		row "20 sequential calls, npm everything server, stdio: --session" "$(secs "$(median 1 twenty-session)")" \
			"20 one-shot commands $(secs "$(median 1 twenty-oneshot)")" "$(ratio "$(median 1 twenty-oneshot)" "$(median 1 twenty-session)") faster"
		warm_call=$(median 1 warm-call)
		floor_call=$(median 1 floor-call)
		floor_hello=$(median 1 floor-hello)
		row "the least a client does through that session: attach, one call (sessionfloor)" "$(secs "$floor_call")" \
			"hello-world $(secs "$floor_hello")" "$(ratio "$floor_call" "$floor_hello")"
	else
		echo "(npm could not install the everything server and the Inspector CLI: that comparison is left out)"
	fi
else
	echo "(no node or npm: the Inspector CLI comparison is left out)"
fi

# 6. Start-up alone, against a hello-world Go program.
reset version hello
for _ in $(seq $((runs * 3))); do
	measure version "$mcpv" --version
	measure hello "$dir/hello-world"
done
row "mcpv --version (start-up alone)" "$(secs "$(median 1 version)"), $(mb "$(median 2 version)")" \
	"hello-world Go program $(secs "$(median 1 hello)"), $(mb "$(median 2 hello)")" "$(ratio "$(median 1 version)" "$(median 1 hello)")"
# Package initialisation, as the runtime reports it (ms summed over packages).
: >"$dir/inittrace.t"
for _ in $(seq "$runs"); do
	GODEBUG=inittrace=1 "$mcpv" --version 2>&1 >/dev/null | awk '/^init / {ms += $5; b += $8; a += $10} END {printf "%.3f %d %d\n", ms, b, a}' >>"$dir/inittrace.t"
done
row "package initialisation of mcpv --version (GODEBUG=inittrace=1)" \
	"$(awk '{print $1}' "$dir/inittrace.t" | sort -g | awk '{a[NR]=$1} END{printf "%.2f ms", a[int((NR+1)/2)]}'), $(awk 'NR==1 {printf "%d KB in %d allocations", $2/1024, $3}' "$dir/inittrace.t")" "" ""

# 7. A large listing: 10,000 tools over 100 pages, against 1,000 over 10.
reset many-10k many-1k
for _ in $(seq "$runs"); do
	measure many-10k "$mcpv" "${legacy[@]}" list-tools -- "$dir/manytools-server" 10000 100
	measure many-1k "$mcpv" "${legacy[@]}" list-tools -- "$dir/manytools-server" 1000 100
done
listing=$("$mcpv" "${legacy[@]}" list-tools -- "$dir/manytools-server" 10000 100 | wc -c)
row "list-tools, 10,000 tools over 100 pages ($(mb $((listing / 1024))) of JSON)" "$(secs "$(median 1 many-10k)"), $(mb "$(median 2 many-10k)")" \
	"1,000 tools over 10 pages: $(secs "$(median 1 many-1k)"), $(mb "$(median 2 many-1k)")" "$(ratio "$(median 1 many-10k)" "$(median 1 many-1k)") the time"
# The same server through a warm session: a call of its last tool, which
# the keeper finds in the pages it keeps, against a ping.
"$mcpv" session stop many >/dev/null 2>&1 || true
"$mcpv" "${legacy[@]}" session start many -- "$dir/manytools-server" 10000 100 >/dev/null || die "session start failed"
"$mcpv" --session many call tool_9999 query=x >/dev/null || die "a call through the session failed"
reset many-call many-ping
for _ in $(seq "$runs"); do
	measure many-call "$mcpv" --session many call tool_9999 query=x
	measure many-ping "$mcpv" --session many ping
done
"$mcpv" session stop many >/dev/null
row "one call of the last of those 10,000 tools, through a warm session" "$(secs "$(median 1 many-call)")" \
	"a ping through it $(secs "$(median 1 many-ping)")" "$(ratio "$(median 1 many-call)" "$(median 1 many-ping)")"
if [ -n "${warm_call:-}" ]; then
	# The floor of a call through a warm session: mcpv's own start-up and
	# one round trip with the server (the raw floor's time per ping).
	floor=$(awk -v v="$(median 1 version)" -v r="$raw" -v n="$pings" 'BEGIN{printf "%.4f", v + r/n}')
	row "one call through a warm session (npm everything server)" "$(secs "$warm_call")" \
		"--version + one round trip $(secs "$floor")" "$(ratio "$warm_call" "$floor")"
	# The least that goal's ratio can be: mcpv's start-up, and what the
	# attach and the call through the keeper add to a program that does
	# nothing (sessionfloor beside hello-world, in the same rounds as the
	# warm call).
	least=$(awk -v v="$(median 1 version)" -v f="$floor_call" -v h="$floor_hello" 'BEGIN{printf "%.4f", v + f - h}')
	row "--version + (sessionfloor − hello-world): the least that call could take" "$(secs "$least")" \
		"--version + one round trip $(secs "$floor")" "$(ratio "$least" "$floor")"
fi

# 8. Beside the Go peers (scripts/bench/peers.sh), and the round trips.
peers
trips

# 9. The Go benchmarks, medians of 5 runs each.
gobench=$dir/gobench.txt
echo "running the Go benchmarks"
(cd "$repo" && go test -run '^$' -bench . -benchmem -count 5 ./... 2>&1) | grep -E '^(Benchmark|pkg:)' >"$gobench" || die "go test -bench failed"
gorows=$(awk '
	/^pkg:/ { pkg = $2; sub(/^github.com\/mcpv\/mcpv\/?/, "", pkg); if (pkg == "") pkg = "."; next }
	{
		name = $1; sub(/-[0-9]+$/, "", name); key = pkg " " name
		if (!(key in seen)) { seen[key] = 1; order[++n] = key }
		for (i = 3; i < NF; i++) { u = $(i + 1); if (u ~ /^(ns\/op|MB\/s|B\/op|allocs\/op)$/) { vals[key, u] = vals[key, u] " " $i } }
	}
	function med(s,   a, m, i, j, t) {
		m = split(s, a, " "); if (m == 0) return ""
		for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int((m + 1) / 2)]
	}
	END {
		for (k = 1; k <= n; k++) {
			key = order[k]; split(key, p, " ")
			ns = med(vals[key, "ns/op"]); mbs = med(vals[key, "MB/s"])
			t = (ns >= 1e6) ? sprintf("%.2f ms", ns / 1e6) : (ns >= 1e3) ? sprintf("%.1f µs", ns / 1e3) : sprintf("%.0f ns", ns)
			printf "| %s | %s | %s | %s | %s | %s |\n", p[1], p[2], t, (mbs == "" ? "" : mbs), med(vals[key, "B/op"]), med(vals[key, "allocs/op"])
		}
	}' "$gobench")

# The report.
out=$repo/docs/BENCHMARKS.md
mkdir -p "$repo/docs"
cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || echo unknown)
{
	echo "# Benchmarks"
	echo
	echo "Written by \`bash scripts/bench.sh$([ "$quick" = 1 ] && echo " --quick")\` on $(date -u '+%Y-%m-%d %H:%M UTC')."
	echo "Machine: $(uname -srm), $(nproc) cores ($cpu), $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo) memory;"
	echo "$(go version | cut -d' ' -f3-), node $(node --version 2>/dev/null || echo none)."
	echo
	echo "Each figure is the median of $runs runs ($brun for the batches and the 100 MB result; one for the long batch),"
	echo "wall time and peak RSS of the largest process from GNU time; mcpv and its reference alternate, and a"
	echo "ratio compares their medians. The raw floor is the same server fed the same JSON-RPC messages from"
	echo "a file by the shell, with no client at all."
	echo
	echo "| what | mcpv | reference | ratio |"
	echo "| --- | --- | --- | --- |"
	printf '%s\n' "${rows[@]}"
	echo
	echo "Go benchmarks (\`go test -run '^\$' -bench . -benchmem -count 5 ./...\`, medians):"
	echo
	echo "| package | benchmark | time/op | MB/s | B/op | allocs/op |"
	echo "| --- | --- | --- | --- | --- | --- |"
	echo "$gorows"
	if [ -f "$repo/docs/BENCHMARKS.notes.md" ]; then
		echo
		cat "$repo/docs/BENCHMARKS.notes.md"
	fi
} >"$out"
echo
echo "written to $out"
