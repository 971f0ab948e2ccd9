#!/usr/bin/env bash
# mcpv check over real MCP servers from npm that are not in the
# compatibility suite, over stdio and, where a server offers it, Streamable
# HTTP (docs/COMPATIBILITY.md, "mcpv check"). The servers are pinned in
# scripts/check-field/package.json and package-lock.json and installed
# with npm ci --ignore-scripts OUTSIDE the repository, in
#   ${MCPV_CHECK_FIELD_DIR:-${TMPDIR:-/tmp}/mcpv-check-field}
# (no install script runs: one would download a browser). mcpv is built
# from this checkout. Nothing needs the network after the install: the
# servers are started without credentials and only listed, read and
# probed, never asked to call a tool.
#
#   bash scripts/check-field.sh
#
# Prints a line per server and transport: its protocol version, the counts,
# and the ids of the checks that failed and warned; each JSON report is
# kept in that directory as check-NAME.json. Exit status 0, or 2 on set-up
# errors: what the servers get wrong is theirs, not a failure of the script.
set -euo pipefail

die() { echo "check-field: $*" >&2; exit 2; }
command -v npm >/dev/null || die "npm is required"
command -v go >/dev/null || die "go is required"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
dir=${MCPV_CHECK_FIELD_DIR:-${TMPDIR:-/tmp}/mcpv-check-field}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd -P)
case "$dir/" in "$repo"/*) die "MCPV_CHECK_FIELD_DIR must be outside the repository" ;; esac
src=$repo/scripts/check-field
if [ ! -d "$dir/node_modules" ] || ! cmp -s "$src/package-lock.json" "$dir/package-lock.json"; then
	cp "$src/package.json" "$src/package-lock.json" "$dir/"
	(cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) || { rm -f "$dir/package-lock.json"; die "npm ci failed in $dir"; }
fi
(cd "$repo" && go build -o "$dir/mcpv" .) || die "go build failed"
m=$dir/node_modules
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpv-check-field.XXXXXX")
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

# summary NAME: the report's line.
summary() {
	node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const by = (s) => r.areas.flatMap((a) => a.checks).filter((c) => c.status === s).map((c) => c.id);
const c = r.counts;
console.log(`${process.argv[2].padEnd(30)} ${r.protocolVersion}, ${c.passed} passed, ${c.failed} failed, ${c.warned || 0} warned, ${c.skipped} skipped` +
  (by("failed").length ? `\n    failed: ${by("failed").join(", ")}` : "") + (by("warned").length ? `\n    warned: ${by("warned").join(", ")}` : ""));
' "$dir/check-$1.json" "$1" 2>/dev/null || { echo "$1: no report"; tail -n 3 "$work/err" | sed 's/^/    | /'; }
}

# check NAME ARGS...: mcpv check with ARGS (the server), in an empty HOME.
check() {
	local name=$1
	shift
	(cd "$work" && HOME=$work timeout -s KILL 600 "$dir/mcpv" check --format json -c "$@" </dev/null >"$dir/check-$name.json" 2>"$work/err") || true
	summary "$name"
}

# http NAME HOST PATH SCRIPT ARGS...: start node SCRIPT ARGS (on 127.0.0.1,
# the port it reports), mcpv check http://HOST:PORT/PATH, stop it. HOST is
# localhost for the servers that take no other name.
http() {
	local name=$1 host=$2 path=$3 port i free
	shift 3
	# A free port, given as @PORT@: a server that checks the Host header
	# against the port it was given must be given the one it gets.
	free=$(node -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
	PORT=$free node -r "$repo/scripts/npm/loopback.cjs" "${@//@PORT@/$free}" </dev/null >"$work/serve.log" 2>&1 &
	pid=$!
	port=""
	for i in $(seq 300); do
		port=$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$work/serve.log" | head -n 1)
		[ -n "$port" ] && break
		sleep 0.1
	done
	if [ -z "$port" ]; then
		echo "$name: the server did not listen"
		tail -n 3 "$work/serve.log" | sed 's/^/    | /'
	else
		check "$name" -u "http://$host:$port$path"
	fi
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=""
}

check playwright-stdio -- node "$m/@playwright/mcp/cli.js" --headless
http playwright-http localhost /mcp "$m/@playwright/mcp/cli.js" --headless --port @PORT@
check context7-stdio -- node "$m/@upstash/context7-mcp/dist/index.js"
http context7-http 127.0.0.1 /mcp "$m/@upstash/context7-mcp/dist/index.js" --transport http --port @PORT@
check notion-stdio -- node "$m/@notionhq/notion-mcp-server/bin/cli.mjs"
http notion-http localhost /mcp "$m/@notionhq/notion-mcp-server/bin/cli.mjs" --transport http --port @PORT@ --unsafe-disable-auth
check chart-stdio -- node "$m/@antv/mcp-server-chart/build/index.js"
http chart-http 127.0.0.1 /mcp "$m/@antv/mcp-server-chart/build/index.js" --transport streamable --port @PORT@
check kubernetes-stdio -- node "$m/mcp-server-kubernetes/dist/index.js"
check chrome-devtools-stdio -- node "$m/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js" --headless
check github-stdio -- node "$m/@modelcontextprotocol/server-github/dist/index.js"
