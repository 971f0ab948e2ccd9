#!/usr/bin/env bash
# The signal stress test's long form (e2e TestSignalStress; go test runs 40
# runs): SIGINT, SIGTERM and SIGHUP at random moments of calls, lists,
# tasks, session commands and keepers, against servers that starve the CPU,
# stop reading, are stopped or are still starting, and on terminals that
# read, stall, or take a typed ^C. Every run must end with 130 within the
# documented bound and leave no process of its own behind (server, keeper).
#
#   scripts/signal-stress.sh [RUNS]          # default 400 runs, about 2 minutes
#   scripts/signal-stress.sh --seeds 5 --busy 8 [RUNS]
#                                            # five passes of RUNS, each of a seed
#                                            # of its own, beside eight busy loops
#   scripts/signal-stress.sh --npx [RUNS]    # the npm "everything" server under npx
#                                            # only (default 60 runs), from a cold
#                                            # npx cache: its first run downloads
#
# After each pass, no process that the pass started may be left: each
# carries MCPV_STRESS_PASS in its environment, and one found is named,
# killed, and fails the script. MCPV_SIGNAL_STRESS_SEED=N repeats the
# draws of an earlier pass (each prints its seed); MCPV_SIGNAL_STRESS_ONLY=
# WORDS keeps the kinds of run whose names hold WORDS.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd -P)
npx_server=false seeds=1 busy=0
while [ $# -gt 0 ]; do
	case $1 in
	--npx) npx_server=true ;;
	--seeds) seeds=$2; shift ;;
	--busy) busy=$2; shift ;;
	*) break ;;
	esac
	shift
done
default=400
$npx_server && default=60
runs=${1:-$default}
for n in "$runs" "$seeds"; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || { sed -n '2,21p' "$0" >&2; exit 2; }
done
[[ $busy =~ ^[0-9]+$ ]] || { sed -n '2,21p' "$0" >&2; exit 2; }
if $npx_server; then
	command -v npx >/dev/null || { echo "signal-stress: npx is missing" >&2; exit 1; }
	# A cache of its own, outside the repository and the user's: cold at the
	# first run, as a newcomer's machine is.
	export npm_config_cache=${MCPV_STRESS_NPM_CACHE:-${TMPDIR:-/tmp}/mcpv-signal-stress-npm}
	export MCPV_SIGNAL_STRESS_SERVER="npx -y @modelcontextprotocol/server-everything@$(
		node -e 'console.log(require(process.argv[1]).dependencies["@modelcontextprotocol/server-everything"])' "$repo/scripts/npm/package.json"
	)"
	export MCPV_SIGNAL_STRESS_ONLY=${MCPV_SIGNAL_STRESS_ONLY:-real server}
	echo "server: $MCPV_SIGNAL_STRESS_SERVER (npm cache $npm_config_cache)"
fi

# The busy loops are this script's, ended by their pids when it ends.
loops=()
stop_loops() { [ ${#loops[@]} -eq 0 ] || kill "${loops[@]}" 2>/dev/null || true; }
trap stop_loops EXIT
for _ in $(seq "$busy"); do
	(while :; do :; done) &
	loops+=($!)
done

# leftovers names, kills and counts the live processes whose environment
# holds MCPV_STRESS_PASS=$1.
leftovers() {
	local needle="MCPV_STRESS_PASS=$1" found=0 env pid
	for env in /proc/[0-9]*/environ; do
		pid=${env#/proc/}; pid=${pid%/environ}
		[ "$pid" = $$ ] && continue
		if { tr '\0' '\n' <"$env"; } 2>/dev/null | grep -qx "$needle"; then
			grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && continue
			echo "signal-stress: left behind: $pid $({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null)" >&2
			kill -KILL "$pid" 2>/dev/null || true
			kill -CONT "$pid" 2>/dev/null || true
			found=$((found + 1))
		fi
	done
	return "$found"
}

cd "$repo/e2e"
status=0
for pass in $(seq "$seeds"); do
	id="$$-$pass-$RANDOM"
	set +e
	MCPV_STRESS_PASS=$id MCPV_SIGNAL_STRESS=$runs go test -tags e2e -run '^TestSignalStress$' -count=1 -v -timeout 120m . |
		grep -v -e '^=== ' -e '^ *--- PASS'
	code=${PIPESTATUS[0]}
	set -e
	[ "$code" = 0 ] || status=$code
	sleep 1 # a keeper ending its server in order
	if ! leftovers "$id"; then
		echo "signal-stress: pass $pass of $seeds left processes behind" >&2
		status=1
	fi
done
exit "$status"
