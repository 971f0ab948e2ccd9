#!/usr/bin/env bash
# Tokens in a real Secret Service: gnome-keyring on a private session bus
# (dbus-run-session), its login keyring made and unlocked with a password
# on stdin, then e2e's TestTokensInTheSecretService against it: a login
# whose secrets secret-tool finds in the keyring and not in the token
# file, a call and a refresh with them, auth status and logout; an item
# another program wrote, a huge one, another local user on the bus, the
# keyring locked and the bus gone. The keyrings live in a directory of
# the run's own, never the user's. About 30 s.
#
# Needs gnome-keyring, dbus, secret-tool and curl (Debian: gnome-keyring
# dbus libsecret-tools curl); as root with apt-get it installs them,
# otherwise it says so and fails.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --on-the-bus ]; then
  # Inside dbus-run-session: the daemon unlocks (making it the first
  # time) the login keyring with the password on stdin, then the test.
  printf '%s' "mcpv-keychain-test" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
  printf 'probe' | secret-tool store --label='mcpv probe' service mcpv-probe username probe
  [ "$(secret-tool lookup service mcpv-probe username probe)" = probe ] ||
    { echo "scripts/keychain.sh: the Secret Service does not keep an item" >&2; exit 1; }
  secret-tool clear service mcpv-probe username probe
  echo "== the Secret Service answers on $DBUS_SESSION_BUS_ADDRESS"
  MCPV_SECRET_SERVICE=1 go test -tags e2e -count=1 -v -run '^TestTokensInTheSecretService$' ./e2e
  exit
fi

if ! command -v gnome-keyring-daemon >/dev/null || ! command -v dbus-run-session >/dev/null ||
  ! command -v secret-tool >/dev/null || ! command -v curl >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing gnome-keyring, dbus, secret-tool and curl from Debian's packages"
    pkgs="gnome-keyring dbus libsecret-tools curl"
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $pkgs; }; } >/dev/null 2>&1 || true
  fi
fi
for tool in gnome-keyring-daemon dbus-run-session secret-tool curl; do
  command -v "$tool" >/dev/null || { echo "scripts/keychain.sh: $tool is missing (Debian: apt-get install gnome-keyring dbus libsecret-tools curl)" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -m 700 "$work/data" "$work/run"
# The keyrings (XDG_DATA_HOME) and the daemon's sockets (XDG_RUNTIME_DIR)
# in the run's directory: the bus starts the daemon with its environment.
# dbus-run-session ends the bus, and the daemon with it, when the test is done.
XDG_DATA_HOME="$work/data" XDG_RUNTIME_DIR="$work/run" dbus-run-session -- bash "$0" --on-the-bus
