#!/usr/bin/env bash
# Measures mcpv serve in front of several servers (a gateway): four go-sdk
# demo servers over stdio, behind one serve --http, beside one serve
# --http per server, and beside mcporter's serve (its daemon's keep-alive
# servers behind one bridge) when npm can install it:
#
#   - calls per second, 16 clients spread over the four servers (four
#     mcpv load runs at once, -c 4 each, tools/call echo): through one
#     serve per server, through the gateway (SERVER__echo at the
#     endpoint, and echo at each server's own path), through mcporter's;
#   - the latency one client sees (p50 and p90 of mcpv load -c 1): one
#     serve, the gateway, mcporter's bridge;
#   - start-up with twenty servers that never start: mcpv info (stdio)
#     through serve --start lazy, and through mcporter serve --stdio,
#     bounded by --connect-timeout 20s;
#   - one server inside a 40 s call: a server that answers one request at
#     a time (mcptest's fake, serial) is called through the gateway for
#     40 s, and meanwhile a list-tools through the gateway and a call to
#     another of its servers (mcpv call, which lists the tools first) are
#     timed, once each per run (a run takes the call's 40 s).
#
#   bash scripts/bench-gateway.sh [-d DURATION] [-n RUNS]
#
# DURATION (default 10s) is each load run's; RUNS (default 3) how many of
# each are run, interleaved, the median taken. With taskset and two CPUs or
# more, what is measured (the serves, the bridges and their servers) runs
# on the first CPU and the clients on the others, so that one process
# serving four servers and four processes serving one each have the same
# CPU to do it with (on a machine where clients and servers share every
# core, four processes get four times the scheduler's share of one). It prints the rows of
# docs/BENCHMARKS.md's "mcpv serve in front of several servers". Builds
# and npm packages go OUTSIDE the repository, in
# ${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}/gateway. Needs go, and
# node and npm for mcporter (left out, and said, without them).
set -euo pipefail

duration=10s
runs=3
while [ $# -gt 0 ]; do
	case $1 in
	-d) duration=$2; shift ;;
	-n) runs=$2; shift ;;
	-h | --help) sed -n '2,34p' "$0"; exit 0 ;;
	*) echo "bench-gateway: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}/gateway
mkdir -p "$dir"
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/mcpv" . && go build -o "$dir/demo" ./examples/demo-server &&
	go test -tags e2e -c -o "$dir/fake" ./e2e) ||
	{ echo "bench-gateway: build failed" >&2; exit 2; }
mcpv=$dir/mcpv
export HOME=$dir/home XDG_CONFIG_HOME=$dir/home/.config XDG_STATE_HOME=$dir/state
rm -rf "$HOME" "$XDG_STATE_HOME"
mkdir -p "$XDG_CONFIG_HOME/mcpv" "$dir/cfg/config"

# The four servers, and twenty that never start (a program that reads
# nothing and says nothing), in mcpv's catalog and mcporter's config.
{
	echo "servers:"
	for s in s1 s2 s3 s4; do echo "  $s: {command: $dir/demo}"; done
	echo "  serial: {command: $dir/fake, env: {MCPV_FAKE: 'serial,delay=40s'}}"
	for i in $(seq 1 20); do echo "  never$i: {command: sleep, args: ['600']}"; done
} >"$XDG_CONFIG_HOME/mcpv/servers.yaml"
{
	printf '{"mcpServers": {'
	for s in s1 s2 s3 s4; do printf '"%s": {"command": "%s", "lifecycle": "keep-alive"}, ' "$s" "$dir/demo"; done
	printf '"x": {"command": "%s"}}}\n' "$dir/demo"
} >"$dir/cfg/config/mcporter.json"
{
	printf '{"mcpServers": {'
	for i in $(seq 1 20); do printf '%s"never%d": {"command": "sleep", "args": ["600"], "lifecycle": "keep-alive"}' "$([ "$i" = 1 ] || echo ,)" "$i"; done
	printf '}}\n'
} >"$dir/never.json"

sut=() clients=()
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
	sut=(taskset -c 0) clients=(taskset -c "1-$(($(nproc) - 1))")
fi

mcporter=""
if command -v npm >/dev/null && command -v node >/dev/null; then
	if [ ! -x "$dir/npm/node_modules/.bin/mcporter" ]; then
		mkdir -p "$dir/npm"
		(cd "$dir/npm" && npm install --no-audit --no-fund --silent mcporter@0.12.3 >/dev/null 2>&1) || true
	fi
	[ -x "$dir/npm/node_modules/.bin/mcporter" ] && mcporter=$dir/npm/node_modules/.bin/mcporter
