# Sourced by scripts/bench.sh: mcpv beside the other Go clients, one-shot
# operations against the go-sdk demo server, interleaved round by round,
# the order of the clients turning each round, so that none always goes
# first (as in scripts/bench/paired.sh).
#
#   - mcpgo-client: the smallest one-shot client on mark3labs/mcp-go,
#     built from scripts/bench/mcpgo-client (a module of its own, so mcp-go
#     never enters mcpv's go.mod); always there.
#   - mcptools (f/mcptools, on mcp-go too): a build of it named by
#     MCPV_BENCH_MCPTOOLS (the module proxy does not serve it; build it from
#     its source at a pinned commit, outside this repository, as
#     docs/BENCHMARKS.notes.md says); left out, and said so, when unset.
#
# Each client runs from one of four copies of its file, a different one each
# round (bench.sh's measure_in).
#
# Every client speaks 2025-11-25 (the initialize handshake): mcptools knows
# no other era. A ratio here is the median of the per-round ratios (mcpv's
# time over the peer's in the same round), which holds up on a machine whose
# speed drifts; the times beside it are medians of each column.

# paired A B: the median over rounds of A's time / B's time (column 1 of
# $dir/A.t and $dir/B.t, appended in the same rounds), by ratio.awk.
paired() {
	paste -d ' ' "$dir/$1.t" "$dir/$2.t" | awk '{print $1, $3}' | awk -f "$repo/scripts/bench/ratio.awk" |
		awk '{ if ($6) printf "%.2f×", $3; else print "n/a" }'
}

# rotated ROUND NAME...: the names, starting at the ROUND-th (modulo their
# number), so that no client always goes first.
rotated() {
	local round=$1 i
	shift
	for ((i = 0; i < $#; i++)); do
		echo "${@:$(((round + i) % $# + 1)):1}"
	done
}

# clients: the peers of this run, mcpv first.
clients() { echo mcpv mcpgo; [ -z "$mcptools" ] || echo mcptools; }

peers_build() {
	(cd "$repo/scripts/bench/mcpgo-client" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/mcpgo-client" .) ||
		die "go build of the mcp-go peer failed"
	(cd "$repo/scripts/bench/pipefeed" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/pipefeed" .) ||
		die "go build of pipefeed failed"
	(cd "$repo/scripts/bench/sessionfloor" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/sessionfloor" .) ||
		die "go build of sessionfloor failed"
	mcptools=${MCPV_BENCH_MCPTOOLS:-}
	if [ -n "$mcptools" ] && ! [ -x "$mcptools" ]; then
		die "MCPV_BENCH_MCPTOOLS=$mcptools is not an executable"
	fi
	[ -n "$mcptools" ] || echo "(MCPV_BENCH_MCPTOOLS is not set: the mcptools rows are left out)"
}

# peer_op NAME OP URL ROUND: one round of OP (list or call) by each client,
# each against a fresh demo server (stdio) or the one at URL (HTTP), in the
# order of the round.
peer_op() {
	local name=$1 op=$2 url=$3 round=$4 c
	local m_args g_args t_args
	case $op in
	list) m_args=(list-tools); g_args=(list-tools); t_args=(tools --format json) ;;
	call) m_args=(call echo message=hi); g_args=(call echo message=hi); t_args=(call echo --params '{"message":"hi"}' --format json) ;;
	esac
	# shellcheck disable=SC2046 # the client names are words
	for c in $(rotated "$round" $(clients)); do
		case $c in
		mcpv) if [ -n "$url" ]; then measure "$name-mcpv" "$mcpv" "${legacy[@]}" -u "$url" "${m_args[@]}"; else measure "$name-mcpv" "$mcpv" "${legacy[@]}" "${m_args[@]}" -- "$demo"; fi ;;
		mcpgo) if [ -n "$url" ]; then measure "$name-mcpgo" "$dir/mcpgo-client" -u "$url" "${g_args[@]}"; else measure "$name-mcpgo" "$dir/mcpgo-client" "${g_args[@]}" -- "$demo"; fi ;;
		mcptools) measure "$name-mcptools" "$mcptools" "${t_args[@]}" "${url:-$demo}" ;;
		esac
	done
}

# peer_version ROUND: one --version (or the like) by each client and the
# hello-world program, in the order of the round.
peer_version() {
	local c
	# shellcheck disable=SC2046 # the client names are words
	for c in $(rotated "$1" $(clients) hello); do
		case $c in
		mcpv) measure pver-mcpv "$mcpv" --version ;;
		mcpgo) measure pver-mcpgo "$dir/mcpgo-client" version ;;
		mcptools) measure pver-mcptools "$mcptools" version ;;
		hello) measure pver-hello "$dir/hello-world" ;;
		esac
	done
}

