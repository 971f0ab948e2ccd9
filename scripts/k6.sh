#!/usr/bin/env bash
# Builds a k6 binary with the k6/x/mcp extension (k6/xk6-mcp) and runs its
# example script against the demo server over Streamable HTTP.
#
#   bash scripts/k6.sh                 # build (once) and run examples/echo.js
#   bash scripts/k6.sh --build-only    # print the k6 binary's path
#   bash scripts/k6.sh SCRIPT [ARGS]   # run another script (MCP_URL is set)
#
# k6 is built with k6's extension builder, xk6, both from the Go module
# proxy, into a cache outside the repository ($XDG_CACHE_HOME/mcpv/k6,
# default ~/.cache/mcpv/k6), keyed by the versions and by the content of
# the Go sources the extension compiles: later runs start at once. The
# first build takes minutes: xk6 in about 1 minute, then k6 with the
# extension in about 6 minutes of CPU on a two-core machine with the
# modules downloaded (see the time printed). Remove the cache directory
# to build again.
#
# Exit status: k6's (0 when its checks and thresholds passed), 2 when a
# tool is missing, 1 when the build fails.
set -euo pipefail

xk6_version=v0.20.1
k6_version=v1.8.1

die() {
	printf 'k6.sh: %s\n' "$*" >&2
	exit "${2:-1}"
}
command -v go >/dev/null 2>&1 || die "go is required but was not found in PATH" 2
if command -v sha256sum >/dev/null 2>&1; then
	sha256=(sha256sum)
else
	sha256=(shasum -a 256)
fi

cd "$(dirname "$0")/.."
root=$PWD
cache=${XDG_CACHE_HOME:-$HOME/.cache}/mcpv/k6
mkdir -p "$cache"

# xk6, once by version. It is built in a module of its own rather than
# with go install, which asks the proxy for the list of xk6's versions;
# one of its dependencies is not in the checksum database, so that one
# alone is taken as the proxy serves it.
xk6=$cache/xk6-$xk6_version/xk6
if [ ! -x "$xk6" ]; then
	echo "k6.sh: building xk6 $xk6_version into $(dirname "$xk6"), once" >&2
	start=$SECONDS
	work=$(mktemp -d "$cache/.xk6.XXXXXX")
	(
		cd "$work"
		printf 'module xk6build\n\ngo 1.26\n' >go.mod
		export GOFLAGS=-mod=mod GONOSUMDB=github.com/szkiba
		go get "go.k6.io/xk6@$xk6_version" && go build -o xk6 go.k6.io/xk6/cmd/xk6
	) >&2 || { rm -rf "$work"; die "could not build xk6 $xk6_version"; }
	mkdir -p "$(dirname "$xk6")"
	mv "$work/xk6" "$xk6"
	rm -rf "$work"
	echo "k6.sh: built xk6 in $((SECONDS - start))s" >&2
fi

# k6 with the extension, once per version and content of what it compiles.
key=$( (echo "$xk6_version $k6_version $(go version)"; git ls-files -z -- '*.go' go.mod go.sum k6/xk6-mcp | grep -zv '_test.go$' | xargs -0 cat) | "${sha256[@]}" | cut -c1-16)
k6=$cache/k6-$k6_version-$key/k6
if [ ! -x "$k6" ]; then
	echo "k6.sh: building k6 $k6_version with k6/x/mcp into $(dirname "$k6"): this takes minutes" >&2
	start=$SECONDS
	mkdir -p "$(dirname "$k6")"
	"$xk6" build "$k6_version" --with "github.com/mcpv/mcpv/k6/xk6-mcp=$root/k6/xk6-mcp" \
		--replace "github.com/mcpv/mcpv=$root" --output "$k6.partial" >&2 ||
		{ rm -f "$k6.partial"; die "could not build k6"; }
	mv "$k6.partial" "$k6"
	echo "k6.sh: built k6 in $((SECONDS - start))s" >&2
fi
if [ "${1:-}" = --build-only ]; then
	echo "$k6"
	exit 0
fi

script=${1:-k6/xk6-mcp/examples/echo.js}
[ $# -gt 0 ] && shift

# The demo server over HTTP on a free loopback port, stopped at the end.
. scripts/lib/http-server.sh
tmp=$(mktemp -d)
trap 'http_server_stop; rm -rf "$tmp"' EXIT
go build -o "$tmp/demo-server" ./examples/demo-server
http_server "$tmp" "$tmp/demo-server" || die "no demo server"

MCP_URL=$server_url/mcp "$k6" run --quiet "$@" "$script"
