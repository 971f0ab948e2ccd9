#!/usr/bin/env bash
# What the extensions cost, as docs/BENCHMARKS.md's "Extensions" section
# gives it:
#
#   bash scripts/bench/extensions.sh [ROUNDS]
#
#   - mcpv app TOOL (the app found, read and checked) beside mcpv read of
#     the same ui:// resource, against the app fixture server
#     (mcptest.AppSpec), paired and interleaved (scripts/bench/paired.sh);
#   - the host page's first render after mcpv app --open: from mcpv's
#     start to the app's ui/notifications/initialized, with $BROWSER a
#     headless Chromium (MCPV_BROWSER, or chromium), and the same
#     Chromium's start to a blank page beside it;
#   - mcpv discover of a catalog of 100 cards on loopback (a Go static
#     file server), beside mcpv --version; and the Go benchmark of the
#     discovery alone (internal/servercard BenchmarkDiscover100).
#
# Prints a line for each; writes nothing in the repository. Needs go and
# Chromium.
set -euo pipefail
rounds=${1:-41}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
dir=$(mktemp -d "${TMPDIR:-/tmp}/mcpv-ext-bench.XXXXXX")
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
browser=${MCPV_BROWSER:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
export XDG_STATE_HOME=$dir/state

# The fixture server: a test binary of the repository's, which serves
# mcptest.AppSpec(VARIANT) when MCPV_FAKE=app=VARIANT.
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/mcpv" . && go test -c -o "$dir/fixture" ./commands) >&2

# 1. app beside read.
app="$dir/mcpv app show --env MCPV_FAKE=app=valid -- $dir/fixture"
read="$dir/mcpv read ui://fixture/show.html --env MCPV_FAKE=app=valid -- $dir/fixture"
echo "mcpv app show (tools/list, resources/read, the checks) as A, mcpv read of its resource as B, stdio:"
bash "$repo/scripts/bench/paired.sh" "$rounds" "$app" "$read" | tail -1

# 2. The first render after --open.
if [ -n "$browser" ]; then
	script=$dir/browser.sh
	cat >"$script" <<EOS
#!/bin/sh
echo \$\$ >"$dir/browser.pid"
exec setsid "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --no-default-browser-check \
	--disable-extensions --disable-background-networking --no-proxy-server --user-data-dir="$dir/profile" "\$1" >/dev/null 2>&1
EOS
	chmod +x "$script"
	renders=()
	blanks=()
	for i in $(seq 7); do
		rm -rf "$dir/profile"
		t0=${EPOCHREALTIME//[!0-9]/}
		coproc APP { BROWSER=$script exec "$dir/mcpv" app show --open --env MCPV_FAKE=app=stay -- "$dir/fixture" 2>/dev/null; }
		while IFS= read -r line <&"${APP[0]}"; do
			case $line in *'"ui/notifications/initialized"'*) break ;; esac
		done
		t1=${EPOCHREALTIME//[!0-9]/}
		kill -INT "$APP_PID" 2>/dev/null || true
		wait "$APP_PID" 2>/dev/null || true
		kill -KILL -"$(cat "$dir/browser.pid")" 2>/dev/null || true
		renders+=($(((10#$t1 - 10#$t0) / 1000)))
		rm -rf "$dir/profile"
		t0=${EPOCHREALTIME//[!0-9]/}
		"$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --user-data-dir="$dir/profile" --dump-dom about:blank >/dev/null 2>&1
		t1=${EPOCHREALTIME//[!0-9]/}
		blanks+=($(((10#$t1 - 10#$t0) / 1000)))
	done
	med() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
	echo "mcpv app show --open, from mcpv's start to the app's ui/notifications/initialized in headless Chromium, median of 7: $(med "${renders[@]}") ms (runs: ${renders[*]})"
	echo "the same Chromium alone, from its start to a blank page dumped, median of 7: $(med "${blanks[@]}") ms (runs: ${blanks[*]})"
fi

# 3. discover of 100 cards.
mkdir -p "$dir/site/.well-known" "$dir/site/cards"
{
	printf '{"specVersion":"1.0","entries":['
	for i in $(seq 100); do
		[ "$i" -gt 1 ] && printf ','
		printf '{"identifier":"urn:air:127.0.0.1:mcp:s%d","type":"application/mcp-server-card+json","url":"/cards/%d.json"}' "$i" "$i"
		printf '{"$schema":"https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json","name":"local.bench/server-%d","version":"1.0.%d","description":"Server number %d.","remotes":[{"type":"streamable-http","url":"https://example.com/%d/mcp","supportedProtocolVersions":["2025-11-25"]}]}' "$i" "$i" "$i" "$i" >"$dir/site/cards/$i.json"
	done
	printf ']}'
} >"$dir/site/.well-known/ai-catalog.json"
# A static file server of Go's own, outside the repository, so that the
# server's own speed is not what is measured.
mkdir -p "$dir/files"
cat >"$dir/files/main.go" <<'EOS'
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Println(l.Addr())
	http.Serve(l, http.FileServer(http.Dir(os.Args[1])))
}
EOS
printf 'module files\n\ngo 1.26\n' >"$dir/files/go.mod"
(cd "$dir/files" && go build -o "$dir/files/files" .) >&2
coproc FILES { exec "$dir/files/files" "$dir/site"; }
read -r addr <&"${FILES[0]}"
echo "mcpv discover $addr: a catalog of 100 cards (a Go static file server) as A, mcpv --version as B:"
bash "$repo/scripts/bench/paired.sh" "$rounds" "$dir/mcpv discover $addr" "$dir/mcpv --version" | tail -1
(cd "$repo" && go test -run '^$' -bench 'BenchmarkDiscover100' -benchmem -count 5 ./internal/servercard) | awk '/^Benchmark/ {print "    " $0}'
