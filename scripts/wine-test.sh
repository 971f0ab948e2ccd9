#!/usr/bin/env bash
# Runs mcpv's Windows build under wine: every package's test binary, then
# end-to-end checks of the Windows-only behaviour (a .cmd server in a
# directory with a space receives its arguments and environment intact; the
# Job Object ends the server's whole tree when mcpv exits).
#
# Wine is not Windows. What it cannot show is listed in wine-known.txt beside
# this script, one test per line with the reason; those tests are run and
# reported, and fail this script only if they start passing (the list is
# then out of date). Anything else that fails, fails the script.
#
# Needs wine64, the MinGW-w64 C compiler and jq (Debian: wine wine64
# gcc-mingw-w64-x86-64 jq); as root with apt-get it installs them, otherwise
# it says what is missing and exits 0 without running anything.
#
#   scripts/wine-test.sh            all packages, then the end-to-end checks
#   scripts/wine-test.sh ./internal/oauth/   one package, then the end-to-end checks
#   scripts/wine-test.sh --e2e      the end-to-end checks alone (what .ci/run runs)
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

need() { command -v wine >/dev/null && command -v x86_64-w64-mingw32-gcc >/dev/null && command -v jq >/dev/null; }
if ! need; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "== installing wine and MinGW-w64 from Debian's packages"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wine wine64 gcc-mingw-w64-x86-64 jq) >/dev/null 2>&1
  fi
fi
if ! need; then
  echo "wine-test: skipped: wine, x86_64-w64-mingw32-gcc and jq are needed (Debian: apt-get install wine wine64 gcc-mingw-w64-x86-64 jq)"
  exit 0
fi

work=$(mktemp -d /tmp/mcpv-wine.XXXXXX)
trap 'wineserver -k >/dev/null 2>&1; rm -rf "$work"' EXIT
export WINEPREFIX=$work/prefix WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
echo "== wine $(wine --version) in $WINEPREFIX"
wineboot -i >/dev/null 2>&1

# Go's runtime needs ProcessPrng from bcryptprimitives.dll, which wine 8
# lacks: build a stand-in and put it where the runtime looks (system32).
x86_64-w64-mingw32-gcc -O2 -shared -Wl,--kill-at -o "$work/bcryptprimitives.dll" scripts/wine/bcryptprimitives.c -ladvapi32 || exit 1
cp "$work/bcryptprimitives.dll" "$WINEPREFIX/drive_c/windows/system32/"

known=$repo/scripts/wine/wine-known.txt
is_known() { grep -q "^$1 $2 " "$known"; } # is_known PACKAGE TEST

failed=0
pass=0 fail=0 kfail=0 skip=0 xpass=0
go build -C scripts/wintest -o "$work/wintest" . || exit 1
pkgs=("$@")
e2e_only=false filter=.
if [ "${1:-}" = --e2e ]; then # and the stdio transport's and broken-pipe tests
  e2e_only=true pkgs=(./mcp ./internal/errkind) filter='^(TestPortable|TestBrokenPipe|TestRefused|TestBatch|TestPrepareCommand|TestStartCommand)'
fi
# The packages with tests that build for Windows (e2e is Unix-only).
[ ${#pkgs[@]} -eq 0 ] && ! $e2e_only && mapfile -t pkgs < <(GOOS=windows go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./...)
for pkg in "${pkgs[@]}"; do
  dir=$(go list -f '{{.Dir}}' "$pkg") || { failed=1; continue; }
  name=$(go list -f '{{.ImportPath}}' "$pkg")
  exe=$work/$(echo "$name" | tr / _).test.exe
  if ! GOOS=windows GOARCH=amd64 go test -tags e2e -c -o "$exe" "$pkg" >"$work/build.log" 2>&1; then
    echo "FAIL $name: the Windows test binary does not build"; cat "$work/build.log"; failed=1; continue
  fi
  [ -f "$exe" ] || continue # no tests
  log=$work/$(basename "$exe").log
  (cd "$dir" && timeout 900 wine "$exe" -test.v=test2json -test.timeout 10m -test.run "$filter" >"$log" 2>&1)
  rc=$?
  while read -r result test; do
    if [ "$result" = start ]; then # wine could not start a process: once more, alone
      (cd "$dir" && timeout 300 wine "$exe" -test.v=test2json -test.timeout 4m -test.run "^$test\$" >"$log.again" 2>&1)
      again=$(go tool test2json -t -p "$name" <"$log.again" | "$work/wintest" summary | awk -v t="$test" '$2 == t { print $1; exit }')
      case $again in
        pass|cleanup) echo "wine could not start a process in $name $test; run again alone, it passed"; result=pass ;;
        *)
          echo "FAIL $name $test (wine could not start a process; run again alone, it failed again:)"
          go tool test2json -t -p "$name" <"$log.again" | "$work/wintest" summary | sed -n 's/^said [^ ]* /     /p'
          fail=$((fail + 1)) failed=1
          continue ;;
      esac
    fi
    case $result in
      pass)
        if is_known "$name" "$test"; then echo "XPASS $name $test: listed in $known but passes"; xpass=$((xpass + 1)); failed=1
        else pass=$((pass + 1)); fi ;;
      skip) skip=$((skip + 1)) ;;
      said) is_known "$name" "${test%% *}" || echo "     ${test#* }" ;;
      cleanup) kfail=$((kfail + 1)) ;;
      fail)
        if is_known "$name" "$test"; then kfail=$((kfail + 1))
        else echo "FAIL $name $test"; fail=$((fail + 1)); failed=1; fi ;;
    esac
  done < <(go tool test2json -t -p "$name" <"$log" | "$work/wintest" summary)
  if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then
    echo "FAIL $name: the test binary exited $rc:"; tail -20 "$log"; failed=1
  fi
