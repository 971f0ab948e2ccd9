#!/bin/sh
# Kit P: start one server by id.
#
#   run.sh ID          stdio: prints the command that starts the server (absolute paths)
#                      http:  starts the server on a free 127.0.0.1 port and prints its URL;
#                             the pid is printed to stderr and written to .run/ID.pid
#   run.sh stop ID     stops an http server started by run.sh
#   run.sh list        lists the ids
set -eu
KIT=$(cd "$(dirname "$0")" && pwd)

manifest() {  # id field
  python3 - "$KIT/kit.jsonl" "$1" "$2" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["id"] == sys.argv[2]:
        v = e.get(sys.argv[3])
        print("" if v is None else v)
        sys.exit(0)
sys.exit("unknown id: " + sys.argv[2])
EOF
}

case "${1:-}" in
  ""|-h|--help)
    sed -n '2,9p' "$0"; exit 2 ;;
  list)
    python3 -c 'import json,sys
for l in open(sys.argv[1]):
    e=json.loads(l); print(e["id"], e["era"], e["transport"], "control" if e["control"] else e["level"], flush=True)' "$KIT/kit.jsonl"
    exit 0 ;;
  stop)
    id=${2:?id}
    pidf="$KIT/.run/$id.pid"
    [ -f "$pidf" ] || { echo "not running: $id" >&2; exit 1; }
    pid=$(cat "$pidf")
    kill "$pid" 2>/dev/null || true
    rm -f "$pidf" "$KIT/.run/$id.url"
    exit 0 ;;
esac

id=$1
start=$(manifest "$id" start)
transport=$(manifest "$id" transport)
cmd=$(printf '%s' "$start" | sed "s#python3 srv.py#python3 $KIT/srv.py#")

if [ "$transport" = stdio ]; then
  printf '%s\n' "$cmd"
  exit 0
fi

path=$(manifest "$id" path)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
cmd=$(printf '%s' "$cmd" | sed "s#@PORT@#$port#")
mkdir -p "$KIT/.run"
# shellcheck disable=SC2086
nohup $cmd >"$KIT/.run/$id.log" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$KIT/.run/$id.pid"
python3 - "$port" <<'EOF' || { echo "server $id did not start (see .run/$id.log)" >&2; kill "$pid" 2>/dev/null; exit 1; }
import socket, sys, time
end = time.time() + 60
while time.time() < end:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
EOF
url="http://127.0.0.1:$port$path"
echo "$url" >"$KIT/.run/$id.url"
echo "pid $pid" >&2
printf '%s\n' "$url"
