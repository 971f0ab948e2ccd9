#!/usr/bin/env bash
# End-to-end checks of mcpv against the reference MCP server
# @modelcontextprotocol/server-everything over stdio, Streamable HTTP and legacy
# HTTP+SSE (the HTTP servers listen on 127.0.0.1 only, see scripts/npm/loopback.cjs).
#
#   bash scripts/e2e-everything.sh
#
# The server is pinned in scripts/npm/package.json and package-lock.json. It is
# installed with `npm ci` OUTSIDE the repository, in
#   ${MCPV_E2E_DIR:-${TMPDIR:-/tmp}/mcpv-e2e-everything}
# (again only when node_modules is missing or the lockfile changed), and mcpv is
# built from this checkout into the same directory.
#
# Needs go, node (>= 20), npm, timeout, mkfifo, pgrep and ps; not jq: every
# assertion uses mcpv's own --jq/--exit-status or compares its compact stdout.
#
# Output: one line per check, "ok   NAME" or "FAIL NAME" with details, then the
# wall time and a last line "N passed, N failed".
# Exit status: 0 all checks passed, 1 some check failed, 2 missing tool or
# failed setup (install, build).
set -euo pipefail

t_start=$(date +%s)

die() {
	printf 'e2e-everything: %s\n' "$*" >&2
	exit 2
}
need() {
	command -v "$1" >/dev/null 2>&1 || die "$1 is required but was not found in PATH${2:+ ($2)}"
}
need node "install Node.js 20 or later"
need npm "it comes with Node.js"
need go
need timeout "GNU coreutils"
need mkfifo
need cmp
need pgrep "procps"
need ps

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# real_path PATH: PATH made absolute with symlinks resolved as far as it exists.
real_path() {
	local d=$1 rest=""
	[[ $d == /* ]] || d=$PWD/$d
	while [ ! -d "$d" ]; do
		rest=/$(basename "$d")$rest
		d=$(dirname "$d")
	done
	printf '%s%s' "$(cd "$d" && pwd -P)" "$rest"
}
dir=$(real_path "${MCPV_E2E_DIR:-${TMPDIR:-/tmp}/mcpv-e2e-everything}")
case "$dir/" in
"$repo"/*) die "MCPV_E2E_DIR=$dir is inside the repository $repo; choose a directory outside it" ;;
esac
mkdir -p "$dir" || die "cannot create $dir"

# ---------------------------------------------------------------- install

pkg=@modelcontextprotocol/server-everything
pkg_src=$repo/scripts/npm/package.json
lock_src=$repo/scripts/npm/package-lock.json
[ -f "$pkg_src" ] && [ -f "$lock_src" ] || die "missing $pkg_src or $lock_src"

# shellcheck source=lib/npm-pinned.sh
. "$repo/scripts/lib/npm-pinned.sh"
npm_pinned "$repo/scripts/npm" "$dir" || die "npm ci failed in $dir (log: $dir/npm-ci.log)"

entry=$dir/node_modules/$pkg/dist/index.js
[ -f "$entry" ] || die "$entry is missing; delete $dir/node_modules and run again"

json_field() { # FILE JS-EXPRESSION-ON-j
	node -e 'const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); console.log(eval(process.argv[2]))' "$1" "$2"
}
pinned=$(json_field "$pkg_src" "j.dependencies['$pkg']")
installed=$(json_field "$dir/node_modules/$pkg/package.json" 'j.version')
[ "$pinned" = "$installed" ] || die "$pkg is pinned at $pinned but $installed is installed in $dir"

# ---------------------------------------------------------------- build

(cd "$repo" && go build -o "$dir/mcpv" .) || die "go build failed"
mcpv=$dir/mcpv

export GZIP_ALLOWED_DOMAINS=localhost # the gzip tool must never reach the network
server=(node "$entry" stdio)

echo "node $(node --version), npm $(npm --version 2>/dev/null), $pkg $installed, $("$mcpv" --version) ($(go env GOVERSION))"
echo "server: ${server[*]}"

# ---------------------------------------------------------------- harness

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpv-e2e.XXXXXX")
# Session keepers put their sockets here, away from the user's own.
export XDG_RUNTIME_DIR=$tmp/rt
mkdir -m 700 "$XDG_RUNTIME_DIR"
bg_pids=""
cleanup() {
	local p
	"$mcpv" session stop --all >/dev/null 2>&1 || true
	for p in $bg_pids; do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}
trap cleanup EXIT

stray_pattern='server-everything/dist/index\.js stdio'
strays_before=" $(pgrep -s 0 -f "$stray_pattern" | tr '\n' ' ' || true)"

now_ms() {
	if [ -n "${EPOCHREALTIME:-}" ]; then
		local t=${EPOCHREALTIME//[!0-9]/} # seconds and microseconds, whatever the locale's decimal point
		echo $((10#$t / 1000))
	else
		echo $(($(date +%s) * 1000))
	fi
}
secs() { printf '%d.%01ds' $(($1 / 1000)) $(($1 % 1000 / 100)); }

t_checks=$(now_ms)
passed=0
failed=0
why="" # reasons for the current check's failure, one per line
cmdline=""

label="" # prefixes check names: "" for stdio, "http:" and "sse:" later
ok() {
	passed=$((passed + 1))
	printf 'ok   %s%s\n' "$label" "$1"
}
# fail NAME: report the check with $why, the command and its output.
fail() {
	failed=$((failed + 1))
	printf 'FAIL %s%s\n' "$label" "$1"
	[ -z "$why" ] || printf '%s' "$why" | sed 's/^/    /'
	[ -z "$cmdline" ] || printf '    command: %s\n' "$cmdline"
	show stdout "$tmp/out"
	show stderr "$tmp/err"
}
show() {
	[ -s "$2" ] || {
		printf '    %s: (empty)\n' "$1"
		return
	}
	printf '    %s:\n' "$1"
	head -c 3000 "$2" | head -n 40 | sed 's/^/      | /'
	echo
}
verdict() { if [ -z "$why" ]; then ok "$1"; else fail "$1"; fi; }
because() { why+="$*"$'\n'; }

# quote ARGS...: the arguments as a shell would need them, for messages.
quote() {
	local a out="" sq="'" esc="'\\''"
	for a in "$@"; do
		if [[ $a =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
			out+=" $a"
		else
			out+=" '${a//$sq/$esc}'"
		fi
	done
	printf '%s' "${out# }"
}

# run [MCPV-ARGS...]: run mcpv against the server with stdin from /dev/null
# (or $stdin), stdout in $tmp/out, stderr in $tmp/err; sets rc and elapsed (ms).
# The server command is server_cmd (normally the server); the timeout guard
# (60 s, or $guard) turns a hang into a failure (exit 137).
# With url set, mcpv talks to the server at url over HTTP instead.
server_cmd=("${server[@]}")
url=""
cfg_server=""
session="" # when set, commands go through this session instead
target() { # the words that name the server, after mcpv's own arguments
	if [ -n "$session" ]; then
		printf '%s\0' --session "$session"
	elif [ -n "$cfg_server" ]; then
		printf '%s\0' -s "$cfg_server"
	elif [ -n "$url" ]; then
		printf '%s\0' -u "$url"
	else
		printf '%s\0' -- "${server_cmd[@]}"
	fi
}
run() {
	local t0 tgt
	mapfile -d '' -t tgt < <(target)
	cmdline="mcpv $(quote "$@") ${tgt[*]}"
	rc=0
	t0=$(now_ms)
	timeout -s KILL "${guard:-60}" "$mcpv" "$@" "${tgt[@]}" \
		<"${stdin:-/dev/null}" >"$tmp/out" 2>"$tmp/err" || rc=$?
	elapsed=$(($(now_ms) - t0))
}
stdout_is() { printf '%s\n' "$1" | cmp -s - "$tmp/out"; }
want_rc() { [ "$rc" = "$1" ] || because "exit status $rc, want $1"; }
want_stdout() {
	if [ -z "$1" ]; then
		[ ! -s "$tmp/out" ] || because "stdout should be empty"
	else
		stdout_is "$1" || because "stdout is not exactly: $1"
	fi
}
want_stderr_has() { grep -qF -- "$1" "$tmp/err" || because "stderr lacks: $1"; }

# check_jq NAME PREDICATE MCPV-ARGS...: mcpv --quiet -e -q PREDICATE must exit 0.
# On failure the unfiltered result is shown.
check_jq() {
	local name=$1 pred=$2
	shift 2
	why=""
	run --quiet -e -c -q "$pred" "$@"
	if [ "$rc" = 0 ]; then
		ok "$name"
		return
	fi
	because "exit status $rc, want 0: the predicate is $(if [ "$rc" = 1 ]; then echo false; else echo 'not true'; fi): $pred"
	local c=$cmdline
	run --quiet -c "$@" # show what the server really returned
	cmdline=$c
	fail "$name"
}
# check_out NAME STATUS STDOUT MCPV-ARGS...: mcpv --quiet -c must exit with
# STATUS and print exactly STDOUT (and a newline; "" means nothing).
check_out() {
	local name=$1 status=$2 want=$3
	shift 3
	why=""
	run --quiet -c "$@"
	want_rc "$status"
	want_stdout "$want"
	verdict "$name"
}
# check_err NAME STATUS STDERR-SUBSTRING MCPV-ARGS...: an error: exit STATUS,
# nothing on stdout, STDERR-SUBSTRING on stderr.
check_err() {
	local name=$1 status=$2 msg=$3
	shift 3
	why=""
	run --quiet -c "$@"
	want_rc "$status"
	want_stdout ""
	want_stderr_has "$msg"
	verdict "$name"
}

# session_checks NAME: a session on the current server: a task detached by
# one command is collected by a later one (the everything server keeps tasks
# per session), and stop leaves neither keeper nor server.
session_checks() {
	local name=$1 keeper_pid server_pids id p
	echo "--- sessions"
	why=""
	run --quiet -c session start "$name"
	want_rc 0
	keeper_pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$tmp/out")
	[ -n "$keeper_pid" ] || because "session start printed no pid"
	verdict "session-start ($(secs "$elapsed"))"
	server_pids=""
	[ -z "$keeper_pid" ] || server_pids=$(pgrep -P "$keeper_pid" || true)
	why=""
	session=$name run --quiet -r -q .task.taskId call simulate-research-query topic=mcp --task --detach
	want_rc 0
	id=$(cat "$tmp/out")
	[ -n "$id" ] || because "no task id"
	verdict session-task-detach
	session=$name check_jq session-task-result '.content[0].text | contains("Research Report: mcp")' tasks result "$id"
	session=$name check_jq session-state-kept '.taskId == "'"$id"'"' tasks get "$id"
	check_err session-one-shot-has-no-such-task 3 'Task not found' tasks get "$id"
	if [ -n "$url" ]; then
		# Without a session, --detach keeps the HTTP session for the task.
		why=""
		run --quiet -r -q .task.taskId call simulate-research-query topic=mcp --task --detach
		want_rc 0
		id=$(cat "$tmp/out")
		sid=$(sed -n 's/.* --session-id \([^ ]*\) .*/\1/p' "$tmp/err")
		[ -n "$sid" ] || because "no session id on stderr"
		verdict detach-keeps-http-session
		check_jq detach-resumed-by-session-id '.content[0].text | contains("Research Report: mcp")' tasks result "$id" --session-id "$sid"
	fi
	why=""
	cmdline="mcpv session stop $name"
	rc=0
	"$mcpv" session stop "$name" >"$tmp/out" 2>"$tmp/err" || rc=$?
	want_rc 0
	want_stdout '{"stopped":["'"$name"'"]}'
	for p in $keeper_pid $server_pids; do
		if alive "$p"; then because "process $p outlived session stop"; fi
	done
	verdict session-stop-leaves-nothing
}

alive() { # PID: exists and is not a zombie
	local s
	s=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ $s != Z* ]]
}
# left_in_groups PGID...: live processes in those process groups (mcpv starts
# the server as the leader of its own group, so this covers its children too).
left_in_groups() {
	local g p left=""
	for g in "$@"; do
		for p in $(pgrep -g "$g" 2>/dev/null || true); do
			if alive "$p"; then left+="$p "; fi
		done
	done
	printf '%s' "$left"
}