peer_rows() { # NAME WHAT
	local name=$1 what=$2 mine
	mine="$(secs "$(median 1 "$name-mcpv")"), $(mb "$(median 2 "$name-mcpv")")"
	[ -z "$mcptools" ] || row "$what: mcptools" "$mine" \
		"mcptools $(secs "$(median 1 "$name-mcptools")"), $(mb "$(median 2 "$name-mcptools")")" "$(paired "$name-mcpv" "$name-mcptools") (paired)"
	row "$what: mcp-go client" "$mine" \
		"mcp-go client $(secs "$(median 1 "$name-mcpgo")"), $(mb "$(median 2 "$name-mcpgo")")" "$(paired "$name-mcpv" "$name-mcpgo") (paired)"
}

peers() {
	local rounds=$((runs * 3)) url pid i
	reset peer-list-{mcpv,mcpgo,mcptools} peer-call-{mcpv,mcpgo,mcptools} http-list-{mcpv,mcpgo,mcptools} http-call-{mcpv,mcpgo,mcptools}
	reset pver-mcpv pver-mcpgo pver-mcptools pver-hello
	for i in $(seq "$rounds"); do
		peer_op peer-list list "" "$i"
		peer_op peer-call call "" "$i"
		peer_version "$i"
	done
	peer_rows peer-list "one list-tools, stdio"
	peer_rows peer-call "one call, stdio"
	# Streamable HTTP: one demo server for the whole series, on loopback.
	"$demo" -http 127.0.0.1:0 2>"$dir/http-demo.err" &
	pid=$!
	# shellcheck disable=SC2064 # pid is known now
	trap "kill $pid 2>/dev/null" EXIT # die exits: the server must not outlive the run
	for _ in $(seq 50); do grep -q 'listening on' "$dir/http-demo.err" 2>/dev/null && break; sleep 0.1; done
	url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/http-demo.err")
	[ -n "$url" ] || die "the HTTP demo server did not start"
	url=$url/mcp
	for i in $(seq "$rounds"); do
		peer_op http-list list "$url" "$i"
		peer_op http-call call "$url" "$i"
	done
	kill "$pid"; wait "$pid" 2>/dev/null || true
	trap - EXIT
	peer_rows http-list "one list-tools, Streamable HTTP"
	peer_rows http-call "one call, Streamable HTTP"
	local mine="$(secs "$(median 1 pver-mcpv)"), $(mb "$(median 2 pver-mcpv)")"
	[ -z "$mcptools" ] || row "mcpv --version: mcptools version" "$mine" "mcptools $(secs "$(median 1 pver-mcptools)")" "$(paired pver-mcpv pver-mcptools) (paired)"
	row "mcpv --version: mcp-go client's" "$mine" "mcp-go client $(secs "$(median 1 pver-mcpgo)")" "$(paired pver-mcpv pver-mcpgo) (paired)"
	row "mcpv --version: hello-world Go program (paired)" "$mine" "hello-world $(secs "$(median 1 pver-hello)")" "$(paired pver-mcpv pver-hello) (paired)"
}

# Round trips (bench.sh --trips): what mcpv sends to look up before it asks,
# beside the Go peers, with mcpv as a user runs it (its era found, not
# pinned; what it keeps of a server between runs kept in $XDG_STATE_HOME,
# warmed by one run first): list-tools, the default call (typed and
# checked), the fast path (--no-validate, JSON arguments: no listing), and
# the default call against a server that lets its lists be kept
# (demo-server -ttl 1h: mcpv sends the call alone), and the default call
# repeated against a server of 2025-11-25 alone (-versions 2025-11-25:
# its list, which says nothing of how long it may be kept, kept for
# MCPV_LIST_TTL), over stdio and over Streamable HTTP (stateless servers,
# as the 2026-07-28 era has no sessions). mcptools and the mcp-go client
# speak 2025-11-25 and list nothing before a call.

