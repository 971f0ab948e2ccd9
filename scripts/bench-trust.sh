#!/usr/bin/env bash
# Measures what trusting a server costs: mcpv audit of a saved surface of
# 1,000 tools and of a live server with 1,000 tools (beside list-tools of
# the same server, which the live audit must do anyway), mcpv pin --check
# of that server, and mcpv call --pin beside the default call, paired and
# interleaved (scripts/bench/paired.sh): on the go-sdk everything example
# (which lets no list be kept) and on the demo server with -ttl 1h (whose
# tool list mcpv keeps between runs: a call --pin then costs no listing).
#
#   bash scripts/bench-trust.sh [-n RUNS]
#
# RUNS (default 11) is the runs of each timed command, median taken, wall
# time and peak RSS from GNU time; the paired rows run 3×RUNS rounds. It
# prints the rows of docs/BENCHMARKS.notes.md's "Trust" section, and the
# audit's rows of real-shaped text (scripts/bench/audit-rows.sh:
# MCPV_BENCH_SURFACES=DIR, a field set, and MCPV_BENCH_BASE=MCPV, an
# older build). Builds go
# OUTSIDE the repository, in ${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}/trust.
# Needs go and GNU time (/usr/bin/time).
set -euo pipefail

runs=11
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift ;;
	-h | --help) sed -n '2,16p' "$0"; exit 0 ;;
	*) echo "bench-trust: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}/trust
mkdir -p "$dir"
(cd "$repo" && CGO_ENABLED=0 go build -o "$dir/mcpv" . && go build -o "$dir/demo" ./examples/demo-server &&
	go build -o "$dir/everything" github.com/modelcontextprotocol/go-sdk/examples/server/everything &&
	go test -c -o "$dir/fake" ./commands) || { echo "bench-trust: build failed" >&2; exit 2; }
mcpv=$dir/mcpv
export XDG_STATE_HOME=$dir/state XDG_CONFIG_HOME=$dir/config GORACE=atexit_sleep_ms=0
rm -rf "$XDG_STATE_HOME"

# A server of 1,000 tools, each with a description of about 200
# characters and three parameters, as a real server's are.
awk 'BEGIN {
	printf "{\"serverInfo\":{\"name\":\"thousand\",\"version\":\"1\"},\"tools\":["
	for (i = 0; i < 1000; i++) {
		printf "%s{\"name\":\"tool_%04d\",\"description\":\"Returns the records of collection %d that match a query, newest first. Use the limit to page through large collections; the cursor comes from the previous answer.\",", (i ? "," : ""), i, i
		printf "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"query\":{\"type\":\"string\",\"description\":\"What to look for.\"},\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100},\"cursor\":{\"type\":\"string\"}},\"required\":[\"query\"]},\"annotations\":{\"readOnlyHint\":true}}"
	}
	printf "]}"
}' >"$dir/thousand.json"
fake=(--env "MCPV_FAKE=spec=$dir/thousand.json" --env GORACE=atexit_sleep_ms=0 -- "$dir/fake")
rm -f "$dir/pins.json"
"$mcpv" pin "$dir/pins.json" "${fake[@]}" >/dev/null

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# timed LABEL CMD...: the median wall time and peak RSS of RUNS runs.
timed() {
	local label=$1
	shift
	: >"$dir/times"
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %M' -o "$dir/time" "$@" </dev/null >/dev/null 2>"$dir/err" || {
			echo "bench-trust: $label failed: $(tail -c 300 "$dir/err")" >&2
			exit 1
		}
		cat "$dir/time" >>"$dir/times"
	done
	printf '| %s | %s ms, %s MB |\n' "$label" \
		"$(awk '{print $1 * 1000}' "$dir/times" | median)" "$(awk '{printf "%.0f\n", $2 / 1024}' "$dir/times" | median)"
}

echo "| what | median of $runs (wall, peak RSS) |"
echo "| --- | --- |"
timed "mcpv audit of a pin file of 1,000 tools (nothing started)" "$mcpv" audit "$dir/pins.json"
timed "mcpv audit of a live server with 1,000 tools (stdio)" "$mcpv" audit "${fake[@]}"
timed "mcpv list-tools of that server (the listing alone)" "$mcpv" list-tools "${fake[@]}"
timed "mcpv pin --check of that server" "$mcpv" pin --check "$dir/pins.json" "${fake[@]}"

rm -f "$dir/ev.json" "$dir/demo.json"
"$mcpv" pin "$dir/ev.json" -- "$dir/everything" >/dev/null 2>&1
"$mcpv" pin "$dir/demo.json" -- "$dir/demo" -ttl 1h >/dev/null
"$mcpv" call echo message=hi -- "$dir/demo" -ttl 1h >/dev/null # the demo's list kept from here on
rounds=$((runs * 3))
echo
echo "paired, $rounds rounds (A is call --pin, B the default call):"
echo "- go-sdk everything example, call greet: $(bash "$repo/scripts/bench/paired.sh" "$rounds" \
	"$mcpv --pin $dir/ev.json call greet name=x -- $dir/everything" "$mcpv call greet name=x -- $dir/everything")"
echo "- demo server -ttl 1h, list kept, call echo: $(bash "$repo/scripts/bench/paired.sh" "$rounds" \
	"$mcpv --pin $dir/demo.json call echo message=hi -- $dir/demo -ttl 1h" "$mcpv call echo message=hi -- $dir/demo -ttl 1h")"

# mcpv audit of real-shaped text (the field set's tools; a description of
# 60 MiB), nothing started: scripts/bench/audit-rows.sh says how.
. "$repo/scripts/bench/audit-rows.sh"
