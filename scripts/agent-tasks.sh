#!/usr/bin/env bash
# An agent's test: twelve tasks an agent does with mcpv, each written only in
# the commands and flags that `mcpv help agent` (the skill) teaches, against
# the npm everything server and a two-server gateway (everything and the
# demo server) behind `mcpv serve`. Before each task runs, every mcpv
# command word and flag of its command line is looked for in the skill's
# text: a task that needs what the skill does not say fails, as an agent
# that knows only the skill would. Each task is checked by its result.
#
#   bash scripts/agent-tasks.sh
#
# The server is pinned in scripts/npm (installed outside the repository, as
# scripts/e2e-everything.sh installs it, in the same directory). Needs go,
# node and npm. About half a minute.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
dir=${MCPV_E2E_DIR:-${TMPDIR:-/tmp}/mcpv-e2e-everything}
mkdir -p "$dir"
# shellcheck source=lib/npm-pinned.sh
. "$repo/scripts/lib/npm-pinned.sh"
npm_pinned "$repo/scripts/npm" "$dir" || { echo "agent-tasks: npm ci failed in $dir" >&2; exit 2; }
entry=$dir/node_modules/@modelcontextprotocol/server-everything/dist/index.js

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcpv-agent.XXXXXX")
cleanup() {
  "$tmp/mcpv" session stop --all >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
(cd "$repo" && go build -o "$tmp/mcpv" . && go build -o "$tmp/demo" ./examples/demo-server)
# A home of its own (after the build, which keeps the user's module cache).
export HOME=$tmp/home XDG_RUNTIME_DIR=$tmp/rt XDG_CONFIG_HOME=$tmp/home/.config
mkdir -p "$HOME/.config/mcpv" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
export PATH=$tmp:$PATH GZIP_ALLOWED_DOMAINS=localhost

# The servers, as a user configures them, and a gateway of both.
printf '{"mcpServers":{"everything":{"command":"node","args":["%s","stdio"]},"demo":{"command":"%s"}}}\n' "$entry" "$tmp/demo" \
  >"$HOME/.config/mcpv/servers.json"
printf 'servers:\n  everything:\n    server: everything\n  demo:\n    server: demo\n' >"$tmp/gateway.serve.yaml"

skill=$(mcpv help agent)
passed=0 failed=0
# task NAME WANT -- COMMAND...: COMMAND's stdout must hold WANT; every mcpv
# command word and flag it uses must be in the skill.
task() {
  local name=$1 want=$2 w unknown="" out rc=0
  shift 3
  for w in "$@"; do
    case $w in
    --) break ;;
    -*) w=${w%%=*} ;;
    *) [[ " list-tools call read list-resources get-prompt complete search cost session start stop " == *" $w "* ]] || continue ;;
    esac
    grep -qE -- "(^|[^[:alnum:]-])$w([^[:alnum:]-]|\$)" <<<"$skill" || unknown="$unknown $w"
  done
  if [ -n "$unknown" ]; then
    failed=$((failed + 1)); echo "FAIL $name: the skill does not teach$unknown"; return
  fi
  out=$("$@" 2>"$tmp/err") || rc=$?
  if [ "$rc" = 0 ] && [[ $out == *"$want"* ]]; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name: exit $rc, want $want in: ${out:0:300}"; sed 's/^/    /' "$tmp/err" | tail -5
  fi
}

task "the tools by name" get-sum -- mcpv list-tools --names -r -q '.tools[].name' -s everything
task "one tool's arguments" "a=NUMBER" -- mcpv call get-sum --help -s everything
task "a call" "Echo: hi" -- mcpv call echo message=hi -r -q '.content[0].text' -s everything
task "a sum" "5" -- mcpv call get-sum a=2 b=3 -r -q '.content[0].text' -s everything
task "the resources" "demo://resource/static/document/architecture.md" -- mcpv list-resources -r -q '.resources[].uri' -s everything
task "a resource read" "#" -- mcpv read demo://resource/static/document/architecture.md -r -q '.contents[0].text' -s everything
task "a prompt filled" "Paris" -- mcpv get-prompt args-prompt city=Paris -r -q '.messages[0].content.text' -s everything
task "a completion" "Engineering" -- mcpv complete --prompt completable-prompt --arg department=E -r -q '.completion.values[]' -s everything
task "which server has it" "everything,demo" -- mcpv search echo -r -q '[.hits[].server] | unique | sort_by(. != "everything") | join(",")'
task "a call through the gateway" "Echo: through" -- mcpv call everything__echo message=through -r -q '.content[0].text' -- mcpv serve "$tmp/gateway.serve.yaml"
task "what a server costs" "total" -- mcpv cost -s demo
mcpv session start ev -s everything >/dev/null
task "many calls in a session" "Echo: kept" -- mcpv --session ev call echo message=kept -r -q '.content[0].text'
mcpv session stop ev >/dev/null

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
