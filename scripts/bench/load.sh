#!/usr/bin/env bash
# mcpv load beside a raw HTTP load generator (hey) and k6, against the
# go-sdk everything server's greet tool over Streamable HTTP (stateless, so
# that every generator posts the same tools/call without a session):
#
#   bash scripts/bench/load.sh [ROUNDS [SECONDS]]     (default 3 rounds of 10 s)
#
# 1. The highest rate each sustains at 16 at once, in interleaved rounds
#    (the order turns each round): mcpv load -c 16 (initialize era, so
#    that its tools/call is hey's body but for the progress token mcpv
#    gives a call that may run long), the same in the 2026-07-28 era,
#    hey -c 16 posting the JSON-RPC body, k6 posting it with its HTTP
#    module (16 VUs), and k6 with the k6/x/mcp extension (16 VUs, one
#    session each). Each round's ratios, then their medians; and mcpv's
#    own CPU a call beside hey's, flat out.
# 2. At a fixed rate all of them hold (half the lowest median above),
#    mcpv's p50 and p99 beside hey's and k6's, and mcpv's own CPU time per
#    call. hey -q paces each of its 16 workers on a ticker of its own, all
#    started at once: its requests leave in bursts of 16. mcpv and k6's
#    constant-arrival-rate executor spread them evenly. mcpv counts from
#    when each call was meant to start (a stall is never hidden); k6's
#    http_req_duration is the HTTP exchange alone, and hey's is from the
#    request's start, so neither counts a wait for a free worker: when
#    the machine cannot hold the rate, mcpv's percentiles say so, while
#    hey's and k6's achieved rate falls instead. hey's own CPU per call
#    (bash's time) stands beside mcpv's.
# 3. At that rate, each era in turn: mcpv's own CPU a call beside the
#    server's, which says whose the 2026-07-28 era's extra cost is.
#
# Each Go program is built as its own releases are (static, -trimpath,
# -ldflags "-s -w": mcpv's release build and hey's goreleaser builds):
# hey with go install into $XDG_CACHE_HOME/mcpv/hey-release (default
# ~/.cache/mcpv/hey-release); k6 comes from scripts/k6.sh --build-only, as
# xk6 builds a k6 with an extension. The
# machine's load average is printed before and after: on a shared machine
# trust the ratios of a round, not the absolute rates.
set -euo pipefail
rounds=${1:-3} secs=${2:-10}
cd "$(dirname "$0")/../.."
root=$PWD
cache=${XDG_CACHE_HOME:-$HOME/.cache}/mcpv
die() {
	printf 'load.sh: %s\n' "$*" >&2
	exit 1
}

hey=$cache/hey-release/hey
if [ ! -x "$hey" ]; then
	CGO_ENABLED=0 GOBIN=$cache/hey-release go install -trimpath -ldflags "-s -w" github.com/rakyll/hey@v0.1.5 ||
		die "could not install hey"
