# Sourced by scripts/bench.sh: mcpv beside the other Go clients, one-shot
# operations against the go-sdk demo server, interleaved round by round.
#
#   - mcpgo-client: the smallest one-shot client on mark3labs/mcp-go,
#     built from scripts/bench/mcpgo-client (a module of its own, so mcp-go
#     never enters mcpv's go.mod); always there.
#   - mcptools (f/mcptools, on mcp-go too): a build of it named by
#     MCPV_BENCH_MCPTOOLS (the module proxy does not serve it; build it from
#     its source at a pinned commit, outside this repository, as
#     docs/BENCHMARKS.notes.md says); left out, and said so, when unset.
#
# Every client speaks 2025-11-25 (the initialize handshake): mcptools knows
# no other era. A ratio here is the median of the per-round ratios (mcpv's
# time over the peer's in the same round), which holds up on a machine whose
# speed drifts; the times beside it are medians of each column.

# paired A B: the median over rounds of A's time / B's time (column 1 of
# $dir/A.t and $dir/B.t, appended in the same rounds).
paired() {
	paste -d ' ' "$dir/$1.t" "$dir/$2.t" | awk '$3 > 0 {print $1 / $3}' | sort -g |
		awk '{a[NR] = $1} END {if (NR) printf "%.2f×", a[int((NR + 1) / 2)]; else print "n/a"}'
}

peers_build() {
	(cd "$repo/scripts/bench/mcpgo-client" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir/mcpgo-client" .) ||
		die "go build of the mcp-go peer failed"
	mcptools=${MCPV_BENCH_MCPTOOLS:-}
	if [ -n "$mcptools" ] && ! [ -x "$mcptools" ]; then
		die "MCPV_BENCH_MCPTOOLS=$mcptools is not an executable"
	fi
	[ -n "$mcptools" ] || echo "(MCPV_BENCH_MCPTOOLS is not set: the mcptools rows are left out)"
}

# peer_op NAME OP URL: one round of OP (list or call) by each client, each
# against a fresh demo server (stdio) or the one at URL (HTTP).
peer_op() {
	local name=$1 op=$2 url=$3 target mt_target
	if [ -n "$url" ]; then target=(-u "$url"); mt_target=("$url"); else target=(-- "$demo"); mt_target=("$demo"); fi
	local m_args g_args t_args
	case $op in
	list) m_args=(list-tools); g_args=(list-tools); t_args=(tools --format json) ;;
	call) m_args=(call echo message=hi); g_args=(call echo message=hi); t_args=(call echo --params '{"message":"hi"}' --format json) ;;
	esac
	if [ -n "$url" ]; then
		measure "$name-mcpv" "$mcpv" "${legacy[@]}" -u "$url" "${m_args[@]}"
		measure "$name-mcpgo" "$dir/mcpgo-client" -u "$url" "${g_args[@]}"
	else
		measure "$name-mcpv" "$mcpv" "${legacy[@]}" "${m_args[@]}" -- "$demo"
		measure "$name-mcpgo" "$dir/mcpgo-client" "${g_args[@]}" -- "$demo"
	fi
	[ -z "$mcptools" ] || measure "$name-mcptools" "$mcptools" "${t_args[@]}" "${mt_target[@]}"
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
	local rounds=$((runs * 3)) url pid op
	reset peer-list-{mcpv,mcpgo,mcptools} peer-call-{mcpv,mcpgo,mcptools} http-list-{mcpv,mcpgo,mcptools} http-call-{mcpv,mcpgo,mcptools}
	reset pver-mcpv pver-mcpgo pver-mcptools pver-hello
	for _ in $(seq "$rounds"); do
		peer_op peer-list list ""
		peer_op peer-call call ""
		measure pver-mcpv "$mcpv" --version
		measure pver-mcpgo "$dir/mcpgo-client" version
		[ -z "$mcptools" ] || measure pver-mcptools "$mcptools" version
		measure pver-hello "$dir/hello-world"
	done
	peer_rows peer-list "one list-tools, stdio"
	peer_rows peer-call "one call, stdio"
	# Streamable HTTP: one demo server for the whole series, on loopback.
	"$demo" -http 127.0.0.1:0 2>"$dir/http-demo.err" &
	pid=$!
	for _ in $(seq 50); do grep -q 'listening on' "$dir/http-demo.err" 2>/dev/null && break; sleep 0.1; done
	url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$dir/http-demo.err")
	[ -n "$url" ] || { kill "$pid"; die "the HTTP demo server did not start"; }
	url=$url/mcp
	for _ in $(seq "$rounds"); do
		peer_op http-list list "$url"
		peer_op http-call call "$url"
	done
	kill "$pid"; wait "$pid" 2>/dev/null || true
	peer_rows http-list "one list-tools, Streamable HTTP"
	peer_rows http-call "one call, Streamable HTTP"
	local mine="$(secs "$(median 1 pver-mcpv)"), $(mb "$(median 2 pver-mcpv)")"
	[ -z "$mcptools" ] || row "mcpv --version: mcptools version" "$mine" "mcptools $(secs "$(median 1 pver-mcptools)")" "$(paired pver-mcpv pver-mcptools) (paired)"
	row "mcpv --version: mcp-go client's" "$mine" "mcp-go client $(secs "$(median 1 pver-mcpgo)")" "$(paired pver-mcpv pver-mcpgo) (paired)"
	row "mcpv --version: hello-world Go program (paired)" "$mine" "hello-world $(secs "$(median 1 pver-hello)")" "$(paired pver-mcpv pver-hello) (paired)"
}
