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
#
# Each program is run from PAIRED_COPIES copies of its file (default 4, in a
# temporary directory), a different copy each round: on a virtual machine the
# same bytes run measurably faster or slower from one file than from another
# (a byte-identical copy of mcpv took 0.965x and 1.052x the time of its
# original in two such tests), which would otherwise count as the change
# being measured. PAIRED_COPIES=1 runs the files named.
#
# A command that exits with another code than 0 fails the run, unless
# PAIRED_EXIT lists it (PAIRED_EXIT='0 1': a check whose verdict is FAIL).
set -euo pipefail
[ $# -eq 3 ] || { sed -n '2,20p' "$0" >&2; exit 2; }
rounds=$1 a=$2 b=$3
copies=${PAIRED_COPIES:-4}
[[ $copies =~ ^[1-9][0-9]*$ ]] || { echo "paired: PAIRED_COPIES must be a positive number" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/paired.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# spread NAME CMD: copy the program of the command line CMD to
# $tmp/NAME.1 ... $tmp/NAME.$copies (with one copy, name the file itself).
spread() {
	local name=$1 cmd prog k
	eval "cmd=($2)"
	prog=$(type -P "${cmd[0]}") || { echo "paired: no program file ${cmd[0]}" >&2; exit 2; }
	for ((k = 1; k <= copies; k++)); do
		if ((copies == 1)); then ln -s "$prog" "$tmp/$name.$k"; else cp "$prog" "$tmp/$name.$k"; fi
	done
}
spread a "$a"
spread b "$b"
# once NAME K CMD: run the command line CMD (split as the shell would,
# quotes and all, but run straight, with no shell of its own in the time)
# with its program's copy K, and print its wall time in microseconds.
once() {
	local t0 t1 cmd
	eval "cmd=($3)"
	cmd[0]=$tmp/$1.$2
	t0=${EPOCHREALTIME//[!0-9]/}
	local rc=0
	"${cmd[@]}" </dev/null >/dev/null 2>&1 || rc=$?
	case " ${PAIRED_EXIT:-0} " in
	*" $rc "*) ;;
	*) echo "paired: failed (exit $rc): $3" >&2; exit 1 ;;
	esac
	t1=${EPOCHREALTIME//[!0-9]/}
	echo $((10#$t1 - 10#$t0))
}
for ((k = 1; k <= copies; k++)); do once a "$k" "$a" >/dev/null; once b "$k" "$b" >/dev/null; done # warm the caches
for i in $(seq "$rounds"); do
	k=$((i % copies + 1))
	if ((i % 2)); then ta=$(once a "$k" "$a"); tb=$(once b "$k" "$b"); else tb=$(once b "$k" "$b"); ta=$(once a "$k" "$a"); fi
	echo "$ta $tb"
done | awk -f "$(dirname "$0")/ratio.awk" |
	awk '{ printf "A %.2f ms  B %.2f ms  A/B median %.3f (quartiles %.3f-%.3f, %d rounds)\n", $1 / 1000, $2 / 1000, $3, $4, $5, $6 }'
