#!/usr/bin/env bash
# The signal stress test's long form (e2e TestSignalStress; go test runs 40
# runs): SIGINT, SIGTERM and SIGHUP at random moments of calls, lists,
# tasks, session commands and keepers, against servers that starve the CPU,
# stop reading, are stopped or are still starting, and on terminals that
# read, stall, or take a typed ^C. Every run must end with 130 within the
# documented bound and leave no process of its server behind.
#
#   scripts/signal-stress.sh [RUNS]          # default 400 runs, about 2 minutes
#   scripts/signal-stress.sh --npx [RUNS]    # the npm "everything" server under npx
#                                            # only (default 60 runs), from a cold
#                                            # npx cache: its first run downloads
#
# MCPV_SIGNAL_STRESS_SEED=N repeats the draws of an earlier run (each run
# prints its seed); MCPV_SIGNAL_STRESS_ONLY=WORDS keeps the kinds of run
# whose names hold WORDS.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd -P)
npx_server=false
if [ "${1:-}" = --npx ]; then
	npx_server=true
	shift
fi
default=400
$npx_server && default=60
runs=${1:-$default}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { sed -n '2,16p' "$0" >&2; exit 2; }
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
cd "$repo/e2e"
set +e
MCPV_SIGNAL_STRESS=$runs go test -run '^TestSignalStress$' -count=1 -v -timeout 120m . | grep -v -e '^=== ' -e '^ *--- PASS'
exit "${PIPESTATUS[0]}"
