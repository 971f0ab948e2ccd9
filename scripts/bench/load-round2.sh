#!/usr/bin/env bash
# What mcpv load's second round costs and finds, against the go-sdk
# everything server's greet tool over Streamable HTTP (stateless, as in
# scripts/bench/load.sh):
#
#   bash scripts/bench/load-round2.sh [ROUNDS [SECONDS]]   (default 5 rounds of 10 s)
#
# 1. The cost of per-iteration templates: -c 16 in a closed loop with the
#    same argument every iteration (name=x) and with one made by a
#    template each iteration (name~="x-\(.iteration)"), in interleaved
#    rounds (the order turns each round); each round's ratio of rates and
#    of mcpv's CPU per call, then their medians.
# 2. --find-max against a fake of known capacity (4 calls at once of
#    20 ms: 200/s), the test that holds it to within 10%, with its curve.
# 3. --find-max against the everything server itself (p99<50ms), steps of
#    2 s: where this machine's breaking point lies, for the record.
#
# The machine's load average is printed before and after: on a shared
# machine trust the ratios of a round, not the absolute rates.
set -euo pipefail
rounds=${1:-5} secs=${2:-10}
cd "$(dirname "$0")/../.."
die() {
	printf 'load-round2.sh: %s\n' "$*" >&2
	exit 1
}
. scripts/lib/http-server.sh
tmp=$(mktemp -d)
trap 'http_server_stop; rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/mcpv" . # as mcpv's releases are built
(cd scripts/bench/everything-http && go build -o "$tmp/everything" .)
http_server "$tmp" "$tmp/everything" || die "no server"
url=$server_url/

run() { # ARG: prints "RATE CPU-PER-CALL-US ERRORS"
	"$tmp/mcpv" load call greet "$1" -c 16 -d "${secs}s" -u "$url" --protocol-era legacy --format json -r \
		-q '"\(.throughput) \(.cpu.per_iteration_us) \(.errors)"'
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A rate cpu
names=(same template)
for ((r = 0; r < rounds; r++)); do
	for ((i = 0; i < 2; i++)); do
		n=${names[$(((i + r) % 2))]}
		case $n in
		same) out=$(run name=x) ;;
		template) out=$(run 'name~="x-\(.iteration)"') ;;
		esac
		read -r v c e <<<"$out"
		rate[$n,$r]=$v cpu[$n,$r]=$c
		printf 'round %d %-9s %8.0f/s  %5.0f µs a call  errors %s\n' "$((r + 1))" "$n" "$v" "$c" "$e" >&2
	done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ratios() { local -n m=$1; local r; for ((r = 0; r < rounds; r++)); do awk -v a="${m[template,$r]}" -v b="${m[same,$r]}" 'BEGIN {printf "%.3f\n", a / b}'; done; }
echo
echo "| -c 16, ${secs} s, $rounds interleaved rounds | median | per round |"
echo "| --- | --- | --- |"
printf '| rate, same argument (calls/s) | %.0f | %s |\n' "$(median $(for ((r = 0; r < rounds; r++)); do echo "${rate[same,$r]}"; done))" "$(for ((r = 0; r < rounds; r++)); do printf '%.0f ' "${rate[same,$r]}"; done)"
printf '| rate, a template each iteration (calls/s) | %.0f | %s |\n' "$(median $(for ((r = 0; r < rounds; r++)); do echo "${rate[template,$r]}"; done))" "$(for ((r = 0; r < rounds; r++)); do printf '%.0f ' "${rate[template,$r]}"; done)"
printf '| rate with a template / without | %s | %s |\n' "$(median $(ratios rate))" "$(ratios rate | tr '\n' ' ')"
printf '| mcpv CPU a call with a template / without | %s | %s |\n' "$(median $(ratios cpu))" "$(ratios cpu | tr '\n' ' ')"

echo
echo "== --find-max against a fake of known capacity (200/s)"
go test -tags e2e -count=1 -run '^TestLoadFindMaxAgainstAKnownCapacity$' -v ./commands | grep -E 'found|PASS|FAIL|ok'

echo
echo "== --find-max against the everything server: p99<50ms, errors<1%, steps of 2 s"
"$tmp/mcpv" load call greet name=x --find-max 'p99<50ms,errors<1%' --rate 100 -d 2s -u "$url" --protocol-era legacy | sed -n '1,/^the highest/p'