done
echo "== unit tests under wine: $pass passed, $fail failed, $kfail failed as listed in $known or only at wine's temporary-directory cleanup, $skip skipped, $xpass listed but passing"

echo "== end to end"
GOOS=windows GOARCH=amd64 go build -C "$repo" -o "$work/mcpv.exe" . || exit 1
srvdir="$work/Program Files/proc server"
mkdir -p "$srvdir"
GOOS=windows GOARCH=amd64 go build -C "$repo/scripts/wintest" -o "$srvdir/procserver.exe" . || exit 1
printf '@"%%~dp0procserver.exe" %%*\r\n' >"$srvdir/procserver.cmd"
cd "$work" # what a shell that went wrong writes lands here, not in the repository
winpath() { echo "Z:${1//\//\\}"; }
check() { # check NAME COMMAND...: runs, reports ok/FAIL
  local what=$1; shift
  if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failed=1; return 1; fi
}

check "mcpv.exe --version" wine "$work/mcpv.exe" --version

# A config server, started through a .cmd shim under a path with spaces,
# gets its arguments literally and the environment Windows programs need,
# and nothing else of mcpv's. A % in an argument arrives literally on
# Windows; wine's cmd expands a batch file's %* a second time, so the last
# two arguments are reported apart. (The server here is a Go program, whose
# argument parser reads "" inside quotes the way the C runtime did before
# 2008, so an argument with a quote next to a backslash is left to the unit
# tests, which parse as node and Python do.)
args='["a&b", "x|y", "<in>", "c^d", "has space", "say \"hi\"", "(p)", "trail\\", "", "!USERNAME!", "%OS%", "50%"]'
cat >"$work/servers.json" <<EOF
{"mcpServers": {"proc": {"command": $(printf '%s' "$(winpath "$srvdir/procserver.cmd")" | jq -Rs .), "args": $args, "env": {"FROM_CONFIG": "yes"}}}}
EOF
out=$(MCPV_SECRET_FOR_TEST=x wine "$work/mcpv.exe" --config "$(winpath "$work/servers.json")" --server proc call argv 2>"$work/argv.err")
got=$(printf '%s' "$out" | jq -c '.structuredContent.args[:-2]' 2>/dev/null)
want=$(printf '%s' "$args" | jq -c '.[:-2]')
check "a .cmd server under 'Program Files' gets its arguments intact: $want" test "$got" = "$want" || { echo "     got: $got"; cat "$work/argv.err"; }
got=$(printf '%s' "$out" | jq -c '.structuredContent.args[-2:]' 2>/dev/null)
if [ "$got" = '["%OS%","50%"]' ]; then echo "ok   ... and %OS% and 50% too"
else echo "wine %OS% and 50% arrive as $got: wine's cmd expands a batch file's %* again, Windows does not (wine-known)"; fi
envnames=$(printf '%s' "$out" | jq -r '.structuredContent.env[] | split("=")[0] | ascii_upcase' 2>/dev/null | sort -u)
for v in FROM_CONFIG PATH SYSTEMROOT APPDATA LOCALAPPDATA USERPROFILE TEMP TMP PATHEXT COMSPEC; do
  check "the config server's environment has $v" grep -qx "$v" <<<"$envnames"
done
check "the config server's environment has nothing else of mcpv's (MCPV_SECRET_FOR_TEST)" test -z "$(grep -x MCPV_SECRET_FOR_TEST <<<"$envnames")"

# The Job Object: a grandchild the server started ends when mcpv exits.
beat=$work/heartbeat
wine "$work/mcpv.exe" call spawn file="$(winpath "$beat")" -- "$(winpath "$srvdir/procserver.exe")" >"$work/spawn.out" 2>&1
sleep 1
first=$(cat "$beat" 2>/dev/null)
sleep 1
second=$(cat "$beat" 2>/dev/null)
check "the server's child started (heartbeat written)" test -n "$first" || cat "$work/spawn.out"
check "the server's child ended with mcpv (heartbeat stopped)" test "$first" = "$second"

if [ $failed -ne 0 ]; then
  echo "wine-test: FAILED"
  exit 1
fi
echo "wine-test: passed"
