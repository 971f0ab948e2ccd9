#!/usr/bin/env bash
# The compatibility suite: mcpv against real MCP servers from npm, one
# `mcpv test` file per server in e2e/compat/ (docs/COMPATIBILITY.md is its table).
#
#   bash scripts/compat.sh              every file in e2e/compat/
#   bash scripts/compat.sh memory time  only e2e/compat/memory.yaml and e2e/compat/time.yaml
#   bash scripts/compat.sh --check ...  also mcpv check each file's server, printing
#                                       what it finds (the servers' own bugs: not
#                                       counted as failures of the suite), each
#                                       report kept in $MCPV_COMPAT_DIR/check-NAME.json
#
# The servers are pinned in scripts/compat/package.json and package-lock.json.
# They are installed with `npm ci --ignore-scripts` OUTSIDE the repository, in
#   ${MCPV_COMPAT_DIR:-${TMPDIR:-/tmp}/mcpv-compat}
# (again only when node_modules is missing or the lockfile changed): no
# install script runs, as some would download browsers and binaries from
# outside the registry that no test here needs. mcpv is built from this
# checkout into the same directory. Nothing needs the network after that.
#
# For each file: `mcpv test --lint FILE` (the file named, so it runs without
# trust), then a session loop: `mcpv session start` with the file's server,
# `ping` and the file's x-session commands through the session, each its own
# mcpv, and `mcpv session stop`, after which neither keeper nor server may
# be left; then `mcpv audit --fail-on medium` (an ordinary server gets no
# finding above low) and `mcpv pin`, then `mcpv pin --check` (nothing moved
# between two runs). Each server runs in a directory of its own under a temporary
# directory (its working directory and HOME, COMPAT_WORK in the files), so
# whatever it writes stays there and is removed at the end.
#
# Needs go, node (>= 20), npm, git, timeout, realpath, pgrep, ps and cmp.
# Output: one line per check, "ok   NAME" or "FAIL NAME" with details (a
# failed file's whole report), then the wall time and a last line
# "N passed, N failed".
# Exit status: 0 all checks passed, 1 some check failed, 2 missing tool or
# failed setup (install, build).
set -euo pipefail

t_start=$(date +%s)

die() {
	printf 'compat: %s\n' "$*" >&2
	exit 2
}
for tool in node npm go git timeout realpath pgrep ps cmp; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "$tool was not found in PATH (needed: Node.js 20 or later with npm, go, git, timeout, realpath, pgrep, ps, cmp)"
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
dir=$(realpath -m "${MCPV_COMPAT_DIR:-${TMPDIR:-/tmp}/mcpv-compat}")
case "$dir/" in
"$repo"/*) die "MCPV_COMPAT_DIR=$dir is inside the repository $repo; choose a directory outside it" ;;
esac
mkdir -p "$dir" || die "cannot create $dir"

check=false
if [ "${1:-}" = --check ]; then
	check=true
	shift
fi
files=()
if [ $# -eq 0 ]; then
	files=("$repo"/e2e/compat/*.yaml)
else
	for a in "$@"; do
		f=$repo/e2e/compat/${a%.yaml}.yaml
		[ -f "$f" ] || die "no test file $f"
		files+=("$f")
	done
fi

# ---------------------------------------------------------------- install

src=$repo/scripts/compat
if [ ! -d "$dir/node_modules" ] || ! cmp -s "$src/package-lock.json" "$dir/package-lock.json" ||
	! cmp -s "$src/package.json" "$dir/package.json"; then
	echo "installing the pinned servers into $dir (npm ci --ignore-scripts)"
	cp "$src/package.json" "$src/package-lock.json" "$dir/"
	if ! (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error); then
		rm -f "$dir/package-lock.json" # so that the next run installs again
		die "npm ci failed in $dir"
	fi
fi
cp "$src/spec.mjs" "$dir/"
export COMPAT_MODULES=$dir/node_modules

# Every pinned version is the one installed.
node -e '
const fs = require("fs"), dir = process.argv[1];
const want = JSON.parse(fs.readFileSync(dir + "/package.json", "utf8")).dependencies;
let bad = 0;
for (const [name, v] of Object.entries(want)) {
  const got = JSON.parse(fs.readFileSync(`${dir}/node_modules/${name}/package.json`, "utf8")).version;
  if (got !== v) { console.error(`compat: ${name} is pinned at ${v} but ${got} is installed`); bad = 1; }
}
process.exit(bad);' "$dir" || die "delete $dir/node_modules and run again"

# ---------------------------------------------------------------- build

(cd "$repo" && go build -o "$dir/mcpv" .) || die "go build failed"
mcpv=$dir/mcpv
echo "node $(node --version), npm $(npm --version 2>/dev/null), git $(git --version | cut -d' ' -f3), $("$mcpv" --version) ($(go env GOVERSION))"

# ---------------------------------------------------------------- harness

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpv-compat.XXXXXX")
# Session keepers put their sockets and logs here; no config of the user's
# is read.
export XDG_RUNTIME_DIR=$tmp/rt XDG_STATE_HOME=$tmp/state XDG_CONFIG_HOME=$tmp/config
mkdir -m 700 "$XDG_RUNTIME_DIR"
http_pid="" # the HTTP server of the current file
cleanup() {
	"$mcpv" session stop --all >/dev/null 2>&1 || true
	[ -z "$http_pid" ] || kill -KILL "$http_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

passed=0
failed=0
why=""
ok() {
	passed=$((passed + 1))
	printf 'ok   %s\n' "$1"
}
fail() {
	failed=$((failed + 1))
	printf 'FAIL %s\n' "$1"
	[ -z "$why" ] || printf '%s' "$why" | sed 's/^/    /'
	[ -z "${cmdline:-}" ] || printf '    command: %s\n' "$cmdline"
	if [ -s "$tmp/out" ]; then # lint's warnings are left out: a failure is not among them
		echo '    stdout:'
		grep -v '^      warning: ' "$tmp/out" | head -n 80 | sed 's/^/      | /'
	fi
	[ ! -s "$tmp/err" ] || { echo '    stderr:'; tail -n 20 "$tmp/err" | sed 's/^/      | /'; }
}
because() { why+="$*"$'\n'; }
verdict() { if [ -z "$why" ]; then ok "$1"; else fail "$1"; fi; }

# before_initialize FILE: the methods of the requests a --verbose trace in
# FILE shows sent before the first initialize (all of them, with none).
before_initialize() {
	sed -n 's/^mcpv: -> {"jsonrpc":"2.0","id":[^,]*,"method":"\([^"]*\)".*/\1/p' "$1" |
		awk '$0 == "initialize" { exit } { printf "%s%s", sep, $0; sep = " " }'
}