# run_bg SIGINT-AFTER-MS LIMIT-S MCPV-ARGS...: run mcpv in the background
# (stdin /dev/null), note its server's pid, send SIGINT after SIGINT-AFTER-MS
# (0: never) and, when sig_when is set, once its stderr holds sig_when (the
# request in flight, however long a loaded machine takes to start the
# server; 60 s at most), and wait at most LIMIT-S seconds after the signal
# (or the start), then SIGKILL it. Sets rc, elapsed (ms from start), after_sig (ms from the
# signal), srv_pids, hung (1 if the limit was hit).
run_bg() {
	local sig_after=$1 limit_ms=$(($2 * 1000))
	shift 2
	local t0 ts pid i tgt
	mapfile -d '' -t tgt < <(target)
	cmdline="mcpv $(quote "$@") ${tgt[*]}"
	t0=$(now_ms)
	"$mcpv" "$@" "${tgt[@]}" </dev/null >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	bg_pids+=" $pid"
	srv_pids=""
	for i in $(seq 50); do # the server is mcpv's child
		[ -z "$url" ] || break
		srv_pids=$(pgrep -P "$pid" 2>/dev/null | tr '\n' ' ' || true)
		[ -z "$srv_pids" ] || break
		alive "$pid" || break
		sleep 0.05
	done
	ts=$t0
	if [ "$sig_after" -gt 0 ]; then
		while [ $(($(now_ms) - t0)) -lt "$sig_after" ]; do sleep 0.05; done
		while [ -n "${sig_when:-}" ] && alive "$pid" && ! grep -qF -- "$sig_when" "$tmp/err" && [ $(($(now_ms) - t0)) -lt 60000 ]; do sleep 0.05; done
		ts=$(now_ms)
		kill -INT "$pid" 2>/dev/null || true
	fi
	hung=0
	while alive "$pid"; do
		if [ $(($(now_ms) - ts)) -ge "$limit_ms" ]; then
			hung=1
			kill -KILL "$pid" 2>/dev/null || true
			break
		fi
		sleep 0.05
	done
	rc=0
	wait "$pid" || rc=$?
	elapsed=$(($(now_ms) - t0))
	after_sig=$(($(now_ms) - ts))
}
# check_no_leftover NAME: the servers recorded by run_bg are gone.
check_no_leftover() {
	why=""
	if [ -z "$srv_pids" ]; then
		because "the server's pid was never seen (pgrep -P found no child of mcpv)"
	else
		local left="" i
		for i in $(seq 20); do # mcpv reaps the server before it exits; allow a moment anyway
			# shellcheck disable=SC2086 # srv_pids is a list of numbers
			left=$(left_in_groups $srv_pids)
			[ -n "$left" ] || break
			sleep 0.1
		done
		if [ -n "$left" ]; then
			because "server processes still running: $left"
			left=${left% }
			because "$(ps -o pid,ppid,pgid,stat,args -p "${left// /,}" 2>/dev/null || true)"
			# shellcheck disable=SC2086
			kill -KILL $left 2>/dev/null || true
		fi
	fi
	verdict "$1"
}

# ---------------------------------------------------------------- checks

# common_checks: what every transport must get right.
common_checks() {
	echo "--- listings"
	check_jq list-tools \
		'(.tools | length) >= 12 and ((["echo", "get-sum", "get-tiny-image", "trigger-long-running-operation"] - [.tools[].name]) == []) and all(.tools[]; .inputSchema.type == "object")' \
		list-tools
	check_jq list-tools-structured-schema \
		'.tools[] | select(.name == "get-structured-content") | .inputSchema.properties.location.enum | index("Chicago") != null' \
		list-tools
	check_jq list-resources \
		'(.resources | length) == 7 and all(.resources[]; .uri | startswith("demo://"))' \
		list-resources
	check_jq list-resource-templates \
		'(.resourceTemplates | length) >= 2 and any(.resourceTemplates[]; .uriTemplate == "demo://resource/dynamic/text/{resourceId}")' \
		list-resource-templates
	check_jq list-prompts '(["simple-prompt", "args-prompt"] - [.prompts[].name]) == []' list-prompts

	echo "--- tools"
	check_out call-echo 0 '{"content":[{"type":"text","text":"Echo: hello"}]}' call echo message=hello
	check_jq call-get-sum '(.isError | not) and (.content[0].text | test("\\b5\\b"))' call get-sum a:=2 b:=3
	why=""
	printf '%s\n' 'call echo message=one -q .content[0].text' \
		'{"id":"s","method":"tools/call","params":{"name":"get-sum","arguments":{"a":2,"b":3}}}' \
		'call no-such-tool' ping >"$tmp/batch.in"
	stdin=$tmp/batch.in run --quiet batch --keep-going --parallel 2
	want_rc 3 # a tool the server does not list is refused, and nothing is sent
	sed -n 1p "$tmp/out" | grep -qxF '{"line":1,"result":"Echo: one"}' || because "line 1 is not the echo's text"
	sed -n 2p "$tmp/out" | grep -q '^{"line":2,"id":"s","result":{"content":\[' || because "line 2 is not get-sum's result"
	sed -n 3p "$tmp/out" | grep -qxF '{"line":3,"error":{"message":"the server lists no tool \"no-such-tool\" (see mcpv list-tools); nothing sent (--no-validate sends anyway)"},"exit":3}' || because "line 3 is not the refusal of an unlisted tool"
	sed -n 4p "$tmp/out" | grep -qxF '{"line":4,"result":{}}' || because "line 4 is not the ping"
	verdict batch-mixed
	check_jq call-get-tiny-image \
		'any(.content[]; .type == "image" and .mimeType == "image/png" and (.data | startswith("iVBORw0KGgo")))' \
		call get-tiny-image
	check_jq call-get-structured-content \
		'(.structuredContent | (.temperature | type) == "number" and (.conditions | type) == "string" and (.humidity | type) == "number") and (.content[0].text | fromjson) == .structuredContent' \
		call get-structured-content location=Chicago
	[ -n "$url" ] || check_jq env-flag \
		'.content[0].text | fromjson | .MCPV_E2E_FLAG == "from --env" and .GZIP_ALLOWED_DOMAINS == "localhost"' \
		--env 'MCPV_E2E_FLAG=from --env' call get-env

	echo "--- resources and prompts"
	check_jq read-static \
		'.contents[0].uri == "demo://resource/static/document/features.md" and (.contents[0].text | length) > 0' \
		read demo://resource/static/document/features.md
	check_jq read-dynamic \
		'.contents[0].uri == "demo://resource/dynamic/text/1" and (.contents[0].text | startswith("Resource 1:"))' \
		read demo://resource/dynamic/text/1
	check_out get-prompt-simple 0 \
		'{"messages":[{"role":"user","content":{"type":"text","text":"This is a simple prompt without arguments."}}]}' \
		get-prompt simple-prompt
	check_jq get-prompt-args 'any(.messages[]; .content.text | contains("Paris"))' get-prompt args-prompt city=Paris

	echo "--- typed arguments and content"
	check_jq call-typed-arguments '.content[0].text | contains("is 5.5")' call get-sum a=2 b=3.5
	check_jq call-enum-argument '.structuredContent | has("temperature")' call get-structured-content location=Chicago
	check_jq call-dry-run '.method == "tools/call" and .params.arguments == {"a":2,"b":3} and (.id | type) == "number"' call get-sum a=2 b=3 --dry-run
	why=""
	run --quiet call get-tiny-image --save-dir "$tmp/saved" --text
	want_rc 0
	saved=$(grep "^$tmp/saved/" "$tmp/out" | head -n 1)
	{ [ -n "$saved" ] && head -c 4 "$saved" | grep -q PNG; } || because "--save-dir --text did not print the path of a saved PNG"
	verdict call-save-dir-text
	rm -rf "$tmp/saved"

	echo "--- server requests and notifications"
	why=""
	run --quiet --events "$tmp/events" call trigger-long-running-operation duration:=1 steps:=3
	want_rc 0
	[ "$(grep -c '"method":"notifications/progress"' "$tmp/events" || true)" = 3 ] || because "want 3 progress events in --events, got: $(cat "$tmp/events")"
	verdict progress-events
	check_jq sampling-cmd '.content[0].text | contains("sampled by the script")' \
		--sampling-cmd 'cat >/dev/null; echo "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"sampled by the script\"},\"model\":\"e2e\"}"' \
		call trigger-sampling-request prompt=hello
	check_jq elicitation-answers '[.content[].text] | join(" ") | contains("Name: Ada") and contains("Favorite Integer: 7")' \
		--elicitation accept --answer name=Ada --answer integer=7 call trigger-elicitation-request
	check_jq elicitation-declined-without-terminal '[.content[].text] | join(" ") | contains("declined")' \
		call trigger-elicitation-request
	check_jq roots '.content[0].text | contains("URI: file://'"$tmp"'")' --root "$tmp" call get-roots-list

	check_out complete-prompt 0 '{"completion":{"values":["Engineering"],"total":1,"hasMore":false}}' \
		complete --prompt completable-prompt --arg department=E
	check_jq complete-with-context '.completion.values == ["Alice"]' \
		complete --prompt completable-prompt --arg name=A --context department=Engineering
	check_jq complete-template '.completion.values | index("1") != null' \
		complete --template 'demo://resource/dynamic/text/{resourceId}' --arg resourceId=1
	# The server sends updates only after toggle-subscriber-updates in the same
	# session; here the subscription's round trip is what is checked.
	why=""
	run -v --quiet watch demo://resource/static/document/features.md --for 1s
	want_rc 0
	want_stderr_has '"method":"resources/subscribe"'
	want_stderr_has '"method":"resources/unsubscribe"'
	verdict watch-subscribes-and-unsubscribes

	echo "--- tasks"
	check_jq task-required '.content[0].text | contains("Research Report: mcp")' call simulate-research-query topic=mcp
	check_jq task-input-required '.content[0].text | contains("Research Report: mcp (technical)")' \
		--elicitation accept --answer interpretation=technical call simulate-research-query topic=mcp ambiguous:=true
	check_err task-forbidden 3 'does not support tasks' call echo message=x --task
	check_jq tasks-list '.tasks | type == "array"' tasks list
	check_err tasks-get-unknown 3 'Task not found' tasks get no-such-task
	why=""
	sig_when='"taskId"' run_bg 1500 10 --quiet -v call simulate-research-query topic=mcp
	[ "$hung" = 0 ] || because "still running 10 s after SIGINT (killed)"
	want_rc 130
	want_stderr_has '"method":"tasks/cancel"'
	verdict "task-sigint-cancels ($(secs "$after_sig") after SIGINT)"

	echo "--- errors and exit codes"
	check_out call-is-error 1 \
		'{"content":[{"type":"text","text":"MCP error -32602: Input validation error: Invalid arguments for tool get-sum: Invalid input: expected number, received string at a"}],"isError":true}' \
		call --no-validate get-sum a:='"x"' b:=3
	check_err call-invalid-arguments-not-sent 2 'arguments /a: got string, want number (type)' call get-sum a:='"x"' b:=3
	check_err call-untyped-text 2 'argument a: "two" is not a number' call get-sum a=two b=3
	# A tool the server does not list is refused with the nearest name, and
	# nothing is sent; --no-validate sends it anyway, and this server reports
	# an unknown tool as a tool result with isError, not as a JSON-RPC error.
	check_err call-unknown-tool 3 'the server lists no tool "get-summ"; did you mean "get-sum"?' call get-summ a:=1 b:=2
	check_out call-unknown-tool-sent 1 \
		'{"content":[{"type":"text","text":"MCP error -32602: Tool no-such-tool not found"}],"isError":true}' \
		call no-such-tool --no-validate
	check_err request-unknown-method 3 'error -32601' request nope/nothing
	check_err get-prompt-unknown 3 'error -32602' get-prompt no-such-prompt
	check_err read-unknown 3 'error -32602' read demo://no/such/resource
	check_err usage-bad-json 2 'not valid JSON' call get-sum a:=notjson b:=3
}

echo "--- lifecycle"
check_jq info \
	'.protocolVersion == "2025-11-25" and .serverInfo.name == "mcp-servers/everything" and (.capabilities | has("tools") and has("resources") and has("prompts"))' \
	info
check_jq protocol-version-flag '.protocolVersion == "2025-06-18"' --protocol-version 2025-06-18 info

why=""
run --quiet ping
want_rc 0
want_stdout '{}'
verdict ping
why=""
[ ! -s "$tmp/err" ] || because "stderr should be empty with --quiet"
verdict quiet-hides-server-stderr

why=""
run ping
want_rc 0
want_stdout '{}'
want_stderr_has 'Starting default (STDIO) server...'
verdict server-stderr-shown

common_checks
session_checks e2e

# A stateful server through a session: what one command stores, the next
# reads back from the same server process.
why=""
cmdline="MEMORY_FILE_PATH=... mcpv session start mem -- node server-memory"
rc=0
MEMORY_FILE_PATH=$tmp/memory.jsonl "$mcpv" session start mem -- node "$dir/node_modules/@modelcontextprotocol/server-memory/dist/index.js" >"$tmp/out" 2>"$tmp/err" || rc=$?
want_rc 0
verdict memory-session-start
session=mem check_jq memory-create-entities '.content | length > 0' \
	call create_entities --args '{"entities":[{"name":"mcpv","entityType":"tool","observations":["speaks MCP"]}]}'
session=mem check_jq memory-read-back '(.structuredContent // (.content[0].text | fromjson)) | .entities | map(.name) | index("mcpv") != null' call read_graph
"$mcpv" session stop mem >/dev/null 2>&1 || true
server_cmd=(node "$dir/no-such-server.js")
check_err transport-server-exits 4 'Cannot find module' ping
server_cmd=("${server[@]}")

echo "--- timeout, Ctrl-C, pipes, stdin"
why=""
run_bg 0 20 --quiet -v --timeout 1s call trigger-long-running-operation duration:=10 steps:=10
[ "$hung" = 0 ] || because "still running after 20 s (killed)"
want_rc 124
[ "$elapsed" -lt 8000 ] || because "took $(secs "$elapsed"), want < 8 s"
want_stderr_has 'no answer within 1s'
want_stderr_has '"method":"notifications/cancelled"'
verdict "timeout-exit-124 ($(secs "$elapsed"))"
check_no_leftover timeout-no-leftover-server

why=""
sig_when='"method":"notifications/progress"' run_bg 1500 8 --quiet -v call trigger-long-running-operation duration:=10 steps:=10
[ "$hung" = 0 ] || because "still running 8 s after SIGINT (killed)"
want_rc 130
want_stderr_has '"method":"notifications/cancelled"'
verdict "sigint-exit-130 ($(secs "$after_sig") after SIGINT)"
check_no_leftover sigint-no-leftover-server

why=""
cmdline="mcpv --quiet list-tools -- ${server[*]} | head -c 5"
set +e
timeout -s KILL 60 "$mcpv" --quiet list-tools -- "${server[@]}" </dev/null 2>"$tmp/err" | head -c 5 >"$tmp/out"
ps_=("${PIPESTATUS[@]}")
set -e
rc=${ps_[0]}
want_rc 0
[ "$(cat "$tmp/out")" = '{"too' ] || because "head -c 5 should have read {\"too"
verdict pipe-closed-early-head

why=""
cmdline="mcpv --quiet list-tools -- ${server[*]} | true"
set +e
timeout -s KILL 60 "$mcpv" --quiet list-tools -- "${server[@]}" </dev/null 2>"$tmp/err" | true
ps_=("${PIPESTATUS[@]}")
set -e
: >"$tmp/out"
rc=${ps_[0]}
want_rc 0
verdict pipe-closed-before-write

why=""
mkfifo "$tmp/stdin"
exec 7<>"$tmp/stdin" # a writer that never writes and never closes
stdin=$tmp/stdin guard=15 run --quiet -c -q '.tools | length >= 12' list-tools
exec 7>&-
cmdline="$cmdline <fifo (open, silent)"
[ "$rc" != 137 ] || because "the 15 s guard fired: mcpv waited on its stdin"
want_rc 0
want_stdout true
[ "$elapsed" -lt 10000 ] || because "took $(secs "$elapsed"), want < 10 s"
verdict "silent-open-stdin ($(secs "$elapsed"))"

why=""
cmdline=""
: >"$tmp/out"
: >"$tmp/err"
strays=""
for p in $(pgrep -s 0 -f "$stray_pattern" || true); do
	case "$strays_before" in *" $p "*) continue ;; esac
	if alive "$p"; then strays+="$p "; fi
