#!/usr/bin/env bash
# User-space instructions of `mcpv --version`: start-up alone, counted by
# valgrind's cachegrind (its "I refs"), which a loaded machine does not
# change as it changes time. mcpv is built as its releases are (static,
# -trimpath, -ldflags "-s -w").
#
#   bash scripts/bench/instructions.sh [RUNS]
#
# Prints the median of RUNS (default 11) counts, and the same for each of
# these when given, built the same way by whoever sets them:
#   MCPV_BENCH_MCPTOOLS=PATH  mcptools, run as `mcptools version`
#   MCPV_BENCH_BEFORE=PATH    another mcpv build (say, of an earlier commit)
# perf stat -e instructions:u counts the same where the machine has the
# counters; a virtual machine often has not.
set -euo pipefail
runs=${1:-11}
cd "$(dirname "$0")/../.."
command -v valgrind >/dev/null || { echo "instructions.sh: valgrind is needed (apt install valgrind)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/mcpv" .

count() { # PROGRAM ARGS...: the median of the runs' I refs
	for _ in $(seq "$runs"); do
		valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
			awk '/I +refs:/ {gsub(",", "", $NF); print $NF}'
	done | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}

printf '%-28s %s\n' "mcpv --version" "$(count "$tmp/mcpv" --version)"
[ -z "${MCPV_BENCH_BEFORE:-}" ] || printf '%-28s %s\n' "before: --version" "$(count "$MCPV_BENCH_BEFORE" --version)"
[ -z "${MCPV_BENCH_MCPTOOLS:-}" ] || printf '%-28s %s\n' "mcptools version" "$(count "$MCPV_BENCH_MCPTOOLS" version)"
echo "medians of $runs runs each; $(go version | cut -d' ' -f3-)"
