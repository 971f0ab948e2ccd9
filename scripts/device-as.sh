#!/usr/bin/env bash
# Builds the authorization server of the device login's end-to-end test
# (e2e TestDeviceLoginAgainstZitadel): zitadel/oidc's example OpenID
# Provider (github.com/zitadel/oidc/v3, its pkg/op provider with the
# in-memory storage, user and login pages of its example/server), with a
# client allowed the device authorization grant (RFC 8628), from the Go
# module proxy; then runs the test against it.
#
#   bash scripts/device-as.sh           # build (once) and run the test
#   bash scripts/device-as.sh --build   # build (once) and print the path
#   MCPV_DEVICE_AS=$(bash scripts/device-as.sh --build) \
#     go test -tags e2e -run TestDeviceLoginAgainstZitadel ./e2e
#
# scripts/device-as is a module of its own (its go.mod pins the version,
# its go.sum the dependencies' sums); its main.go only registers the
# device client and listens on loopback (the example's own main registers
# no device client and listens on every interface). It is built into a
# cache outside the repository ($XDG_CACHE_HOME/mcpv/device-as, default
# ~/.cache/mcpv/device-as), keyed by the version and the content of the
# module's files: later runs start at once. Remove the cache directory to
# build again.
set -euo pipefail
cd "$(dirname "$0")/device-as"
command -v go >/dev/null 2>&1 || { echo "device-as.sh: go is required" >&2; exit 2; }
version=$(awk '$1 == "require" && $2 == "github.com/zitadel/oidc/v3" {print $3} $1 == "github.com/zitadel/oidc/v3" {print $2}' go.mod)
key=$(cat go.mod go.sum main.go | sha256sum | cut -c1-12)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/mcpv/device-as/$version-$key
bin=$cache/device-as
if [ ! -x "$bin" ]; then
	echo "device-as.sh: building zitadel/oidc $version's example OpenID Provider into $cache, once" >&2
	start=$SECONDS
	mkdir -p "$cache"
	go build -trimpath -o "$bin.tmp" . >&2 || { rm -f "$bin.tmp"; echo "device-as.sh: the build failed" >&2; exit 1; }
	mv "$bin.tmp" "$bin"
	echo "device-as.sh: built it in $((SECONDS - start))s" >&2
fi
if [ "${1:-}" = --build ]; then
	echo "$bin"
	exit 0
fi
cd ../..
MCPV_DEVICE_AS=$bin go test -tags e2e -race -count=1 -run '^TestDeviceLoginAgainstZitadel$' ./e2e