done
if [ -n "$strays" ]; then
	strays=${strays% }
	because "servers started during this run are still running (now killed): $strays"
	because "$(ps -o pid,ppid,pgid,stat,args -p "${strays// /,}" 2>/dev/null || true)"
	# shellcheck disable=SC2086 # a list of numbers
	kill -KILL $strays 2>/dev/null || true
fi
verdict no-stray-servers

# ---------------------------------------------------------------- HTTP

# start_http MODE: run the server in MODE (streamableHttp or sse) on a free
# port of 127.0.0.1; sets http_pid and port.
start_http() {
	local i log
	# A log of its own for each start: the background shell truncates its
	# file only when it runs, and the loop below could read the port of
	# the server of that mode started (and ended) before.
	starts=$((${starts:-0} + 1))
	log=$tmp/http-$1-$starts.log
	: >"$log" # there before the loop reads it: a busy machine may run the server's shell later
	PORT=0 node -r "$repo/scripts/npm/loopback.cjs" "$entry" "$1" >"$log" 2>&1 &
	http_pid=$!
	bg_pids+=" $http_pid"
	port=""
	for i in $(seq 100); do
		port=$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$log" 2>/dev/null | head -n 1)
		[ -z "$port" ] || return 0
		alive "$http_pid" || break
		sleep 0.1
	done
	cat "$log" >&2
	die "the everything server did not start in $1 mode"
}

echo "--- Streamable HTTP"
start_http streamableHttp
url=http://127.0.0.1:$port/mcp
label=http:
check_jq info '.protocolVersion == "2025-11-25" and .serverInfo.name == "mcp-servers/everything"' info
check_out ping 0 '{}' ping
common_checks
session_checks e2e

why=""
run_bg 0 20 --quiet -v --timeout 1s call trigger-long-running-operation duration:=10 steps:=10
[ "$hung" = 0 ] || because "still running after 20 s (killed)"
want_rc 124
want_stderr_has 'no answer within 1s'
want_stderr_has '"method":"notifications/cancelled"'
want_stderr_has 'DELETE'
verdict "timeout-exit-124 ($(secs "$elapsed"))"

why=""
sig_when='"method":"notifications/progress"' run_bg 1500 8 --quiet -v call trigger-long-running-operation duration:=10 steps:=10
[ "$hung" = 0 ] || because "still running 8 s after SIGINT (killed)"
want_rc 130
want_stderr_has '"method":"notifications/cancelled"'
verdict "sigint-exit-130 ($(secs "$after_sig") after SIGINT)"

why=""
run --quiet -v -H 'Authorization: Bearer e2e-secret-token' ping
want_rc 0
grep -q 'Authorization: \*\*\*' "$tmp/err" || because "the trace does not show the masked Authorization header"
! grep -q 'e2e-secret-token' "$tmp/err" || because "the trace shows the token"
verdict verbose-masks-authorization
kill "$http_pid" 2>/dev/null || true

echo "--- legacy HTTP+SSE"
start_http sse
url=http://127.0.0.1:$port/sse
label=sse:
check_jq info '.serverInfo.name == "mcp-servers/everything"' info
check_out call-echo 0 '{"content":[{"type":"text","text":"Echo: hello"}]}' call echo message=hello
check_jq list-tools '(.tools | length) >= 12' --transport sse list-tools
check_jq read-dynamic '.contents[0].uri == "demo://resource/dynamic/text/1"' read demo://resource/dynamic/text/1
kill "$http_pid" 2>/dev/null || true
url=""
label=""

# ---------------------------------------------------------------- named servers

echo "--- named servers from config files"
# A home with Claude Desktop's and Cursor's files, and a project (a git
# repository) with its own .mcp.json; each entry carries a planted secret.
cfg=$tmp/cfg
mkdir -p "$cfg/home/.config/Claude" "$cfg/home/.cursor" "$cfg/proj/.git"
secret=planted-e2e-secret-7f3a
start_http streamableHttp
node -e '
const [cfg, port, secret, ...cmd] = process.argv.slice(1);
const fs = require("fs");
const stdio = {command: cmd[0], args: cmd.slice(1), env: {E2E_API_TOKEN: secret}};
fs.writeFileSync(cfg + "/home/.config/Claude/claude_desktop_config.json", JSON.stringify({mcpServers: {everything: stdio}}, null, 2));
fs.writeFileSync(cfg + "/home/.cursor/mcp.json", JSON.stringify({mcpServers: {"everything-http":
  {url: "http://127.0.0.1:" + port + "/mcp", headers: {Authorization: "Bearer " + secret}}}}, null, 2));
fs.writeFileSync(cfg + "/proj/.mcp.json", JSON.stringify({mcpServers: {"project-everything": stdio}}, null, 2));
' "$cfg" "$port" "$secret" "${server[@]}"
saved_home=$HOME saved_pwd=$PWD
export HOME=$cfg/home XDG_CONFIG_HOME="" XDG_STATE_HOME=""
cd "$cfg/proj"
label=config:

cfg_server=everything check_jq stdio-claude-desktop '(.tools | length) >= 12' list-tools
cfg_server=everything-http check_jq http-cursor '(.tools | length) >= 12' list-tools
# The environment a server from config really gets: the minimal set and its
# entry's variables, not the rest of mcpv's.
E2E_LEAKY=not-for-the-server cfg_server=everything check_jq minimal-environment \
	'(.content[0].text | fromjson) as $e | $e.E2E_LEAKY == null and $e.E2E_API_TOKEN != null and $e.PATH != null and $e.HOME != null' \
	call get-env
E2E_LEAKY=for-the-server cfg_server=everything check_jq inherit-env \
	'(.content[0].text | fromjson).E2E_LEAKY == "for-the-server"' --inherit-env call get-env
cfg_server=project-everything check_err untrusted-project 2 'would run: env E2E_API_TOKEN='"'"'***'"'"' node ' list-tools
why=""
"$mcpv" trust >"$tmp/out" 2>"$tmp/err" || because "mcpv trust failed: $(cat "$tmp/err")"
verdict trust
cfg_server=project-everything check_jq trusted-project '(.tools | length) >= 12' list-tools
why=""
"$mcpv" servers -e -q '[.servers[].name] == ["project-everything", "everything", "everything-http"]' >"$tmp/out" 2>"$tmp/err" ||
	because "servers does not list the three: $(cat "$tmp/out" "$tmp/err")"
verdict servers-listed
why=""
for n in everything everything-http project-everything; do
	cfg_server=$n run -v call echo message=hi
	[ "$rc" = 0 ] || because "$n: exit status $rc"
	! grep -q "$secret" "$tmp/out" "$tmp/err" || because "$n: the output shows the planted secret"
done
"$mcpv" servers >"$tmp/out" 2>"$tmp/err" || because "servers: exit status $?"
grep -q '"E2E_API_TOKEN":"\*\*\*"' "$tmp/out" || because "servers does not show the masked variable"
! grep -q "$secret" "$tmp/out" "$tmp/err" || because "servers shows the planted secret"
verdict no-secret-in-output

cd "$saved_pwd"
export HOME=$saved_home
kill "$http_pid" 2>/dev/null || true
label=""

# ---------------------------------------------------------------- a server of 2026-07-28 only

# The TypeScript SDK v2 serving the modern era alone: it refuses initialize,
# so every command must reach it through server/discover and per-request
# _meta; a client pinned to the initialize era gets a clear refusal.
echo "--- modern-only server (TypeScript SDK v2, 2026-07-28)"
cp "$repo/scripts/npm/modern-server.mjs" "$dir/modern-server.mjs"
server_cmd=(node "$dir/modern-server.mjs")
check_jq modern:info '.protocolVersion == "2026-07-28" and .serverInfo.name == "modern-only" and .supportedVersions == ["2026-07-28"]' info
check_out modern:ping 0 '{}' ping
check_jq modern:list-tools '[.tools[].name] == ["echo", "add"]' list-tools
check_jq modern:call-echo '.content[0].text == "hi" and .structuredContent.message == "hi" and .resultType == "complete"' call echo message=hi
check_jq modern:call-typed '.structuredContent.sum == 5' call add a=2 b=3
check_jq modern:read '.contents[0].text == "a modern server"' read modern://readme
check_jq modern:get-prompt '.messages[0].content.text == "Say hello to Ada."' get-prompt greet name=Ada
check_jq modern:era-auto '.protocolVersion == "2026-07-28"' --protocol-era auto info
check_err modern:pinned-legacy 4 'supports only 2026-07-28; mcpv accepts 2025-11-25' --protocol-version 2025-11-25 ping
server_cmd=("${server[@]}")

# ---------------------------------------------------------------- hostile fixtures

# The project's own scripted fake server (mcp/mcptest), run from the e2e test
# binary, plays the servers that once broke mcpv.
echo "--- hostile fixture servers"
(cd "$repo" && go test -tags e2e -c -o "$dir/fake" ./e2e) || die "go test -c ./e2e failed"
fixture() { server_cmd=(env "MCPV_FAKE=$1" "$dir/fake"); }

fixture bad-answer=nul
why=""
run --quiet call x
want_rc 4
[ "$elapsed" -lt 5000 ] || because "took $(secs "$elapsed"), want < 5 s: the call waited instead of failing"
verdict "undecodable-answer-fails-at-once ($(secs "$elapsed"))"

fixture content-length
check_out content-length-framing 0 '"ok"' call x -q .content[0].text

fixture schema=deep:3000
why=""
run --quiet call shaped -q .content[0].text
want_rc 0
want_stderr_has "is not checked"
[ "$elapsed" -lt 5000 ] || because "took $(secs "$elapsed"), want < 5 s"
verdict "deep-schema-bounded ($(secs "$elapsed"))"

fixture ping-flood=300000
why=""
rss_kb=""
measure=()
[ ! -x /usr/bin/time ] || measure=(/usr/bin/time -f '%M' -o "$tmp/rss")
timeout -s KILL 60 "${measure[@]}" "$mcpv" --quiet call x -- "${server_cmd[@]}" </dev/null >"$tmp/out" 2>/dev/null ||
	because "exit status $? (137: still running after 60 s)"
[ ! -s "$tmp/rss" ] || rss_kb=$(tail -1 "$tmp/rss")
grep -q '"ok"' "$tmp/out" || because "the call did not complete: $(head -c 200 "$tmp/out")"
if [[ $rss_kb =~ ^[0-9]+$ ]]; then
	[ "$rss_kb" -lt 300000 ] || because "peak RSS $((rss_kb / 1024)) MB, want < 300 MB"
	verdict "ping-flood-bounded (peak RSS $((rss_kb / 1024)) MB)"
else
	verdict "ping-flood-completes (no /usr/bin/time for RSS)"
fi

fixture grandchild,hang
why=""
run_bg 800 8 --quiet call x
[ "$hung" = 0 ] || because "still running 8 s after SIGINT (killed)"
want_rc 130
verdict "grandchild-sigint-exit-130"
check_no_leftover grandchild-no-leftover
server_cmd=("${server[@]}")

# ---------------------------------------------------------------- mcpv test

# The README's example test file (examples/everything.mcpv.yaml, its npx
# line replaced by the pinned server) over stdio and Streamable HTTP, in CI
# mode (CI=true) against the snapshot committed beside it, which a run
# outside CI mode must not write again; and its reports read as CI systems
# read them: JUnit XML validated against the
# Jenkins (Ant) format's schema (scripts/report/junit.xsd, with xmllint in
# WebAssembly: no Java, no native build), TAP parsed by tap-parser. Both are
# pinned in scripts/report/ and installed outside the repository.
echo "--- mcpv test"
rep_src=$repo/scripts/report
rep_dir=$dir/report
npm_pinned "$rep_src" "$rep_dir" || die "npm ci failed in $rep_dir (log: $rep_dir/npm-ci.log)"
cp "$rep_src/junit.xsd" "$rep_src/check-reports.mjs" "$rep_dir/"
tests=$tmp/mcpv-tests
mkdir -p "$tests"
example_with() { # SERVER-LINES: the example with its command line replaced
	awk -v repl="$1" '/^  command: /{print repl; next} {print}' "$repo/examples/everything.mcpv.yaml"
}
example_with "  command: [node, \"$entry\", stdio]" >"$tests/everything.yaml"
cp "$repo/examples/everything.snapshot.json" "$tests/"
# mcpv_test NAME STATUS MCPV-TEST-ARGS...: mcpv test in $tests must exit STATUS,
# in CI mode when $ci is true (a missing snapshot fails), else outside it.
ci=true
mcpv_test() {
	local name=$1 status=$2
	shift 2
	why=""
	cmdline="(cd $tests && CI=$ci mcpv test $(quote "$@"))"
	rc=0
	(cd "$tests" && CI=$ci timeout -s KILL 120 "$mcpv" test "$@") </dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
	want_rc "$status"
	verdict "$name"
}
# check_report NAME KIND FILE [JQ-PREDICATE]: the report checker accepts the
# report; its summary must satisfy the predicate.
check_report() {
	why=""
	cmdline="node check-reports.mjs $2 $3"
	rc=0
	(cd "$rep_dir" && node check-reports.mjs "$2" "$3") >"$tmp/out" 2>"$tmp/err" || rc=$?
	want_rc 0
	if [ -n "${4:-}" ]; then
		node -e 'const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")); if (!eval(process.argv[2])) process.exit(1)' "$tmp/out" "$4" ||
			because "the summary does not satisfy: $4"
	fi
	verdict "$1"
}

mcpv_test test-example-stdio 0 --format junit --output report.xml everything.yaml
sed 's/^/    | /' "$tmp/out"
why=""
grep -q '^PASS 14 passed, 0 failed (1 file, ' "$tmp/out" || because "the summary is not 14 passed: $(tail -n 1 "$tmp/out")"
verdict test-example-summary
ci=""
mcpv_test test-example-snapshot-compared 0 everything.yaml
ci=true
why=""
! grep -q 'written to' "$tmp/out" || because "a run outside CI mode wrote the committed snapshot again"
cmp -s "$repo/examples/everything.snapshot.json" "$tests/everything.snapshot.json" || because "the snapshot changed"
verdict test-example-snapshot-kept
check_report test-junit-valid junit "$tests/report.xml"
mcpv_test test-example-tap 0 --format tap --output report.tap everything.yaml
check_report test-tap-parsed tap "$tests/report.tap" 's.ok && s.count === 1 && s.steps.pass === 14 && s.steps.fail === 0'
mcpv_test test-lint 0 --lint --format json --output lint.json everything.yaml

# A run that fails every way a report shows: a step that fails, one skipped,
# and a file whose server cannot start (exit 4, which comes first).
cat >"$tests/failing.yaml" <<EOF2
server: {command: [node, "$entry", stdio]}
steps:
  - call: echo message=hello
    expect: {equals: {content: [{type: text, text: "Echo: bye"}]}}
  - ping:
    skip: on purpose
  - call: get-sum a:=1 b:=2
EOF2
printf 'server: {command: [node, "%s"]}\nsteps:\n  - ping:\n' "$dir/no-such-server.js" >"$tests/unreachable.yaml"
mcpv_test test-failing-exit-4 4 --format junit --output failing.xml failing.yaml unreachable.yaml
check_report test-junit-failing-valid junit "$tests/failing.xml"
mcpv_test test-failing-tap 4 --format tap --output failing.tap failing.yaml unreachable.yaml
check_report test-tap-failing-parsed tap "$tests/failing.tap" '!s.ok && s.count === 2 && s.fail === 2 && s.steps.pass === 1 && s.steps.fail === 1 && s.steps.skip === 2'
# A closed stdout (| head) stops the report, not the run: the exit status
# is still the verdict, and the text report's file (--output) is whole.
why=""
cmdline="(cd $tests && mcpv test failing.yaml unreachable.yaml | head -1)"
rc=0
(cd "$tests" && set -o pipefail && timeout -s KILL 120 "$mcpv" test failing.yaml unreachable.yaml </dev/null 2>"$tmp/err" | head -1 >"$tmp/out") || rc=$?
want_rc 4
verdict test-closed-stdout-verdict
mcpv_test test-text-output 4 --output failing.txt failing.yaml unreachable.yaml
why=""
[ ! -s "$tmp/out" ] || because "the text report went to stdout as well as --output"
grep -q '^FAIL 1 passed, 1 failed, 2 skipped (2 files, 1 not run to the end, ' "$tests/failing.txt" || because "failing.txt has no summary line"
verdict test-text-output-file

start_http streamableHttp
example_with "  url: http://127.0.0.1:$port/mcp
  headers: {Authorization: \"Bearer \${E2E_TEST_TOKEN}\"}" >"$tests/everything-http.yaml"
E2E_TEST_TOKEN=planted-test-token-5d1c mcpv_test test-example-http 0 --verbose everything-http.yaml
why=""
! grep -q planted-test-token-5d1c "$tmp/out" "$tmp/err" || because "the report shows the token"
verdict test-http-token-not-shown
kill "$http_pid" 2>/dev/null || true

# ---------------------------------------------------------------- summary

t_end=$(date +%s)
echo "wall time: $((t_end - t_start)) s (checks $(secs $(($(now_ms) - t_checks))))"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
