#!/usr/bin/env bash
# Measures what a list's length costs: mcpv list-tools of a 100,000-page
# list beside a 10-page one (peak RSS of mcpv alone: the server runs on
# FIFOs, outside mcpv's process tree, so that its memory is not counted),
# a list that never ends (each page new items) walked to its bound, and a
# call of a tool on page 1 of a list that never ends beside a call on a
# one-page list (paired and interleaved, scripts/bench/paired.sh). With
# BASE=PATH-TO-AN-OLDER-MCPV it also runs the kept-era fast path (a call
# while the demo server's discover result and tool list are kept, -ttl 1h)
# of BASE beside this checkout's, paired.
#
#   bash scripts/bench-lists.sh [-n RUNS]
#
# RUNS (default 5) is the runs of each timed command, median taken; the
# paired rows run 7×RUNS rounds. Builds go OUTSIDE the repository, in
# ${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}/lists. Needs go and GNU time.
set -euo pipefail

runs=5
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift ;;
	-h | --help) sed -n '2,16p' "$0"; exit 0 ;;
	*) echo "bench-lists: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}/lists
mkdir -p "$dir"
(cd "$repo" && CGO_ENABLED=0 go build -o "$dir/mcpv" . && go build -o "$dir/demo" ./examples/demo-server &&
	go test -c -o "$dir/fake" ./commands) || { echo "bench-lists: build failed" >&2; exit 2; }
mcpv=$dir/mcpv
export XDG_STATE_HOME=$dir/state XDG_CONFIG_HOME=$dir/config
rm -rf "$XDG_STATE_HOME"

echo '{"generateTools":100000,"pageSize":1}' >"$dir/p100k.json"
echo '{"generateTools":10,"pageSize":1}' >"$dir/p10.json"
echo '{"tools":[{"name":"x","inputSchema":{"type":"object"}}],"pageSize":50,"endlessItems":["tools/list"]}' >"$dir/endless.json"
echo '{"tools":[{"name":"x","inputSchema":{"type":"object"}}]}' >"$dir/one.json"

# apart SPEC ARGS...: mcpv ARGS against the fake server of SPEC on FIFOs;
# prints "KB SECONDS EXIT" (GNU time's peak RSS of mcpv and two cats).
apart() {
	local spec=$1 d code
	shift
	d=$(mktemp -d "$dir/fifo.XXXXXX")
	mkfifo "$d/in" "$d/out"
	MCPV_FAKE=spec=$spec "$dir/fake" <"$d/in" >"$d/out" 2>/dev/null &
	code=0
	/usr/bin/time -o "$d/time" -f "%M %e" "$mcpv" "$@" -- sh -c "cat '$d/out' & exec cat > '$d/in'" >/dev/null 2>&1 || code=$?
	wait
	echo "$(cat "$d/time" | tail -1) $code"
	rm -rf "$d"
}

# median FIELD ROWS...: the median of one field of whitespace-separated rows.
median() {
	local f=$1
	shift
	printf '%s\n' "$@" | awk -v f="$f" '{ print $f }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

row() { # LABEL SPEC ARGS...
	local label=$1 spec=$2 rows=() i
	shift 2
	for ((i = 0; i < runs; i++)); do rows+=("$(apart "$spec" "$@")"); done
	printf '| %s | %s s | %s MB | exit %s |\n' "$label" "$(median 2 "${rows[@]}")" \
		"$(awk -v k="$(median 1 "${rows[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')" "$(median 3 "${rows[@]}")"
}

echo "| what | wall (median of $runs) | peak RSS of mcpv | |"
echo "| --- | --- | --- | --- |"
row "list-tools, 10 pages of one tool" "$dir/p10.json" list-tools
row "list-tools, 100,000 pages of one tool" "$dir/p100k.json" list-tools
row "list-tools, a list that never ends (50 new tools a page)" "$dir/endless.json" list-tools
echo
bash "$repo/scripts/bench/paired.sh" $((7 * runs)) \
	"$mcpv call x --env MCPV_FAKE=spec=$dir/endless.json -- $dir/fake" \
	"$mcpv call x --env MCPV_FAKE=spec=$dir/one.json -- $dir/fake"
if [ -n "${BASE:-}" ]; then
	"$mcpv" call echo message=hi -- "$dir/demo" -ttl 1h >/dev/null # kept for the runs after
	bash "$repo/scripts/bench/paired.sh" $((7 * runs)) \
		"$BASE call echo message=hi -- $dir/demo -ttl 1h" \
		"$mcpv call echo message=hi -- $dir/demo -ttl 1h"
fi