fi
[ -n "$mcporter" ] || echo "bench-gateway: mcporter could not be installed (npm): its rows are left out" >&2

pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	if [ -n "$mcporter" ]; then (cd "$dir/cfg" && "$mcporter" daemon stop >/dev/null 2>&1) || true; fi
}
trap cleanup EXIT

# serving PORT ARGS...: starts mcpv serve --http on PORT, waits for it.
serving() {
	local port=$1
	shift
	"${sut[@]}" "$mcpv" serve --http "127.0.0.1:$port" --http-no-token "$@" 2>>"$dir/serve.log" &
	pids+=($!)
	for _ in $(seq 100); do
		"$mcpv" -u "http://127.0.0.1:$port/mcp" ping >/dev/null 2>&1 && return
		sleep 0.1
	done
	echo "bench-gateway: serve on $port did not start" >&2
	exit 1
}
serving 18961 -s s1
serving 18962 -s s2
serving 18963 -s s3
serving 18964 -s s4
serving 18960 -s s1 -s s2 -s s3 -s s4
if [ -n "$mcporter" ]; then
	(cd "$dir/cfg" && exec "${sut[@]}" "$mcporter" serve --http 18970 >>"$dir/mcporter.log" 2>&1) &
	pids+=($!)
	for _ in $(seq 100); do
		"$mcpv" -u http://127.0.0.1:18970/mcp call s4__echo message=up >/dev/null 2>&1 && break
		sleep 0.2
	done
fi

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# load4 URL1 TOOL1 ... URL4 TOOL4: four mcpv load runs at once, -c 4 each;
# prints their summed calls per second.
load4() {
	local i=0 outs=()
	while [ $# -gt 0 ]; do
		"${clients[@]}" "$mcpv" load call "$2" message=hi -c 4 -d "$duration" -u "$1" --format json -q .ok_per_s >"$dir/load.$i" 2>>"$dir/load.err" &
		outs+=($!)
		i=$((i + 1))
		shift 2
	done
	wait "${outs[@]}"
	cat "$dir"/load.[0-3] | awk '{s += $1} END {printf "%.0f\n", s}'
}

# one URL TOOL: the p50 and p90 latency, ms, of one client's 2,000 calls.
one() {
	"${clients[@]}" "$mcpv" load call "$2" message=hi -c 1 -n 2000 -u "$1" --format json -r -q '"\(.latency_ms.p50) \(.latency_ms.p90)"' 2>>"$dir/load.err"
}

: >"$dir/direct" ; : >"$dir/gw" ; : >"$dir/gwpath" ; : >"$dir/mcporter"
: >"$dir/l-direct" ; : >"$dir/l-gw" ; : >"$dir/l-mcporter"
for _ in $(seq "$runs"); do
	load4 http://127.0.0.1:18961/mcp echo http://127.0.0.1:18962/mcp echo http://127.0.0.1:18963/mcp echo http://127.0.0.1:18964/mcp echo >>"$dir/direct"
	load4 http://127.0.0.1:18960/mcp s1__echo http://127.0.0.1:18960/mcp s2__echo http://127.0.0.1:18960/mcp s3__echo http://127.0.0.1:18960/mcp s4__echo >>"$dir/gw"
	load4 http://127.0.0.1:18960/mcp/s1 echo http://127.0.0.1:18960/mcp/s2 echo http://127.0.0.1:18960/mcp/s3 echo http://127.0.0.1:18960/mcp/s4 echo >>"$dir/gwpath"
	[ -z "$mcporter" ] || load4 http://127.0.0.1:18970/mcp s1__echo http://127.0.0.1:18970/mcp s2__echo http://127.0.0.1:18970/mcp s3__echo http://127.0.0.1:18970/mcp s4__echo >>"$dir/mcporter"
	one http://127.0.0.1:18961/mcp echo >>"$dir/l-direct"
	one http://127.0.0.1:18960/mcp s1__echo >>"$dir/l-gw"
	[ -z "$mcporter" ] || one http://127.0.0.1:18970/mcp s1__echo >>"$dir/l-mcporter"
done
direct=$(median <"$dir/direct")
row() { printf '| %s | %s |\n' "$1" "$2"; }
echo "| 16 clients over 4 servers, tools/call echo, $duration, median of $runs | calls/s | of one serve per server |"
echo "| --- | --- | --- |"
printf '| one serve --http per server | %s | 1.00× |\n' "$direct"
for f in gw gwpath mcporter; do
	[ -s "$dir/$f" ] || continue
	label=$(case $f in gw) echo "the gateway, SERVER__echo at /mcp" ;; gwpath) echo "the gateway, echo at /mcp/SERVER" ;; mcporter) echo "mcporter 0.12.3 serve --http (its daemon's keep-alive servers)" ;; esac)
	v=$(median <"$dir/$f")
	printf '| %s | %s | %.2f× |\n' "$label" "$v" "$(awk -v a="$v" -v b="$direct" 'BEGIN {print a / b}')"
