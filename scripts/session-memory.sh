#!/usr/bin/env bash
# Measures a session keeper's memory around large results.
#
#   bash scripts/session-memory.sh [MCPV-BINARY] [MiB] [CALLS]
#
# Starts a session on the go-sdk demo server, makes CALLS (default 1)
# concurrent calls of its big tool through the session, each a result of
# MiB (default 100) MiB, and prints the keeper's resident memory: before,
# at its peak (VmHWM) and after 10 s of idling. Linux only (/proc).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$work/mcpv
	(cd "$repo" && go build -o "$bin" .)
fi
mib=${2:-100}
calls=${3:-1}
(cd "$repo" && go build -o "$work/demo" ./examples/demo-server)

chmod 700 "$work"
export XDG_RUNTIME_DIR=$work XDG_STATE_HOME=$work/state
pid=$("$bin" session start mem -q .pid -- "$work/demo")
trap '"$bin" session stop mem >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
rss() { awk -v k="$1:" '$1 == k { printf "%.1f", $2 / 1024 }' "/proc/$pid/status"; }

echo "keeper before:     $(rss VmRSS) MiB"
for _ in $(seq "$calls"); do
	"$bin" --session mem call big "bytes:=$((mib << 20))" | wc -c >/dev/null &
done
wait
echo "keeper peak:       $(rss VmHWM) MiB ($calls x $mib MiB results)"
sleep 10
echo "keeper after 10 s: $(rss VmRSS) MiB"
