#!/usr/bin/env bash
# The client the MCP conformance suite drives: for each scenario it runs the
# mcpv command a user would type. The suite appends the server URL as the last
# argument, names the scenario in MCP_CONFORMANCE_SCENARIO and, for some
# authorization scenarios, passes credentials in MCP_CONFORMANCE_CONTEXT
# (JSON). MCPV_BIN is the mcpv to run (scripts/conformance.sh sets it).
#
# Authorization runs mcpv's real flow: --auth auto with $BROWSER set to
# conformance-browser.sh, which follows the authorization server's redirect
# to mcpv's loopback listener. Each run gets an empty token store.
set -euo pipefail
mcpv=${MCPV_BIN:-mcpv}
here=$(cd "$(dirname "$0")" && pwd)
url=${!#}
scenario=${MCP_CONFORMANCE_SCENARIO:?MCP_CONFORMANCE_SCENARIO is not set}

state=$(mktemp -d "${TMPDIR:-/tmp}/mcpv-conformance-state.XXXXXX")
trap 'rm -rf "$state"' EXIT
export XDG_STATE_HOME=$state BROWSER=$here/conformance-browser.sh

# context KEY: a string member of MCP_CONFORMANCE_CONTEXT, or "".
context() {
	node -e 'const c = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || "{}"); process.stdout.write(String(c[process.argv[1]] ?? ""))' "$1"
}

auth=(--auth auto --client-metadata-url https://conformance-test.local/client-metadata.json)
if [ -n "${MCP_CONFORMANCE_CONTEXT:-}" ]; then
	id=$(context client_id)
	[ -z "$id" ] || auth+=(--client-id "$id")
	secret=$(context client_secret)
	if [ -n "$secret" ]; then
		printf '%s' "$secret" >"$state/secret"
		auth+=(--client-secret "@$state/secret")
	fi
	idp=$(context idp_token_endpoint)
	if [ -n "$idp" ]; then
		context idp_id_token >"$state/id-token"
		auth+=(--grant cross-app --idp-token-endpoint "$idp" --idp-client-id "$(context idp_client_id)" --id-token "@$state/id-token")
	fi
	jwt=$(context valid_jwt) # a workload's own JWT, for the jwt-bearer grant
	if [ -n "$jwt" ]; then
		printf '%s' "$jwt" >"$state/workload.jwt"
		auth+=(--grant jwt-bearer --assertion "@$state/workload.jwt")
	fi
	key=$(context private_key_pem)
	if [ -n "$key" ]; then
		printf '%s\n' "$key" >"$state/key.pem"
		auth+=(--client-key "$state/key.pem")
	fi
fi

# The suite names the protocol version of the run; the modern era is pinned
# for 2026-07-28, as a user who knows the server would.
era=()
if [ "${MCP_CONFORMANCE_PROTOCOL_VERSION:-}" = 2026-07-28 ]; then era=(--protocol-version 2026-07-28); fi
mcpv() { "$MCPV" "${era[@]}" "$@"; }
MCPV=$mcpv

case $scenario in
initialize) mcpv -u "$url" info ;;
tools_call) mcpv -u "$url" call add_numbers a:=2 b:=3 ;;
request-metadata) mcpv -u "$url" ping ;; # the server declares no capabilities: server/discover alone
sep-2322-client-request-state)
	printf '%s\n' 'call test_mrtr_echo_state' 'call test_mrtr_unrelated' 'call test_mrtr_no_state' 'call test_mrtr_no_result_type' |
		mcpv -u "$url" --elicitation accept --answer confirmed=true batch ;;
http-standard-headers)
	printf '%s\n' list-tools 'call test_headers' list-resources 'read file:///path/to/file%20name.txt' \
		'read https://example.com/resource?id=123' list-prompts 'get-prompt test_prompt' |
		mcpv -u "$url" batch --keep-going ;;
http-custom-headers)
	# The calls the suite asks for, in its context, as batch lines.
	node -e 'for (const c of JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT).toolCalls)
		console.log("call " + c.name + " --no-validate --args \x27" + JSON.stringify(c.arguments).replaceAll("\x27", "\x27\\\x27\x27") + "\x27")' |
		mcpv -u "$url" batch ;;
http-invalid-tool-headers)
	# Each tool the server lists called alone, as a script would (no
	# arguments, --no-validate): one whose x-mcp-header marks are invalid
	# must be refused, exit 3, with nothing sent; the valid one is called.
	mcpv -u "$url" list-tools -r -q '.tools[].name' | while IFS= read -r tool; do
		[ "$tool" != valid_tool ] || continue
		code=0
		mcpv -u "$url" call "$tool" --no-validate >/dev/null || code=$?
		[ "$code" = 3 ] || { echo "conformance-client: call $tool: exit $code, want 3 (refused, nothing sent)" >&2; exit 1; }
	done
	mcpv -u "$url" call valid_tool region=us-west1 ;;
json-schema-ref-no-deref) mcpv -u "$url" list-tools ;;
json-schema-2020-12-preservation)
	schema=$(mcpv -u "$url" list-tools json_schema_2020_12_tool -c -q .inputSchema)
	mcpv -u "$url" call json_schema_echo --args "{\"schema\":$schema}" ;;
sse-retry) mcpv -u "$url" call test_reconnection ;;
sep-2640-client-no-prefetch) mcpv -u "$url" skills list ;;
sep-2640-client-verify-*) mcpv -u "$url" skills pull pdf-processing "$state" ;; # refused: the skill is tampered with
elicitation-sep1034-client-defaults) mcpv -u "$url" --elicitation accept call test_client_elicitation_defaults ;;
auth/scope-step-up) mcpv "${auth[@]}" -u "$url" call test-tool ;;
auth/client-credentials-*) mcpv "${auth[@]}" --grant client-credentials -u "$url" list-tools ;;
auth/cross-app-access-* | auth/enterprise-managed-*) mcpv "${auth[@]}" -u "$url" list-tools ;;
auth/*) mcpv "${auth[@]}" -u "$url" list-tools ;;
*)
	echo "conformance-client: no mcpv command for scenario $scenario" >&2
	exit 2
	;;
esac
