#!/usr/bin/env bash
# Servers that start 6 s, 30 s and 90 s late, over stdio and HTTP, in both
# protocol eras: each must give the outcome it gives when it starts at once
# (e2e TestSlowStartingServers; go test alone runs only the 6 s cases).
# About two minutes: every case runs at once.
set -euo pipefail
cd "$(dirname "$0")/../e2e"
MCPV_SLOW_START=all go test -tags e2e -run '^TestSlowStartingServers$' -count=1 -parallel 64 -timeout 10m .