alive() { # PID: exists and is not a zombie
	local s
	s=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
	[[ $s != Z* ]]
}

# in_work CMD...: run CMD with the current server's directory as HOME, stdin
# from /dev/null, stdout and stderr in $tmp/out and $tmp/err; sets rc. A
# guard of 180 s turns a hang into a failure (exit 137).
in_work() {
	rc=0
	HOME=$work COMPAT_WORK=$work timeout -s KILL 180 "$@" </dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
}

# serve_http: for a file with x-serve (an HTTP server), start that server
# in the background, listening on 127.0.0.1 only (scripts/npm/loopback.cjs,
# preloaded by the file's command as COMPAT_LOOPBACK, makes every server it
# starts do so, on the port it was given; PORT=0 asks for any free one), and
# export its port as COMPAT_PORT. A server that does not start is a failed
# check (status 1).
export COMPAT_LOOPBACK=$repo/scripts/npm/loopback.cjs
serve_http() {
	local serve i
	mapfile -d '' -t serve < <(COMPAT_WORK=$work node "$dir/spec.mjs" "$file" serve)
	[ "${#serve[@]}" -gt 0 ] || return 0
	: >"$tmp/serve-$stem.log" # there before the loop reads it: a busy machine may run the server's shell later
	(cd "$work" && HOME=$work exec "${serve[@]}") </dev/null >"$tmp/serve-$stem.log" 2>&1 &
	http_pid=$!
	COMPAT_PORT=""
	for i in $(seq 600); do
		COMPAT_PORT=$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$tmp/serve-$stem.log" | head -n 1)
		[ -z "$COMPAT_PORT" ] || break
		alive "$http_pid" || break
		sleep 0.1
	done
	export COMPAT_PORT
	why=""
	cmdline="${serve[*]}"
	[ -n "$COMPAT_PORT" ] || because "the server did not listen within 60 s"
	cp "$tmp/serve-$stem.log" "$tmp/err"
	: >"$tmp/out"
	verdict "serve $stem on 127.0.0.1:${COMPAT_PORT:-?}"
	[ -n "$COMPAT_PORT" ] || { stop_http; return 1; }
}
stop_http() {
	[ -n "$http_pid" ] || return 0
	kill "$http_pid" 2>/dev/null || true
	wait "$http_pid" 2>/dev/null || true
	http_pid=""
}

# ---------------------------------------------------------------- the suite

for file in "${files[@]}"; do
	stem=$(basename "$file" .yaml)
	work=$tmp/work/$stem
	mkdir -p "$work"
	echo "--- $stem"
	serve_http || continue

	why=""
	cmdline="COMPAT_WORK=$work mcpv test --lint e2e/compat/$stem.yaml"
	in_work "$mcpv" test --lint "$file"
	[ "$rc" = 0 ] || because "exit status $rc, want 0"
	summary=$(grep -E '^(PASS|FAIL) ' "$tmp/out" | tail -n 1 || true)
	verdict "test $stem: ${summary:-no summary}"

	# The session loop.
	name=compat-$stem
	mapfile -d '' -t start < <(COMPAT_WORK=$work node "$dir/spec.mjs" "$file" start)
	if $check; then
		in_work "$mcpv" check --format json -c "${start[@]}"
		cp "$tmp/out" "$dir/check-$stem.json"
		node -e '
