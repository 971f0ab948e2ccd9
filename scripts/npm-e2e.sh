#!/usr/bin/env bash
# The npm packages end to end (e2e TestNpm*): packs this machine's
# platform package and the launcher (scripts/npm-pack.sh --host, the
# binary built as a release's), installs both from their tarballs into an
# empty prefix with npm's own client, offline, then runs the tests against
# the installed mcpv: --version through npx, a call to the demo server,
# exit codes, and the signals through the launcher.
#
#   bash scripts/npm-e2e.sh                 # pack, install, run the tests
#   bash scripts/npm-e2e.sh --install DIR   # pack and install into DIR/prefix, print that path
#   MCPV_NPM_PREFIX=$(bash scripts/npm-e2e.sh --install DIR) \
#     go test -tags e2e -run '^TestNpm' ./e2e
#
# Needs go, node and npm. Exit status: 0 all good, 1 a step failed, 2 a
# missing tool.
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in go node npm; do
	command -v "$tool" >/dev/null 2>&1 || { echo "npm-e2e: $tool is required but was not found in PATH" >&2; exit 2; }
done

install_only=
if [ "${1-}" = --install ]; then
	[ -n "${2-}" ] || { echo "npm-e2e: --install wants a directory" >&2; exit 2; }
	install_only=1 dir=$2
	mkdir -p "$dir"
else
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
fi
dir=$(cd "$dir" && pwd)

mapfile -t tarballs < <(bash scripts/npm-pack.sh --version 0.0.0-npm-e2e --host --out "$dir/tarballs")
mkdir -p "$dir/prefix"
# Offline: what npm needs is in the tarballs; the other platforms'
# packages, optional and for other systems, are left out.
npm install --prefix "$dir/prefix" --offline --no-audit --no-fund "${tarballs[@]}" >&2

if [ -n "$install_only" ]; then
	echo "$dir/prefix"
	exit 0
fi
MCPV_NPM_PREFIX=$dir/prefix go test -tags e2e -count=1 -run '^TestNpm' ./e2e
