#!/usr/bin/env bash
# Measures mcpv's peak memory under a flood of notifications: one call
# against mcptest's fake server (log-flood=N), which sends N log messages
# and N/10 progress notifications before the result.
#
#   bash scripts/bench-flood.sh [-n RUNS] [--mcpv PATH] [N]
#
# N defaults to 1,000,000, RUNS to 5. For each of three runs (log messages
# to stderr, a file; the same with --events FILE; and --quiet, which shows
# no log messages) it prints the median wall time and peak RSS (GNU time's
# %M: the largest of mcpv and the fake it waits for, which stays far below
# mcpv), and of the last run the log lines shown, the ones dropped and the
# notices that counted them, and the lines of --events. It checks that the
# result came through intact, and that every log message was either shown
# or counted as dropped. --mcpv measures another build of mcpv (an older
# one, for a comparison) against the same fake server.
# Binaries are built outside the repository, in
#   ${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}
# Needs go and GNU time (/usr/bin/time).
set -euo pipefail

runs=5
mcpv=
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift ;;
	--mcpv) mcpv=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift ;;
	-h | --help) sed -n '2,21p' "$0"; exit 0 ;;
	-*) echo "bench-flood: unknown argument $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
n=${1:-1000000}
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}/flood
mkdir -p "$dir"
(cd "$repo" && CGO_ENABLED=0 go build -o "$dir/mcpv" . && go test -tags e2e -c -o "$dir/fake" ./e2e)
mcpv=${mcpv:-$dir/mcpv}

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# one LABEL MCPV-FLAGS...: runs the call RUNS times, prints a row.
one() {
	local label=$1
	shift
	: >"$dir/times"
	for _ in $(seq "$runs"); do
		rm -f "$dir/events"
		MCPV_FAKE="plain,log-flood=$n" /usr/bin/time -f '%e %M' -o "$dir/time" \
			"$mcpv" "$@" call x --no-validate -q '.content[0].text' -r -- "$dir/fake" \
			>"$dir/out" 2>"$dir/err"
		if [ "$(cat "$dir/out")" != ok ]; then
			echo "bench-flood: $label: the result did not come through: $(tail -c 300 "$dir/err")" >&2
			exit 1
		fi
		cat "$dir/time" >>"$dir/times"
	done
	local secs kb
	secs=$(awk '{print $1}' "$dir/times" | median)
	kb=$(awk '{print $2}' "$dir/times" | median)
	# Of the last run: the log lines shown, the notices of dropped ones and
	# the count they give, which must add up to N; the events written.
	local shown notices dropped events=-
	shown=$(grep -c '^server\[info\] flood: log ' "$dir/err" || true)
	notices=$(grep -c '^mcpv: warning: dropped ' "$dir/err" || true)
	dropped=$(awk '/^mcpv: warning: dropped / {
		if (match($0, /[0-9]+ of them log messages/)) n += substr($0, RSTART) + 0
		else if (match($0, /dropped [0-9]+ log messages/)) n += substr($0, RSTART + 8) + 0
	} END {print n + 0}' "$dir/err")
	if [ "$label" != quiet ] && [ $((shown + dropped)) -ne "$n" ]; then
		echo "bench-flood: $label: $shown log lines shown and $dropped counted as dropped, not $n" >&2
		exit 1
	fi
	if [ -f "$dir/events" ]; then
		events=$(wc -l <"$dir/events")
	fi
	printf '| %s | %.0f MB | %s s | %s | %s in %s notices | %s |\n' "$label" "$((kb))e-3" "$secs" "$shown" "$dropped" "$notices" "$events"
}

echo "$n log messages and $((n / 10)) progress notifications before one result; median of $runs runs"
echo
echo "| run | peak RSS | wall | log lines shown | dropped | events written |"
echo "| --- | --- | --- | --- | --- | --- |"
one "log messages to stderr (a file)"
one "the same, with --events FILE" --events "$dir/events"
one quiet --quiet
