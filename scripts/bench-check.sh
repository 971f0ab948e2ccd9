#!/usr/bin/env bash
# Measures mcpv check: a full check of the go-sdk everything server over
# stdio and over Streamable HTTP (sessions), beside the same check by the
# mcpv of another revision (BASE), paired and interleaved
# (scripts/bench/paired.sh); the server processes a run starts over stdio
# (go-sdk's and, when it is installed, the npm everything server's), with a
# check's time beside one list-tools of the same server; and the
# connection doctor's verdict on servers that do not connect.
#
#   bash scripts/bench-check.sh [-n RUNS] [-base REV]
#
# RUNS (default 11) rounds of each pair; REV (default: the revision before
# the check's round two, 47fef6e) is built from git. The npm everything
# server is used when ${MCPV_E2E_DIR:-${TMPDIR:-/tmp}/mcpv-e2e-everything}
# holds it (scripts/e2e-everything.sh installs it). Builds go OUTSIDE the
# repository, in ${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}/check.
set -euo pipefail

runs=11
base=47fef6e
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift ;;
	-base) base=$2; shift ;;
	-h | --help) sed -n '2,17p' "$0"; exit 0 ;;
	*) echo "bench-check: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=${MCPV_BENCH_DIR:-${TMPDIR:-/tmp}/mcpv-bench}/check
mkdir -p "$dir"
rm -rf "$dir/base-src" && mkdir -p "$dir/base-src"
(cd "$repo" && git archive "$base" | tar -x -C "$dir/base-src") || { echo "bench-check: no revision $base" >&2; exit 2; }
(cd "$repo" && CGO_ENABLED=0 go build -o "$dir/mcpv" . &&
	go build -o "$dir/everything-server" github.com/modelcontextprotocol/go-sdk/conformance/everything-server) &&
	(cd "$dir/base-src" && CGO_ENABLED=0 go build -o "$dir/mcpv-base" .) || { echo "bench-check: build failed" >&2; exit 2; }
export XDG_STATE_HOME=$dir/state XDG_CONFIG_HOME=$dir/config
paired=$repo/scripts/bench/paired.sh

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$dir/everything-server" -http "127.0.0.1:$port" -stateless=false </dev/null >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/mcp" && break; sleep 0.1; done

# A check's verdict on the everything server may be FAIL (exit 1): a
# defect of the server's, which the run reports like any other; the time
# is what is measured here.
export PAIRED_EXIT='0 1'
echo "## a full check, this revision against $base (paired, $runs rounds: medians, ratio and its quartiles)"
echo "stdio:"
bash "$paired" "$runs" "$dir/mcpv check -- $dir/everything-server" "$dir/mcpv-base check -- $dir/everything-server"
echo "Streamable HTTP (sessions):"
bash "$paired" "$runs" "$dir/mcpv check -u http://127.0.0.1:$port/mcp" "$dir/mcpv-base check -u http://127.0.0.1:$port/mcp"

# starts CMD...: the server processes a run of CMD starts (the server
# command wrapped in a script that counts), and its wall time.
counter=$dir/count.sh
printf '#!/bin/sh\necho start >>"%s/starts"\nexec "$@"\n' "$dir" >"$counter"
chmod +x "$counter"
starts() {
	rm -f "$dir/starts"
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	printf '%s processes, %.2f s\n' "$(wc -l <"$dir/starts" 2>/dev/null || echo 0)" "$(echo "$t1 - $t0" | bc)"
}
echo "## server processes a stdio run starts"
printf 'go-sdk everything, this revision: '; starts "$dir/mcpv" check -- "$counter" "$dir/everything-server"
printf 'go-sdk everything, %s: ' "$base"; starts "$dir/mcpv-base" check -- "$counter" "$dir/everything-server"
entry=${MCPV_E2E_DIR:-${TMPDIR:-/tmp}/mcpv-e2e-everything}/node_modules/@modelcontextprotocol/server-everything/dist/index.js
if [ -f "$entry" ]; then
	export GZIP_ALLOWED_DOMAINS=localhost
	for k in 1 2 3; do
		printf 'npm everything, list-tools (run %d): ' "$k"; starts "$dir/mcpv" list-tools -- "$counter" node "$entry" stdio
		printf 'npm everything, check, this revision (run %d): ' "$k"; starts "$dir/mcpv" check -- "$counter" node "$entry" stdio
		printf 'npm everything, check, %s (run %d): ' "$base" "$k"; starts "$dir/mcpv-base" check -- "$counter" node "$entry" stdio
	done
fi

echo "## the doctor's verdict on a server that does not connect"
for cmd in "check -- $dir/no-such-server" "check --connect-only -u http://127.0.0.1:1/mcp" "check -- sh -c 'echo oops >&2; exit 3'"; do
	t0=$(date +%s.%N)
	eval "\"$dir/mcpv\" $cmd" >/dev/null 2>&1 || true
	t1=$(date +%s.%N)
	printf '%-50s %.3f s\n' "mcpv $cmd" "$(echo "$t1 - $t0" | bc)"
done