fi
k6=$(bash scripts/k6.sh --build-only) || die "could not build k6"
. scripts/lib/http-server.sh
tmp=$(mktemp -d)
trap 'http_server_stop; rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/mcpv" .
(cd scripts/bench/everything-http && go build -o "$tmp/everything" .)
(cd scripts/bench/httpfeed && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/httpfeed" .)
http_server "$tmp" "$tmp/everything" || die "no server"
url=$server_url/
body='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{"name":"x"}}}'
headers=(-H 'Mcp-Protocol-Version: 2025-11-25')

cat >"$tmp/http.js" <<'JS'
import http from 'k6/http';
export const options = { vus: 16, duration: __ENV.D, summaryTrendStats: ['med', 'p(99)'] };
const params = { headers: { 'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2025-11-25' } };
export default function () { http.post(__ENV.URL, __ENV.BODY, params); }
export function handleSummary(d) {
  return { stdout: `${d.metrics.http_reqs.values.rate} ${d.metrics.http_req_failed.values.rate}\n` };
}
JS
cat >"$tmp/mcp.js" <<'JS'
import mcp from 'k6/x/mcp';
export const options = { vus: 16, duration: __ENV.D, summaryTrendStats: ['med', 'p(99)'] };
let c;
export default function () {
  c = c || mcp.connect(__ENV.URL, { era: 'legacy' });
  c.call('greet', { name: 'x' });
}
export function handleSummary(d) {
  return { stdout: `${d.metrics.mcp_reqs.values.rate} ${d.metrics.mcp_failed.values.rate}\n` };
}
JS
cat >"$tmp/rate.js" <<'JS'
import http from 'k6/http';
export const options = { summaryTrendStats: ['med', 'p(99)'], scenarios: { s: { executor: 'constant-arrival-rate',
  rate: parseInt(__ENV.RATE), timeUnit: '1s', duration: __ENV.D, preAllocatedVUs: 16, maxVUs: 16 } } };
const params = { headers: { 'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream', 'Mcp-Protocol-Version': '2025-11-25' } };
export default function () { http.post(__ENV.URL, __ENV.BODY, params); }
export function handleSummary(d) {
  const t = d.metrics.http_req_duration.values;
  return { stdout: `${t.med} ${t['p(99)']} ${d.metrics.http_reqs.values.rate}\n` };
}
JS

# Each prints "RATE ERRORS" for a run of $secs at 16 at once.
# mcpv and hey add their own CPU time a call, in µs.
run_mcpv() { "$tmp/mcpv" load call greet name=x -c 16 -d "${secs}s" -u "$url" --protocol-era "$1" --format json -r -q '"\(.throughput) \(.errors) \(.cpu.per_iteration_us)"'; }
run_hey() {
	TIMEFORMAT='%U %S'
	{ time "$hey" -z "${secs}s" -c 16 -m POST -T application/json -A 'application/json, text/event-stream' "${headers[@]}" -d "$body" "$url" >"$tmp/hey.out"; } 2>"$tmp/hey.time"
	awk -v cpu="$(awk '{print $1 + $2}' "$tmp/hey.time")" -v secs="$secs" '/Requests\/sec/ {r = $2} /^  \[[0-9]+\]/ {if ($1 != "[200]") e += $2}
		END {printf "%s %d %f\n", r, e, cpu / (r * secs) * 1e6}' "$tmp/hey.out"
}
run_k6() { D=${secs}s URL=$url BODY=$body "$k6" run --quiet --no-usage-report "$tmp/$1.js" 2>/dev/null | tail -1; }

names=(mcpv mcpv-modern hey k6-http k6-mcp)
declare -A rate err cpu flat
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < rounds; r++)); do
	for ((i = 0; i < ${#names[@]}; i++)); do
		n=${names[$(((i + r) % ${#names[@]}))]}
		case $n in
		mcpv) out=$(run_mcpv legacy) ;;
		mcpv-modern) out=$(run_mcpv modern) ;;
		hey) out=$(run_hey) ;;
		k6-http) out=$(run_k6 http) ;;
		k6-mcp) out=$(run_k6 mcp) ;;
		esac
		read -r v e c <<<"$out"
		rate[$n,$r]=$v err[$n,$r]=$e flat[$n,$r]=${c:-}
		printf 'round %d %-12s %8.0f/s  errors %s%s\n' "$((r + 1))" "$n" "$v" "$e" "${c:+  CPU a call $(printf %.0f "$c") µs}" >&2
	done
done
echo "load average after the rates: $(cut -d' ' -f1-3 /proc/loadavg)"

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
col() { local n=$1 r; for ((r = 0; r < rounds; r++)); do echo "${rate[$n,$r]}"; done; }
ratio() { local a=$1 b=$2 r; for ((r = 0; r < rounds; r++)); do awk -v a="${rate[$a,$r]}" -v b="${rate[$b,$r]}" 'BEGIN {printf "%.3f\n", a / b}'; done; }

echo
echo "| at 16 at once, ${secs} s, $rounds interleaved rounds | calls/s (median) | errors | per round |"
echo "| --- | --- | --- | --- |"
for n in "${names[@]}"; do
	printf '| %s | %.0f | %s | %s |\n' "$n" "$(median $(col "$n"))" "$(for ((r = 0; r < rounds; r++)); do printf '%s ' "${err[$n,$r]}"; done)" "$(col "$n" | awk '{printf "%.0f ", $1}')"
done
echo
echo "| ratio (median of the rounds' ratios) | value | per round |"
echo "| --- | --- | --- |"
for pair in "mcpv hey" "mcpv k6-mcp" "mcpv k6-http" "mcpv-modern hey" "k6-http hey"; do
	read -r a b <<<"$pair"
	printf '| %s / %s | %s | %s |\n' "$a" "$b" "$(median $(ratio "$a" "$b"))" "$(ratio "$a" "$b" | tr '\n' ' ')"
done

# Flat out, what a call costs mcpv and hey in CPU of their own (the rest
# of the two cores is the server's): the rate follows from it.
echo
echo "| CPU a call at 16 at once, flat out (median of the rounds' ratios) | value | per round |"
echo "| --- | --- | --- |"
rs=$(for ((r = 0; r < rounds; r++)); do awk -v a="${flat[mcpv,$r]}" -v b="${flat[hey,$r]}" 'BEGIN {printf "%.2f\n", a / b}'; done)
printf '| mcpv / hey | %s | %s |\n' "$(median $rs)" "$(echo $rs)"

# 2. A fixed rate all hold: half the lowest median, in hundreds.
low=$(for n in mcpv hey k6-mcp; do median $(col "$n"); done | sort -g | head -1)
fixed=$(awk -v l="$low" 'BEGIN {r = int(l / 200) * 100; print (r < 100) ? 100 : r}')
per=$(awk -v f="$fixed" 'BEGIN {printf "%g", f / 16}')
echo
echo "| at $fixed calls/s on 16 at once, ${secs} s | p50 | p99 | achieved | CPU per call |"
echo "| --- | --- | --- | --- | --- |"
for ((r = 0; r < rounds; r++)); do
	m=$("$tmp/mcpv" load call greet name=x -c 16 --rate "$fixed" -d "${secs}s" -u "$url" --protocol-era legacy --format json -r \
		-q '"\(.latency_ms.p50) \(.latency_ms.p99) \(.throughput) \(.cpu.per_iteration_us)"')
	TIMEFORMAT='%U %S'
	{ time "$hey" -z "${secs}s" -c 16 -q "$per" -m POST -T application/json -A 'application/json, text/event-stream' "${headers[@]}" -d "$body" "$url" >"$tmp/hey.out"; } 2>"$tmp/hey.time"
	h=$(awk -v cpu="$(awk '{print $1 + $2}' "$tmp/hey.time")" -v secs="$secs" '/50%/ {p50 = $3 * 1000} /99%/ {p99 = $3 * 1000} /Requests\/sec/ {r = $2}
		END {print p50, p99, r, cpu / (r * secs) * 1e6}' "$tmp/hey.out")
	k=$(RATE=$fixed D=${secs}s URL=$url BODY=$body "$k6" run --quiet --no-usage-report "$tmp/rate.js" 2>/dev/null | tail -1)
	read -r mp50 mp99 mr mcpu <<<"$m"
	read -r hp50 hp99 hr hcpu <<<"$h"
	read -r kp50 kp99 kr <<<"$k"
	printf '| round %d: mcpv | %.2f ms | %.2f ms | %.0f/s | %.0f µs |\n' "$((r + 1))" "$mp50" "$mp99" "$mr" "$mcpu"
	printf '| round %d: hey | %.2f ms | %.2f ms | %.0f/s | %.0f µs (hey'"'"'s own) |\n' "$((r + 1))" "$hp50" "$hp99" "$hr" "$hcpu"
	printf '| round %d: k6 HTTP | %.2f ms | %.2f ms | %.0f/s | |\n' "$((r + 1))" "$kp50" "$kp99" "$kr"
	read -r er ecpu _ <<<"$("$tmp/httpfeed" even "$fixed" 16 "$secs" "$url" "$body")"
	read -r br bcpu _ <<<"$("$tmp/httpfeed" burst "$fixed" 16 "$secs" "$url" "$body")"
	printf '| round %d: httpfeed, even | | | %.0f/s | %.0f µs |\n' "$((r + 1))" "$er" "$ecpu"
	printf '| round %d: httpfeed, bursts of 16 | | | %.0f/s | %.0f µs |\n' "$((r + 1))" "$br" "$bcpu"
	cpu[mcpv,$r]=$mcpu cpu[hey,$r]=$hcpu cpu[httpfeed-even,$r]=$ecpu cpu[httpfeed-burst,$r]=$bcpu
done
echo
echo "| CPU a call at $fixed calls/s (median of the rounds' ratios) | value | per round |"
echo "| --- | --- | --- |"
for pair in "mcpv hey" "mcpv httpfeed-even" "httpfeed-even httpfeed-burst" "hey httpfeed-burst"; do
	read -r a b <<<"$pair"
	rs=$(for ((r = 0; r < rounds; r++)); do awk -v a="${cpu[$a,$r]}" -v b="${cpu[$b,$r]}" 'BEGIN {printf "%.2f\n", a / b}'; done)
	printf '| %s / %s | %s | %s |\n' "$a" "$b" "$(median $rs)" "$(echo $rs)"
done
echo

#    The same rate from httpfeed (scripts/bench/httpfeed, net/http alone,
#    no protocol), spread evenly as mcpv spreads it and in hey's bursts of
#    16: between the two only the spread differs, and what it costs is the
#    Go runtime's (each call of an even spread wakes an idle process, and
#    its monitor thread polls every 20 µs while it is awake; a burst wakes
#    it once for 16). mcpv's CPU a call is compared with the even one.
#    Each round's CPU ratios, then their medians.
# 3. What the 2026-07-28 era costs beyond the legacy one, and whose it is:
#    at the same fixed rate, mcpv's own CPU a call beside the server's (its
#    utime and stime from /proc, over the run's iterations), each era in
#    turn.
echo "| at $fixed calls/s on 16 at once, ${secs} s | mcpv CPU per call | server CPU per call |"
echo "| --- | --- | --- |"
tck=$(getconf CLK_TCK)
servercpu() { awk '{print $14 + $15}' "/proc/$server/stat"; }
for ((r = 0; r < rounds; r++)); do
	for era in legacy modern; do
		before=$(servercpu)
		m=$("$tmp/mcpv" load call greet name=x -c 16 --rate "$fixed" -d "${secs}s" -u "$url" --protocol-era "$era" --format json -r \
			-q '"\(.cpu.per_iteration_us) \(.iterations)"')
		read -r mcpu its <<<"$m"
		printf '| round %d: %s era | %.0f µs | %s µs |\n' "$((r + 1))" "$era" "$mcpu" \
			"$(awk -v a="$before" -v b="$(servercpu)" -v t="$tck" -v n="$its" 'BEGIN {printf "%.0f", (b - a) / t / n * 1e6}')"
	done
done

echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
