#!/usr/bin/env bash
# What mcpv cost adds to a listing: mcpv cost of a snapshot of 1,000 tools
# (no server: the listing is already made) against mcpv --version (the
# process's start) and against cost of one tool (start and the vocabulary
# read), medians of RUNS runs' CPU time (GNU time's user and system: wall
# time is what a loaded machine makes it); and the binary's size
# beside BASE's, both built as releases are.
#
#   bash scripts/bench/cost.sh [RUNS]
#
# MCPV_BENCH_SURFACES=DIR draws the tools from real servers' listings (JSON
# files with a tools list, outside the repository); without it they are
# generated. MCPV_BENCH_BASE=REV is the revision to compare the size with
# (default: the commit before internal/cost came).
set -euo pipefail
runs=${1:-11}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/base" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
build() { (cd "$1" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$2" .); }
build . "$tmp/mcpv"
base=${MCPV_BENCH_BASE:-$(git log --format=%H -n1 --diff-filter=A -- internal/cost/cost.go)^}
git worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
build "$tmp/base" "$tmp/mcpv-base"
go test -count=1 -run '^TestWriteBenchSnapshot$' ./internal/cost -v \
	-write-bench-snapshot "$tmp/1000.json" ${MCPV_BENCH_SURFACES:+-bench-from "$MCPV_BENCH_SURFACES"} | grep -o '[0-9]* tools drawn from [0-9]*'
echo '{"mcpvSnapshot":1,"tools":[{"name":"x","inputSchema":{"type":"object"}}],"prompts":[],"resourceTemplates":[]}' >"$tmp/1.json"

median() { # COMMAND...: the median CPU time (user and system) of RUNS runs, in ms: a loaded machine stretches wall time, not this
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%U %S' -o "$tmp/t" "$@" >/dev/null
		awk '{printf "%d\n", ($1 + $2) * 1000}' "$tmp/t"
	done | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'
}
v=$(median "$tmp/mcpv" --version)
e=$(median "$tmp/mcpv" cost "$tmp/1.json")
o=$(median "$tmp/mcpv" cost "$tmp/1000.json")
c=$(median "$tmp/mcpv" cost --tokenizer cl100k "$tmp/1000.json")
printf '%-44s %6s ms\n' "mcpv --version" "$v" "mcpv cost, one tool (start, vocabulary)" "$e" \
	"mcpv cost, 1,000 tools, o200k" "$o" "mcpv cost, 1,000 tools, cl100k" "$c"
printf '%-44s %6s ms\n' "beyond the listing (o200k: cost - version)" "$((o - v))" "counting alone (1,000 tools - one tool)" "$((o - e))"
printf '%-44s %6s\n' "total tokens (o200k)" "$("$tmp/mcpv" cost "$tmp/1000.json" -q .total)"
sb=$(stat -c %s "$tmp/mcpv-base")
sa=$(stat -c %s "$tmp/mcpv")
printf 'binary: %d bytes before, %d after (+%d, +%.1f%%)\n' "$sb" "$sa" "$((sa - sb))" "$(awk "BEGIN {print 100 * ($sa - $sb) / $sb}")"
echo "medians of $runs runs; load $(cut -d' ' -f1-3 /proc/loadavg); $(go version | cut -d' ' -f3-)"
