#!/usr/bin/env bash
# The README's first command (its line 4) on a cold, loaded machine: run in
# the checkout DIR with empty GOCACHE and GOMODCACHE (the modules come from
# the proxy) and an empty state directory, beside four busy shell loops.
#
#   [EXTRA='--connect-timeout 10s'] bash scripts/bench/cold-readme.sh DIR
#
# EXTRA is inserted after "go run ." (a shorter start bound stands for a
# machine slower than the minute allows). Prints the exit code and the time
# it took, the load, the start of stdout and the end of stderr.
set -uo pipefail
dir=${1:?give the checkout to run in}
c=$(mktemp -d "${TMPDIR:-/tmp}/cold.XXXXXX")
pids=()
for _ in 1 2 3 4; do (while :; do :; done) & pids+=($!); done
cd "$dir" || exit 2
line=$(sed -n 4p README.md | cut -d"#" -f1)
line=${line/go run . /go run . ${EXTRA:-} }
echo "command: $line"
start=$(date +%s)
env GOCACHE="$c/cache" GOMODCACHE="$c/mod" XDG_STATE_HOME="$c/state" bash -c "$line" >"$c/out" 2>"$c/err"
code=$?
end=$(date +%s)
kill "${pids[@]}"
echo "exit $code after $((end - start)) s; load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
head -c 300 "$c/out"
echo
tail -3 "$c/err"
chmod -R u+w "$c"
rm -rf "$c"
