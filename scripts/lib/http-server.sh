# shellcheck shell=bash
# Sourced by the scripts that run a server over HTTP on a free loopback
# port (scripts/k6.sh, scripts/bench/load.sh).

# http_server DIR PROGRAM [ARGS...]: starts PROGRAM ARGS -http 127.0.0.1:0
# in the background, its stderr in DIR/server.log, and waits (5 s at most)
# for its line "listening on http://ADDR": sets server (its pid) and
# server_url (http://ADDR). Returns 1 when it does not start.
http_server() {
	local dir=$1
	shift
	"$@" -http 127.0.0.1:0 2>"$dir/server.log" &
	server=$!
	for _ in $(seq 50); do
		server_url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/server.log")
		[ -n "$server_url" ] && return 0
		kill -0 "$server" 2>/dev/null || break
		sleep 0.1
	done
	echo "the server did not start: $(cat "$dir/server.log")" >&2
	return 1
}

# http_server_stop: stops the server http_server started, if any.
http_server_stop() {
	if [ -n "${server:-}" ]; then
		kill "$server" 2>/dev/null && wait "$server" 2>/dev/null
		server=
	fi
	return 0
}