# trip_op NAME OP URL ROUND [SERVER ARGS...]: one round of OP (list, call
# or fast) by each client, against the server at URL, or a fresh stdio
# demo server with SERVER ARGS.
trip_op() {
	local name=$1 op=$2 url=$3 round=$4 c
	shift 4
	local m_args g_args t_args
	case $op in
	list) m_args=(list-tools); g_args=(list-tools); t_args=(tools --format json) ;;
	call) m_args=(call echo message=hi); g_args=(call echo message=hi); t_args=(call echo --params '{"message":"hi"}' --format json) ;;
	fast) m_args=(call echo 'message:="hi"' --no-validate); g_args=(call echo message=hi); t_args=(call echo --params '{"message":"hi"}' --format json) ;;
	esac
	# shellcheck disable=SC2046 # the client names are words
	for c in $(rotated "$round" $(clients)); do
		case $c in
		mcpv) if [ -n "$url" ]; then measure "$name-mcpv" "$mcpv" -u "$url" "${m_args[@]}"; else measure "$name-mcpv" "$mcpv" "${m_args[@]}" -- "$demo" "$@"; fi ;;
		mcpgo) if [ -n "$url" ]; then measure "$name-mcpgo" "$dir/mcpgo-client" -u "$url" "${g_args[@]}"; else measure "$name-mcpgo" "$dir/mcpgo-client" "${g_args[@]}" -- "$demo" "$@"; fi ;;
		mcptools) if [ -n "$url" ]; then measure "$name-mcptools" "$mcptools" "${t_args[@]}" "$url"; else measure "$name-mcptools" "$mcptools" "${t_args[@]}" "$demo" "$@"; fi ;;
		esac
	done
}

# http_demo ARGS...: a demo server over Streamable HTTP on loopback, with
# ARGS; its URL in $url, its pid added to $http_pids.
http_demo() {
	local log=$dir/http-demo-$#-$RANDOM.err
	"$demo" -http 127.0.0.1:0 "$@" 2>"$log" &
	http_pids+=("$!")
	for _ in $(seq 50); do grep -q 'listening on' "$log" 2>/dev/null && break; sleep 0.1; done
	url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$log")
	[ -n "$url" ] || die "the HTTP demo server did not start"
	url=$url/mcp
}

trips() {
	local rounds=$((runs * 3)) i plain kept old
	local names=(trip-list trip-call trip-fast trip-kept trip-old htrip-list htrip-call htrip-fast htrip-kept htrip-old) n c
	for n in "${names[@]}"; do for c in mcpv mcpgo mcptools; do reset "$n-$c"; done; done
	http_pids=()
	# shellcheck disable=SC2064 # the pids are known when it runs
	trap 'kill "${http_pids[@]}" 2>/dev/null' EXIT # die exits: no server may outlive the run
	http_demo -stateless
	plain=$url
	http_demo -stateless -ttl 1h
	kept=$url
	http_demo -stateless -versions 2025-11-25
	old=$url
	# One run of each first: what mcpv keeps of each server, as after a
	# user's first run.
	"$mcpv" list-tools -- "$demo" >/dev/null
	"$mcpv" call echo message=hi -- "$demo" -ttl 1h >/dev/null
	"$mcpv" -u "$plain" list-tools >/dev/null
	"$mcpv" -u "$kept" call echo message=hi >/dev/null
	"$mcpv" call echo message=hi -- "$demo" -versions 2025-11-25 >/dev/null
	"$mcpv" -u "$old" call echo message=hi >/dev/null
	for i in $(seq "$rounds"); do
		trip_op trip-list list "" "$i"
		trip_op trip-call call "" "$i"
		trip_op trip-fast fast "" "$i"
		trip_op trip-kept call "" "$i" -ttl 1h
		trip_op trip-old call "" "$i" -versions 2025-11-25
		trip_op htrip-list list "$plain" "$i"
		trip_op htrip-call call "$plain" "$i"
		trip_op htrip-fast fast "$plain" "$i"
		trip_op htrip-kept call "$kept" "$i"
		trip_op htrip-old call "$old" "$i"
	done
	kill "${http_pids[@]}" 2>/dev/null || true
	wait "${http_pids[@]}" 2>/dev/null || true
	trap - EXIT
	peer_rows trip-list "round trips: list-tools, stdio"
	peer_rows trip-call "round trips: call (typed and checked), stdio"
	peer_rows trip-fast "round trips: call --no-validate, JSON arguments, stdio"
	peer_rows trip-kept "round trips: call, lists kept (-ttl 1h), stdio"
	peer_rows trip-old "round trips: call repeated, a server of 2025-11-25 (its list kept for MCPV_LIST_TTL), stdio"
	peer_rows htrip-list "round trips: list-tools, Streamable HTTP"
	peer_rows htrip-call "round trips: call (typed and checked), Streamable HTTP"
	peer_rows htrip-fast "round trips: call --no-validate, JSON arguments, Streamable HTTP"
	peer_rows htrip-kept "round trips: call, lists kept (-ttl 1h), Streamable HTTP"
	peer_rows htrip-old "round trips: call repeated, a server of 2025-11-25 (its list kept for MCPV_LIST_TTL), Streamable HTTP"
}
