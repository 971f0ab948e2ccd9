# The audit's rows of scripts/bench-trust.sh, sourced by it (it sets
# $mcpv, $dir, $runs and median): mcpv audit of real-shaped text, with
# nothing started, so that the figure is the audit's alone.
#
#   1,000 tools: the first 1,000 tools of the field set's surfaces (JSON
#     files of real servers' listings, each with a "tools" array, as a
#     field run saves them), in the order of their files and then as
#     listed, a tool listed twice renamed, as a snapshot;
#   one description of 60 MiB: the field set's descriptions one after
#     another, again and again, to 60 MiB, as one tool's.
#
# Both are built at run time in $dir, never in the repository. The field
# set is $MCPV_BENCH_SURFACES (or bench-trust.sh's --surfaces DIR); with
# none, the rows are skipped and say so. $MCPV_BENCH_BASE (or --base
# MCPV), an older build, is timed beside this checkout's. Each row is the
# median of RUNS runs of wall time, CPU time (user and system) and peak
# RSS, from GNU time. Needs jq.

audit_field=${surfaces:-${MCPV_BENCH_SURFACES:-}}
audit_base=${base:-${MCPV_BENCH_BASE:-}}
audit_timeout=600

# cputimed N LABEL CMD...: the median wall time, CPU time and peak RSS of
# N runs; a run stopped by timeout(1) is said, and ends the row.
cputimed() {
	local n=$1 label=$2
	shift 2
	: >"$dir/times"
	for _ in $(seq "$n"); do
		local code=0
		/usr/bin/time -f '%e %U %S %M' -o "$dir/time" "$@" </dev/null >/dev/null 2>"$dir/err" || code=$?
		if [ "$code" = 124 ]; then
			printf '| %s | stopped after %s s (timeout) | %s | |\n' "$label" "$audit_timeout" "$(awk '{print ($2 + $3) * 1000 " ms"}' "$dir/time")"
			return
		elif [ "$code" != 0 ]; then
			echo "bench-trust: $label failed: $(tail -c 300 "$dir/err")" >&2
			exit 1
		fi
		cat "$dir/time" >>"$dir/times"
	done
	printf '| %s | %s ms | %s ms | %s MB |\n' "$label" \
		"$(awk '{print $1 * 1000}' "$dir/times" | median)" "$(awk '{print ($2 + $3) * 1000}' "$dir/times" | median)" \
		"$(awk '{printf "%.0f\n", $4 / 1024}' "$dir/times" | median)"
}

echo
if [ -z "$audit_field" ] || ! ls "$audit_field"/*.json >/dev/null 2>&1; then
	echo "(the audit's real-shaped rows need a field set: MCPV_BENCH_SURFACES=DIR or --surfaces DIR)"
else
	command -v jq >/dev/null || { echo "bench-trust: the audit's rows need jq" >&2; exit 2; }
	# 1,000 tools, a snapshot of them
	find "$audit_field" -maxdepth 1 -name '*.json' | sort | xargs jq -c '.tools // [] | .[]' |
		jq -s -c '.[:1000] | reduce .[] as $t ({seen: {}, out: []};
			($t.name) as $n | (.seen[$n] // 0) as $c | .seen[$n] = $c + 1 |
			.out += [if $c > 0 then $t + {name: "\($n)_\($c + 1)"} else $t end]) |
			{mcpvSnapshot: 1, tools: .out}' >"$dir/real-tools.snap.json"
	# one description of 60 MiB
	find "$audit_field" -maxdepth 1 -name '*.json' | sort | xargs jq -r '.tools // [] | .[] | .description // empty' >"$dir/prose.txt"
	[ -s "$dir/prose.txt" ] || { echo "bench-trust: no descriptions in $audit_field" >&2; exit 2; }
	: >"$dir/long.txt"
	while [ "$(wc -c <"$dir/long.txt")" -lt $((60 << 20)) ]; do cat "$dir/prose.txt" >>"$dir/long.txt"; done
	head -c $((60 << 20)) "$dir/long.txt" |
		jq -Rs '{mcpvSnapshot: 1, tools: [{name: "long", description: ., inputSchema: {type: "object"}}]}' >"$dir/long.snap.json"
	echo "audit of real-shaped text: $(jq '.tools | length' "$dir/real-tools.snap.json") tools of $(find "$audit_field" -maxdepth 1 -name '*.json' | wc -l) servers ($(($(wc -c <"$dir/real-tools.snap.json") >> 10)) KiB), and a description of $(($(wc -c <"$dir/long.snap.json") >> 20)) MiB"
	echo
	echo "| what | wall, median of $runs | CPU (user + system) | peak RSS |"
	echo "| --- | --- | --- | --- |"
	for who in this ${audit_base:+base}; do
		m=$mcpv long=$runs
		# an older build may take minutes over the long description: once,
		# and stopped at the timeout
		[ "$who" = base ] && m=$audit_base long=1
		cputimed "$runs" "$who: mcpv audit of 1,000 real tools (a snapshot)" "$m" audit --fail-on none "$dir/real-tools.snap.json"
		cputimed "$long" "$who: mcpv audit of one description of 60 MiB" timeout "$audit_timeout" "$m" audit --fail-on none "$dir/long.snap.json"
	done
fi
