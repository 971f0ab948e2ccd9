#!/usr/bin/env bash
# Builds Jaeger v2 (an OpenTelemetry Collector with Jaeger's storage and
# query API) from the Go module proxy, for the end-to-end test that finds
# mcpv's spans in a real collector (e2e TestSpansInJaeger), and prints the
# binary's path.
#
#   bash scripts/jaeger.sh              # build (once) and print the path
#   MCPV_JAEGER=$(bash scripts/jaeger.sh) go test -run TestSpansInJaeger ./e2e
#
# Jaeger is a module of its own (scripts/jaeger/go.mod, its version pinned
# there with its dependencies' sums), built into a cache outside the
# repository ($XDG_CACHE_HOME/mcpv/jaeger, default ~/.cache/mcpv/jaeger),
# keyed by the version and the content of go.sum: later runs start at
# once. The first build downloads and compiles several hundred modules:
# 6 minutes of CPU on a two-core machine (24 minutes of wall time at a
# load of 24 with the modules downloaded as it went; 33 s with Go's build
# cache warm). Remove the cache directory to build again.
set -euo pipefail
cd "$(dirname "$0")/jaeger"
command -v go >/dev/null 2>&1 || { echo "jaeger.sh: go is required" >&2; exit 2; }
version=$(awk '$1 == "github.com/jaegertracing/jaeger" {print $2}' go.mod)
key=$(cat go.mod go.sum | sha256sum | cut -c1-12)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/mcpv/jaeger/$version-$key
bin=$cache/jaeger
if [ ! -x "$bin" ]; then
	echo "jaeger.sh: building Jaeger $version into $cache, once" >&2
	start=$SECONDS
	mkdir -p "$cache"
	go build -trimpath -o "$bin.tmp" github.com/jaegertracing/jaeger/cmd/jaeger >&2 || { rm -f "$bin.tmp"; echo "jaeger.sh: the build failed" >&2; exit 1; }
	mv "$bin.tmp" "$bin"
	echo "jaeger.sh: built Jaeger in $((SECONDS - start))s" >&2
fi
echo "$bin"
