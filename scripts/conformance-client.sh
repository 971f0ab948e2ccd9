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
	key=$(context private_key_pem)
	if [ -n "$key" ]; then
		printf '%s\n' "$key" >"$state/key.pem"
		auth+=(--client-key "$state/key.pem")
	fi
fi

case $scenario in
initialize) exec "$mcpv" -u "$url" info ;;
tools_call) exec "$mcpv" -u "$url" call add_numbers a:=2 b:=3 ;;
sse-retry) exec "$mcpv" -u "$url" call test_reconnection ;;
elicitation-sep1034-client-defaults) exec "$mcpv" -u "$url" --elicitation accept call test_client_elicitation_defaults ;;
auth/scope-step-up) "$mcpv" "${auth[@]}" -u "$url" call test-tool ;;
auth/client-credentials-*) "$mcpv" "${auth[@]}" --grant client-credentials -u "$url" list-tools ;;
auth/cross-app-access-*) "$mcpv" "${auth[@]}" -u "$url" list-tools ;;
auth/*) "$mcpv" "${auth[@]}" -u "$url" list-tools ;;
*)
	echo "conformance-client: no mcpv command for scenario $scenario" >&2
	exit 2
	;;
esac
