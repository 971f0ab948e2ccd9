#!/usr/bin/env bash
# A real browser uses mcpv serve --http (e2e TestBrowserPages): headless
# Chromium opens one page from three origins. From a loopback origin and
# from one --allow-origin names, the page lists and calls the tools with
# fetch, over Streamable HTTP and over --sse's HTTP+SSE (an EventSource);
# from a foreign origin the browser itself refuses it both. mcpv app
# --open opens its host page in it (e2e TestAppHostPage...): an MCP App
# from a fixture server renders, gets its tool's result, calls a tool back,
# reaches nothing of the host's, and ends, or is ended by Ctrl-C; an app
# that tries WebRTC and every way to a frame of its own content finds
# none (e2e TestAppSandboxCloses). And the
# page of mcpv load --report, opened from a file, draws its charts from
# the run's data (e2e TestLoadReportInABrowser). About a minute.
#
# Needs Chromium (Debian: chromium); as root with apt-get it installs it,
# otherwise it says so and fails. MCPV_BROWSER may name another Chromium
# or Chrome.
set -euo pipefail
cd "$(dirname "$0")/.."

browser=${MCPV_BROWSER:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$browser" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing Chromium from Debian's packages"
  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium ||
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }; } >/dev/null 2>&1 || true
  browser=$(command -v chromium || true)
fi
if [ -z "$browser" ]; then
  echo "scripts/browser.sh: no Chromium: install Debian's chromium package, or name one in MCPV_BROWSER" >&2
  exit 1
fi
echo "== $("$browser" --version 2>/dev/null || echo "$browser")"
cd e2e
MCPV_BROWSER=$browser go test -tags e2e -race -run '^(TestBrowserPages|TestAppHostPage|TestAppHostPageInterrupted|TestAppHostPageCrowded|TestAppSandboxCloses|TestLoadReportInABrowser)$' -count=1 -timeout 5m .