const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
const by = (s) => r.areas.flatMap((a) => a.checks).filter((c) => c.status === s).map((c) => c.id);
const c = r.counts;
console.log(`check ${process.argv[2]}: ${r.protocolVersion}, ${c.passed} passed, ${c.failed} failed, ${c.warned || 0} warned, ${c.skipped} skipped` +
  (by("failed").length ? `\n    failed: ${by("failed").join(", ")}` : "") + (by("warned").length ? `\n    warned: ${by("warned").join(", ")}` : ""));
' "$dir/check-$stem.json" "$stem" 2>/dev/null || { echo "check $stem: no report (exit $rc)"; tail -n 3 "$tmp/err" | sed 's/^/    | /'; }
	fi
	why=""
	cmdline="mcpv session start $name ${start[*]}"
	in_work "$mcpv" --quiet -c session start "$name" "${start[@]}"
	[ "$rc" = 0 ] || because "exit status $rc, want 0"
	keeper=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$tmp/out")
	[ -n "$keeper" ] || because "session start printed no pid"
	verdict "session $stem: start"
	[ "$rc" = 0 ] || {
		stop_http
		continue
	}
	servers=$(pgrep -P "$keeper" | tr '\n' ' ' || true)

	why=""
	cmdline="mcpv --session $name ping"
	in_work "$mcpv" --session "$name" --quiet -c ping
	[ "$rc" = 0 ] || because "exit status $rc, want 0"
	[ "$(cat "$tmp/out")" = "{}" ] || because "ping's result is not {}"
	verdict "session $stem: ping"

	count=$(node "$dir/spec.mjs" "$file" count)
	for ((i = 0; i < count; i++)); do
		mapfile -d '' -t words < <(COMPAT_WORK=$work node "$dir/spec.mjs" "$file" line "$i")
		why=""
		cmdline="mcpv --session $name ${words[*]}"
		in_work "$mcpv" --session "$name" --quiet -c "${words[@]}"
		[ "$rc" = 0 ] || because "exit status $rc, want 0"
		verdict "session $stem: ${words[*]:0:2}"
	done

	why=""
	cmdline="mcpv session stop $name"
	in_work "$mcpv" -c session stop "$name"
	[ "$rc" = 0 ] || because "exit status $rc, want 0"
	[ "$(cat "$tmp/out")" = '{"stopped":["'"$name"'"]}' ] || because "stop did not name the session"
	# The server is gone when stop returns; the keeper may take a moment
	# more to exit.
	for p in $servers; do
		if alive "$p"; then because "server process $p outlived session stop"; fi
	done
	for i in $(seq 30); do
		alive "$keeper" || break
		sleep 0.1
	done
	if alive "$keeper"; then because "the keeper $keeper was still running 3 s after session stop"; fi
	verdict "session $stem: stop leaves nothing"

	# The era remembered: two one-shot pings of the file's server with a
	# state directory of their own, the first probing, the second in the
	# era the first found (mcpv keeps it between runs); the server sees
	# nothing before initialize in the second that it did not see in the
	# first, and nothing at all when it speaks that era.
	why=""
	cmdline="mcpv -v ping ${start[*]}, twice"
	state=$XDG_STATE_HOME
	export XDG_STATE_HOME=$tmp/era/$stem
	in_work "$mcpv" -v --quiet ping "${start[@]}"
	first=$(before_initialize "$tmp/err") rc1=$rc
	in_work "$mcpv" -v --quiet ping "${start[@]}"
	second=$(before_initialize "$tmp/err")
	export XDG_STATE_HOME=$state
	[ "$rc1" = 0 ] && [ "$rc" = 0 ] || because "exit status $rc1, then $rc; want 0"
	for m in $second; do
		case " $first " in *" $m "*) ;; *) because "the second run sent $m before initialize, the first did not" ;; esac
	done
	if grep -q '"method":"initialize"' "$tmp/err" && [ -n "$second" ]; then
		because "remembered in the initialize era, the server still got $second before initialize"
	fi
	verdict "era $stem: remembered (before initialize: ${first:-nothing}, then ${second:-nothing})"

	# Trust: an ordinary server gets no audit finding above low (a false
	# alarm is a bug), and pins to a file that a second run checks clean.
	why=""
	cmdline="mcpv audit --fail-on medium ${start[*]}"
	in_work "$mcpv" --quiet audit --fail-on medium "${start[@]}"
	[ "$rc" = 0 ] || because "exit status $rc, want 0: a finding above low"
	verdict "trust $stem: $(tail -n 1 "$tmp/out")"
	why=""
	cmdline="mcpv pin $tmp/pins-$stem.json ${start[*]}; mcpv pin --check"
	in_work "$mcpv" --quiet pin "$tmp/pins-$stem.json" "${start[@]}"
	[ "$rc" = 0 ] || because "pin: exit status $rc, want 0"
	in_work "$mcpv" --quiet pin --check "$tmp/pins-$stem.json" "${start[@]}"
	[ "$rc" = 0 ] || because "pin --check: exit status $rc, want 0 (nothing moved)"
	verdict "trust $stem: pinned, and checked again"
	stop_http
done

echo "wall time: $(($(date +%s) - t_start)) s"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
