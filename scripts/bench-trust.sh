#!/usr/bin/env bash
# Measures what trusting a server costs: mcpv audit of a saved surface of
# 1,000 tools and of a live server with 1,000 tools (beside list-tools of
# the same server, which the live audit must do anyway), mcpv pin --check
# of that server, and mcpv call --pin beside the default call, paired and
# interleaved (scripts/bench/paired.sh): on the go-sdk everything example
# (which lets no list be kept) and on the demo server with -ttl 1h (whose
# tool list mcpv keeps between runs: a call --pin then costs no listing).
#
#   bash scripts/bench-trust.sh [-n RUNS] [--surfaces DIR] [--base MCPV]
#
# RUNS (default 11) is the runs of each timed command, median taken, wall
# time and peak RSS from GNU time; the paired rows run 3×RUNS rounds.
# --surfaces DIR (JSON files of real servers' listings, each with a
# "tools" array, as a field run saves them) adds the rows of 1,000
# real-shaped tools: the first 1,000 tools of those files, in the order
# of their names, served by mcptest's spec server, pinned (a first pin),
# checked, diffed and audited, and the four together; --base MCPV, an
# older build, times the same rows with it beside this checkout's. It
# prints the rows of docs/BENCHMARKS.notes.md's "Trust" section, and the
# audit's rows of real-shaped text (scripts/bench/audit-rows.sh:
# MCPV_BENCH_SURFACES=DIR, a field set, and MCPV_BENCH_BASE=MCPV, an
# older build). Builds go
# OUTSIDE the repository, in ${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}/trust.
# Needs go and GNU time (/usr/bin/time); --surfaces needs node.
set -euo pipefail

runs=11 surfaces="" base=""
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift ;;
	--surfaces) surfaces=$2; shift ;;
	--base) base=$2; shift ;;
	-h | --help) sed -n '2,22p' "$0"; exit 0 ;;
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

# side WHO MCPV WHAT: the command line of WHAT (pin, check, diff, audit)
# against the server of real tools, run by MCPV; a first pin writes a
# file of its own each time.
side() {
	local srv=(--env "MCPV_FAKE=spec=$dir/real.json" --env GORACE=atexit_sleep_ms=0 -- "$dir/fake")
	case $3 in
	pin) echo "sh -c 'rm -f \"\$0\" && exec \"\$@\"' $dir/first-$1.json $2 pin $dir/first-$1.json ${srv[*]}" ;;
	check) echo "$2 pin --check $dir/real-$1.json ${srv[*]}" ;;
	diff) echo "$2 diff --fail-on none $dir/real-$1.json ${srv[*]}" ;;
	audit) echo "$2 audit --fail-on none ${srv[*]}" ;;
	four) echo "sh $dir/four-$1.sh" ;;
	esac
}

# real WHO...: the rows of the server of real tools for each build (WHO
# is before or after, the build bins[WHO]), the builds' runs interleaved
# so that a machine whose load drifts weighs on both alike: median wall
# time, CPU time (user and system, the server's with mcpv's) and peak RSS.
real() {
	local who what
	for who in "$@"; do
		local m=${bins[$who]} srv=(--env "MCPV_FAKE=spec=$dir/real.json" --env GORACE=atexit_sleep_ms=0 -- "$dir/fake")
		rm -f "$dir/real-$who.json"
		"$m" pin "$dir/real-$who.json" "${srv[@]}" >/dev/null
		printf '%s\n' "$(side "$who" "$m" pin) && $(side "$who" "$m" check) && $(side "$who" "$m" diff) && $(side "$who" "$m" audit)" >"$dir/four-$who.sh"
	done
	for what in pin check diff audit four; do
		for who in "$@"; do : >"$dir/times-$who"; done
		for _ in $(seq "$runs"); do
			for who in "$@"; do
				eval "/usr/bin/time -f '%e %U %S %M' -o '$dir/time' $(side "$who" "${bins[$who]}" "$what")" </dev/null >/dev/null 2>"$dir/err" || {
					echo "bench-trust: $who $what failed: $(tail -c 300 "$dir/err")" >&2
					exit 1
				}
				tail -1 "$dir/time" >>"$dir/times-$who"
			done
		done
		for who in "$@"; do
			printf '| %s | %s | %s ms | %s ms | %s MB |\n' "$what" "$who" "$(awk '{print $1 * 1000}' "$dir/times-$who" | median)" \
				"$(awk '{print ($2 + $3) * 1000}' "$dir/times-$who" | median)" "$(awk '{printf "%.0f\n", $4 / 1024}' "$dir/times-$who" | median)"
		done
	done
	for who in "$@"; do
		local code=0
		eval "${bins[$who]} diff $dir/real-$who.json --env MCPV_FAKE=spec=$dir/real.json -- $dir/fake" >/dev/null 2>&1 || code=$?
		echo "| the exit code of mcpv diff PIN -- SERVER, the server unchanged | $who | $code | | |"
	done
}

if [ -n "$surfaces" ]; then
	node -e '
		const fs = require("fs"), path = require("path");
		const dir = process.argv[1], seen = new Set(), tools = [];
		for (const f of fs.readdirSync(dir).filter(f => f.endsWith(".json")).sort()) {
			for (const t of JSON.parse(fs.readFileSync(path.join(dir, f))).tools || []) {
				if (typeof t.name !== "string" || seen.has(t.name)) continue;
				seen.add(t.name);
				tools.push(t);
			}
		}
		tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		if (tools.length < 1000) { console.error("bench-trust: " + dir + " holds " + tools.length + " tools, not 1,000"); process.exit(2); }
		fs.writeFileSync(process.argv[2], JSON.stringify({serverInfo: {name: "real", version: "1"}, tools: tools.slice(0, 1000)}));
	' "$surfaces" "$dir/real.json"
	declare -A bins=([after]=$mcpv)
	builds=(after)
	if [ -n "$base" ]; then
		bins[before]=$base
		builds=(before after)
	fi
	echo
	echo "1,000 real-shaped tools ($(wc -c <"$dir/real.json") bytes listed), median of $runs, the builds interleaved:"
	echo
	echo "| what | build | wall | CPU (user + system) | peak RSS |"
	echo "| --- | --- | --- | --- | --- |"
	real "${builds[@]}"
	echo
	echo "the pin file of them: $(wc -c <"$dir/real-after.json") bytes"
fi

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