done
echo
echo "| one client, 2,000 calls, median of $runs runs | p50 | p90 |"
echo "| --- | --- | --- |"
for f in l-direct l-gw l-mcporter; do
	[ -s "$dir/$f" ] || continue
	label=$(case $f in l-direct) echo "one serve --http" ;; l-gw) echo "the gateway (s1__echo)" ;; l-mcporter) echo "mcporter serve --http" ;; esac)
	printf '| %s | %s ms | %s ms |\n' "$label" "$(awk '{print $1}' "$dir/$f" | median)" "$(awk '{print $2}' "$dir/$f" | median)"
done

# Start-up with twenty servers that never start: the initialize answered.
never=()
for i in $(seq 1 20); do never+=(-s "never$i"); done
timed() {
	local label=$1
	shift
	: >"$dir/times"
	local code=0
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e' -o "$dir/time" "$@" </dev/null >/dev/null 2>"$dir/err" || code=$?
		cat "$dir/time" | tail -1 >>"$dir/times"
	done
	printf '| %s | %s ms | %s |\n' "$label" "$(awk '{print $1 * 1000}' "$dir/times" | median)" \
		"$([ $code = 0 ] && echo "answered" || echo "not answered (exit $code: $(tail -c 120 "$dir/err" | tr '\n' ' '))")"
}
echo
echo "| 20 servers that never start, mcpv info through each (stdio), median of $runs | wall | initialize |"
echo "| --- | --- | --- |"
timed "mcpv serve --start lazy" "$mcpv" --connect-timeout 20s info -- "$mcpv" serve --start lazy "${never[@]}"
timed "mcpv serve (eager, in the background)" "$mcpv" --connect-timeout 20s info -- "$mcpv" serve "${never[@]}"
if [ -n "$mcporter" ]; then
	mkdir -p "$dir/never/config" && cp "$dir/never.json" "$dir/never/config/mcporter.json"
	timed "mcporter serve --stdio" bash -c "cd $dir/never && exec $mcpv --connect-timeout 20s info -- $mcporter serve --stdio"
	(cd "$dir/never" && "$mcporter" daemon stop >/dev/null 2>&1) || true
fi

# One server inside a 40 s call: the gateway of s1 and the serial fake,
# whose first call takes 40 s and holds up every request after it. A
# list is made first, so that the gateway has seen every server's list.
serving 18965 -s serial -s s1
"$mcpv" -u http://127.0.0.1:18965/mcp list-tools >/dev/null
: >"$dir/busy-list" ; : >"$dir/busy-call"
for _ in $(seq "$runs"); do
	"$mcpv" -u http://127.0.0.1:18965/mcp --timeout 2m call serial__x >/dev/null 2>&1 &
	busy=$!
	sleep 1 # the call is under way
	/usr/bin/time -f '%e' -o "$dir/time" "$mcpv" -u http://127.0.0.1:18965/mcp list-tools >/dev/null 2>>"$dir/busy.err"
	awk '{print $1 * 1000}' "$dir/time" >>"$dir/busy-list"
	/usr/bin/time -f '%e' -o "$dir/time" "$mcpv" -u http://127.0.0.1:18965/mcp call s1__echo message=hi >/dev/null 2>>"$dir/busy.err"
	awk '{print $1 * 1000}' "$dir/time" >>"$dir/busy-call"
	wait "$busy" || true # the server answers nothing else until its call ends
done
echo
echo "| one server inside a 40 s call, through the gateway, median of $runs | median | longest |"
echo "| --- | --- | --- |"
printf '| mcpv list-tools | %s ms | %s ms |\n' "$(median <"$dir/busy-list")" "$(sort -n "$dir/busy-list" | tail -1)"
printf '| mcpv call to another server (s1__echo) | %s ms | %s ms |\n' "$(median <"$dir/busy-call")" "$(sort -n "$dir/busy-call" | tail -1)"
