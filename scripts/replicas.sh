#!/usr/bin/env bash
# Three replicas of an mcpv gateway (`mcpv serve FILE --http`, the demo
# server its member) behind HAProxy, configured by
# examples/replicas/haproxy.cfg as docs/guide/serve.md gives it, under
# `mcpv load` in both protocol eras at once for 30 s, while one replica
# is stopped (SIGTERM: it drains) and started again: the 2026-07-28 era
# loses no request; the initialize era loses at most the sessions the
# stopped replica held, each with one clear error, and its clients go on
# (a new session, on another replica). Then, in each era, a slow call
# whose replica is killed (SIGKILL) two seconds in: the tool ran once,
# on that replica alone (HAProxy sends no request a replica read again),
# and the client ends with exit 4 saying that the tool may or may not
# have run. About 70 s.
#
# Needs HAProxy and jq (Debian: haproxy, jq); as root with apt-get it
# installs them, otherwise it says so and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v haproxy >/dev/null || ! command -v jq >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing HAProxy and jq from Debian's packages"
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy jq ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy jq; }; } >/dev/null 2>&1 || true
  fi
fi
for tool in haproxy jq curl; do
  command -v "$tool" >/dev/null || { echo "scripts/replicas.sh: $tool is missing (Debian: apt-get install haproxy jq curl)" >&2; exit 1; }
done

work=$(mktemp -d)
declare -A pid
cleanup() {
  local p
  for p in "${pid[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pid[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

go build -o "$work/mcpv" .
go build -o "$work/demo" ./examples/demo-server
# Each replica's demo server keeps what it is sent in runs.rN, where
# the tool's runs are counted.
for r in 1 2 3; do
  printf '#!/bin/sh\ntee -a "%s/runs.r%s" | "%s/demo"\n' "$work" "$r" "$work" >"$work/member$r"
  chmod +x "$work/member$r"
  printf 'servers:\n  demo:\n    command: %s\n' "$work/member$r" >"$work/gateway$r.serve.yaml"
done

# Free ports on loopback: nothing answers a connection to them.
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && [[ " ${ports[*]:-} " != *" $p "* ]]; then
      ports+=("$p"); echo "$p"; return
    fi
  done
}
ports=()
lb=$(free_port); ports+=("$lb")
declare -A port
for r in 1 2 3; do port[$r]=$(free_port); ports+=("${port[$r]}"); done
sed -e "s/127.0.0.1:8808/127.0.0.1:$lb/" -e "s/127.0.0.1:8801/127.0.0.1:${port[1]}/" \
  -e "s/127.0.0.1:8802/127.0.0.1:${port[2]}/" -e "s/127.0.0.1:8803/127.0.0.1:${port[3]}/" \
  examples/replicas/haproxy.cfg >"$work/haproxy.cfg"
haproxy -c -q -f "$work/haproxy.cfg"

# Every replica takes the same bearer token, as behind a real balancer.
export MCPV_HTTP_TOKEN=replicas-$RANDOM-$RANDOM-$RANDOM
start_replica() {
  "$work/mcpv" serve "$work/gateway$1.serve.yaml" --http "127.0.0.1:${port[$1]}" 2>>"$work/r$1.log" &
  pid[r$1]=$!
}
healthy() { # URL [REPLICA]: 200 while the replica lives; a bound of 5 min for a machine at any load
  local i
  for i in $(seq 3000); do
    [ "$(curl -s -o /dev/null -w '%{http_code}' "$1" || true)" = 200 ] && return 0
    if [ -n "${2:-}" ] && ! kill -0 "${pid[r$2]}" 2>/dev/null; then
      echo "replica $2 ended before it was healthy: $1; its log:" >&2; tail -n 20 "$work/r$2.log" >&2; return 1
    fi
    sleep 0.1
  done
  echo "not healthy in 5 min: $1" >&2; [ -z "${2:-}" ] || tail -n 20 "$work/r$2.log" >&2; return 1
}
for r in 1 2 3; do start_replica "$r"; done
for r in 1 2 3; do healthy "http://127.0.0.1:${port[$r]}/healthz" "$r"; done
haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
pid[haproxy]=$!
healthy "http://127.0.0.1:$lb/healthz"

