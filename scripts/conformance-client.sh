#!/usr/bin/env bash
# The client the MCP conformance suite drives: for each scenario it runs the
# mcpv command a user would type. The suite appends the server URL as the last
# argument and names the scenario in MCP_CONFORMANCE_SCENARIO. MCPV_BIN is the
# mcpv to run (scripts/conformance.sh sets it).
set -euo pipefail
mcpv=${MCPV_BIN:-mcpv}
url=${!#}
scenario=${MCP_CONFORMANCE_SCENARIO:?MCP_CONFORMANCE_SCENARIO is not set}

case $scenario in
initialize) exec "$mcpv" -u "$url" info ;;
tools_call) exec "$mcpv" -u "$url" call add_numbers a:=2 b:=3 ;;
sse-retry) exec "$mcpv" -u "$url" call test_reconnection ;;
elicitation-sep1034-client-defaults) exec "$mcpv" -u "$url" --elicitation accept call test_client_elicitation_defaults ;;
auth/scope-step-up)
	"$mcpv" -u "$url" list-tools
	exec "$mcpv" -u "$url" call test-tool
	;;
auth/*) exec "$mcpv" -u "$url" list-tools ;;
*)
	echo "conformance-client: no mcpv command for scenario $scenario" >&2
	exit 2
	;;
esac
