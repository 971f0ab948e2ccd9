#!/usr/bin/env bash
# Measures a session keeper's memory around large messages and floods.
#
#   bash scripts/session-memory.sh [MCPV-BINARY] [SIZE] [CALLS] [KIND]
#
# Starts a session, makes CALLS (default 1) concurrent calls through it and
# prints the keeper's resident memory: before, at its peak (VmHWM) and
# after 10 s of idling. KIND is
#   result   (default) the go-sdk demo server's big tool, each call a result
#            of SIZE (default 100) MiB;
#   result-http  the same, the demo server over Streamable HTTP (each
#            answer on a stream of its own);
#   request  mcptest's fake server, each call's arguments SIZE MiB (the
#            fake answers "xx", not echoing them);
#   flood    mcptest's fake server, each call preceded by SIZE log
#            notifications (log-flood=SIZE); it also prints the wall time of
#            the calls and the lines each command printed (fewest, most).
# Every call's result is checked. Linux only (/proc).
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap '[ -z "${demo:-}" ] || kill "$demo" 2>/dev/null; rm -rf "$work"' EXIT
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$work/mcpv
	(cd "$repo" && go build -o "$bin" .)
fi
size=${2:-100}
calls=${3:-1}
kind=${4:-result}

chmod 700 "$work"
export XDG_RUNTIME_DIR=$work XDG_STATE_HOME=$work/state
case $kind in
result)
	(cd "$repo" && go build -o "$work/demo" ./examples/demo-server)
	server=(-- "$work/demo")
	what="$size MiB results"
	;;
result-http)
	(cd "$repo" && go build -o "$work/demo" ./examples/demo-server)
	"$work/demo" -http 127.0.0.1:0 2>"$work/demo.err" &
	demo=$!
	for _ in $(seq 50); do grep -q 'listening on' "$work/demo.err" && break; sleep 0.1; done
	url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$work/demo.err")
	[ -n "$url" ] || { echo "session-memory: the demo server did not start" >&2; kill "$demo"; exit 1; }
	server=(-u "$url/mcp")
	what="$size MiB results over HTTP"
	;;
request | flood)
	(cd "$repo" && go test -tags e2e -c -o "$work/fake" ./e2e)
	fake=plain,big=2 want=xx
	[ "$kind" = flood ] && fake=plain,log-flood=$size want=ok
	server=(--env "MCPV_FAKE=$fake" -- "$work/fake")
	what="$size MiB requests"
	[ "$kind" = flood ] && what="calls of $size log notifications"
	;;
*)
	echo "session-memory: KIND is result, result-http, request or flood, not $kind" >&2
	exit 2
	;;
esac
if [ "$kind" = request ]; then
	head -c $((size << 20)) /dev/zero | tr '\0' x >"$work/pad"
fi

pid=$("$bin" session start mem -q .pid "${server[@]}")
trap '"$bin" session stop mem >/dev/null 2>&1 || true; [ -z "${demo:-}" ] || kill "$demo" 2>/dev/null; rm -rf "$work"' EXIT
rss() { awk -v k="$1:" '$1 == k { printf "%.1f", $2 / 1024 }' "/proc/$pid/status"; }

# one I: call I, its result (for result, its length) to $work/out.I, what
# it printed on stderr to $work/err.I.
one() {
	case $kind in
	result | result-http) "$bin" --session mem call big "bytes:=$((size << 20))" | wc -c ;;
	request) "$bin" --session mem call x "pad=@$work/pad" --no-validate -r -q '.content[0].text' ;;
	flood) "$bin" --session mem call x --no-validate -r -q '.content[0].text' ;;
	esac >"$work/out.$1" 2>"$work/err.$1"
}

echo "keeper before:     $(rss VmRSS) MiB"
start=$(date +%s.%N)
pids=()
for i in $(seq "$calls"); do
	one "$i" &
	pids+=($!)
done
wait "${pids[@]}" # not the demo server's
end=$(date +%s.%N)
echo "keeper peak:       $(rss VmHWM) MiB ($calls x $what)"
for i in $(seq "$calls"); do
	got=$(cat "$work/out.$i")
	if { [ "${kind%-http}" = result ] && [ "$got" -lt $((size << 20)) ]; } || { [ "${kind%-http}" != result ] && [ "$got" != "$want" ]; }; then
		echo "session-memory: call $i did not come through: $(tail -c 300 "$work/err.$i")" >&2
		exit 1
	fi
done
if [ "$kind" = flood ]; then
	printf 'calls took:        %.2f s\n' "$(echo "$end - $start" | bc)"
	lines=$(for i in $(seq "$calls"); do wc -l <"$work/err.$i"; done | sort -n)
	echo "lines printed:     $(echo "$lines" | head -1) to $(echo "$lines" | tail -1) a command"
fi
sleep 10
echo "keeper after 10 s: $(rss VmRSS) MiB"
