#!/usr/bin/env bash
# Paired, interleaved timing of two commands on a noisy machine:
#
#   bash scripts/bench/paired.sh ROUNDS 'COMMAND A' 'COMMAND B'
#
# Each round runs A then B (B then A on odd rounds, so neither always goes
# first), each with stdin from /dev/null and its output discarded, timed by
# the shell's microsecond clock. Prints the median of A, the median of B and
# the median of the per-round ratios A/B, with the quartiles of that ratio:
# the figure to trust when the machine's speed drifts between rounds.
set -euo pipefail
[ $# -eq 3 ] || { sed -n '2,10p' "$0" >&2; exit 2; }
rounds=$1 a=$2 b=$3
# once CMD: run the command line CMD (split as the shell would, quotes
# and all, but run straight, with no shell of its own in the time) and
# print its wall time in microseconds.
once() {
	local t0 t1 cmd
	eval "cmd=($1)"
	t0=${EPOCHREALTIME//[!0-9]/}
	"${cmd[@]}" </dev/null >/dev/null 2>&1 || { echo "paired: failed: $1" >&2; exit 1; }
	t1=${EPOCHREALTIME//[!0-9]/}
	echo $((10#$t1 - 10#$t0))
}
for _ in 1 2 3; do once "$a" >/dev/null; once "$b" >/dev/null; done # warm the caches
for i in $(seq "$rounds"); do
	if ((i % 2)); then ta=$(once "$a"); tb=$(once "$b"); else tb=$(once "$b"); ta=$(once "$a"); fi
	echo "$ta $tb"
done | awk -f "$(dirname "$0")/ratio.awk" |
	awk '{ printf "A %.2f ms  B %.2f ms  A/B median %.3f (quartiles %.3f-%.3f, %d rounds)\n", $1 / 1000, $2 / 1000, $3, $4, $5, $6 }'