url="http://127.0.0.1:$lb/mcp"
load() { # NAME ERA-FLAGS...
  local name=$1; shift
  # Each call takes half a second: about ten are in flight on each
  # replica when one is stopped.
  "$work/mcpv" load call demo__slow seconds=0.5 steps=1 -c 32 -d 30s --rate 40 --format json "$@" -H "Authorization: Bearer $MCPV_HTTP_TOKEN" -u "$url" >"$work/$name.json" 2>"$work/$name.err" &
  pid[$name]=$!
}
load modern --protocol-version 2026-07-28
load legacy --protocol-era legacy
sleep 8
echo "== replica 2 stopped (SIGTERM) under load"
kill -TERM "${pid[r2]}"
stopped=$SECONDS
rc=0; wait "${pid[r2]}" || rc=$?
unset "pid[r2]"
echo "   it ended in $((SECONDS - stopped)) s (exit $rc)"
sleep 4
echo "== replica 2 started again"
start_replica 2
healthy "http://127.0.0.1:${port[2]}/healthz" 2
for name in modern legacy; do
  rc=0; wait "${pid[$name]}" || rc=$?
  unset "pid[$name]"
  [ "$rc" = 0 ] || { echo "the $name load failed (exit $rc):"; cat "$work/$name.err"; exit 1; }
done

fail=0
summary() { jq -r '"   \(.ok) answered, \(.errors) failed of \(.iterations) in \(.elapsed_s | floor) s" + (if .errors > 0 then ": " + ([.error_kinds[] | tostring] | join("; ")) else "" end)' "$work/$1.json"; }
echo "== the 2026-07-28 era (each request stands alone)"
summary modern
jq -e '.errors == 0 and .ok > 500 and (.interrupted | not)' "$work/modern.json" >/dev/null ||
  { echo "   FAIL: a request of the 2026-07-28 era was lost"; fail=1; }
echo "== the initialize era (sessions on their replica)"
summary legacy
jq -e '.errors <= 32 and .ok > 500 and (.interrupted | not)' "$work/legacy.json" >/dev/null ||
  { echo "   FAIL: more lost than the calls in flight on the stopped replica (at most 32, the sessions)"; fail=1; }

# A slow call, its replica killed two seconds in: the tool runs once.
killed() { # NAME SECONDS ERA-FLAGS...
  local name=$1 seconds=$2 r="" runs rc=0 i
  shift 2
  "$work/mcpv" call demo__slow "seconds=$seconds" steps=1 "$@" -H "Authorization: Bearer $MCPV_HTTP_TOKEN" -u "$url" \
    >"$work/$name.out" 2>"$work/$name.err" &
  local client=$!
  for i in $(seq 3000); do # the replica that runs it: the one whose demo server was sent it
    r=$(grep -l "\"seconds\":$seconds[,}]" "$work"/runs.r* 2>/dev/null | head -1 | sed 's/.*runs\.r//') || true
    [ -n "$r" ] || ! kill -0 "$client" 2>/dev/null && break
    sleep 0.1
  done
  if [ -z "$r" ]; then
    echo "   FAIL: no replica was sent the call while the client ran (5 min at most): $(head -c 400 "$work/$name.err")"; fail=1
    kill "$client" 2>/dev/null || true; wait "$client" || true; return
  fi
  sleep 2
  kill -KILL "${pid[r$r]}"
  wait "${pid[r$r]}" 2>/dev/null || true
  unset "pid[r$r]"
  wait "$client" || rc=$?
  sleep "$seconds" # a call sent on to another replica would have reached it by now
  runs=$(cat "$work"/runs.r* | grep -c "\"seconds\":$seconds[,}]" || true)
  echo "   replica $r killed under it: the tool was sent to replicas $runs time(s); the client ended with exit $rc: $(head -c 400 "$work/$name.err")"
  if [ "$runs" != 1 ]; then echo "   FAIL: the tool ran $runs times, want once"; fail=1; fi
  if [ "$rc" != 4 ] || ! grep -q "the tool may or may not have run" "$work/$name.err"; then
    echo "   FAIL: want exit 4, and the words \"the tool may or may not have run\""; fail=1
  fi
  start_replica "$r"
  healthy "http://127.0.0.1:${port[$r]}/healthz" "$r"
  sleep 1.5 # HAProxy's check finds it up again (rise 2, every 500 ms)
}
echo "== a slow call of the 2026-07-28 era, its replica killed (SIGKILL) two seconds in"
killed modern-killed 7 --protocol-version 2026-07-28
echo "== a slow call of the initialize era, its replica killed (SIGKILL) two seconds in"
killed legacy-killed 8 --protocol-era legacy

if [ "$fail" != 0 ]; then
  for r in 1 2 3; do echo "-- replica $r's log"; tail -20 "$work/r$r.log"; done
  echo "-- HAProxy's log"; tail -20 "$work/haproxy.log"
  exit 1
fi
echo "replicas: ok"
