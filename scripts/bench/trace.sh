#!/usr/bin/env bash
# The cost of --trace and of OTLP export, for docs/BENCHMARKS.md ("Traces
# and spans"):
#
#   bash scripts/bench/trace.sh [ROUNDS] [SECONDS]
#
# 1. A one-shot `mcpv call echo` to the demo server over stdio, without and
#    with --trace: the median wall time of 5*ROUNDS runs each, alternating.
# 2. `mcpv load call echo -c 16` against the demo server over Streamable
#    HTTP (stateless), without and with --trace: calls a second, ROUNDS
#    alternating runs of SECONDS each.
# 3. The same load through `mcpv serve --http` in front of the demo server
#    over stdio, serve exporting a span of each relayed call to a collector
#    (Jaeger, from scripts/jaeger.sh) and not: calls a second.
set -euo pipefail
rounds=${1:-3} secs=${2:-5}
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"' EXIT
go build -o "$tmp/mcpv" .
go build -o "$tmp/demo" ./examples/demo-server
. scripts/lib/http-server.sh

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
ms() { # COMMAND...: wall time in ms
	local s e
	s=$(date +%s%N)
	"$@" >/dev/null 2>&1 || true
	e=$(date +%s%N)
	echo $(((e - s) / 1000))
}
rate() { # ARGS...: the calls a second of one mcpv load run
	"$tmp/mcpv" "$@" load call echo message=hi -c 16 -d "${secs}s" --format json 2>"$tmp/load.err" >"$tmp/load.json" ||
		{ echo "trace.sh: mcpv load failed: $(tail -3 "$tmp/load.err")" >&2; return 1; }
	sed -n 's/.*"ok_per_s":\([0-9.]*\).*/\1/p' "$tmp/load.json"
}

for _ in $(seq $((rounds * 5))); do
	echo "$(ms "$tmp/mcpv" call echo message=hi -- "$tmp/demo")" >>"$tmp/call-off"
	echo "$(ms "$tmp/mcpv" --trace "$tmp/call.jsonl" call echo message=hi -- "$tmp/demo")" >>"$tmp/call-on"
done
printf 'one-shot call, stdio: without --trace %s µs, with %s µs (medians of %d)\n' "$(median <"$tmp/call-off")" "$(median <"$tmp/call-on")" $((rounds * 5))

http_server "$tmp" "$tmp/demo" -stateless
pids+=("$server")
for _ in $(seq "$rounds"); do
	rate -u "$server_url" >>"$tmp/load-off"
	rate -u "$server_url" --trace "$tmp/load.jsonl" >>"$tmp/load-on"
done
printf 'load -c 16, HTTP: without --trace %s/s, with %s/s (medians of %d runs of %ss; the trace: %s bytes)\n' \
	"$(median <"$tmp/load-off")" "$(median <"$tmp/load-on")" "$rounds" "$secs" "$(wc -c <"$tmp/load.jsonl")"
http_server_stop

jaeger=${MCPV_JAEGER:-$(bash scripts/jaeger.sh)}
port() { echo $((20000 + RANDOM % 30000)); } # a loopback port, most likely free
otlp=$(port)
MCPV_JAEGER_OTLP_PORT=$otlp MCPV_JAEGER_QUERY_PORT=$(port) MCPV_JAEGER_GRPC_PORT=$(port) "$jaeger" --config scripts/jaeger/config.yaml >"$tmp/jaeger.log" 2>&1 &
pids+=($!)
sleep 3
serve() { # ENV...: serve --http in front of the demo server, with ENV; sets serve_url
	env MCPV_HTTP_TOKEN=bench-token "$@" "$tmp/mcpv" serve --http 127.0.0.1:0 -- "$tmp/demo" 2>"$tmp/serve.log" &
	serve_pid=$!
	pids+=("$serve_pid") # ended by the trap too, should the script stop before it does
	for _ in $(seq 50); do
		serve_url=$(sed -n 's/.*serving at \(http:[^ ]*\).*/\1/p' "$tmp/serve.log")
		[ -n "$serve_url" ] && return 0
		sleep 0.1
	done
	echo "serve did not start: $(cat "$tmp/serve.log")" >&2
	exit 1
}
for _ in $(seq "$rounds"); do
	serve OTEL_SDK_DISABLED=true
	rate -u "$serve_url" -H "Authorization: Bearer bench-token" >>"$tmp/serve-off"
	kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
	serve OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$otlp"
	rate -u "$serve_url" -H "Authorization: Bearer bench-token" >>"$tmp/serve-on"
	kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
done
printf 'load -c 16 through serve --http: serve exporting nothing %s/s, exporting spans %s/s (medians of %d runs of %ss)\n' \
	"$(median <"$tmp/serve-off")" "$(median <"$tmp/serve-on")" "$rounds" "$secs"
