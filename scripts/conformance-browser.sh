#!/usr/bin/env bash
# The "browser" of the conformance runs: mcpv opens the authorization URL with
# $BROWSER, and this follows the authorization server's redirect to mcpv's
# loopback listener, as a user's browser would after the user agreed.
set -euo pipefail
exec node -e '
fetch(process.argv[1], {redirect: "follow"})
  .then(r => r.text())
  .then(() => process.exit(0), e => { console.error("browser:", e.message); process.exit(1); });
' "$1"
