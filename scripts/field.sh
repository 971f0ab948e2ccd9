#!/usr/bin/env bash
# mcpv's gates over the field set: real MCP servers from npm and the Go
# module proxy, each started over stdio as its users start it (with dummy
# credentials where it will not start without one), listed and judged, never
# asked to call a tool.
#
#   bash scripts/field.sh [MODE] [options] [NAME...]
#
# MODE (default audit):
#   audit   list the server (every page of tools, prompts, resources and
#           templates, kept as surfaces/NAME.json) and run the default gate,
#           `mcpv audit -- SERVER`, keeping its --format json report as
#           audit/NAME.json; the server fails when the audit exits non-zero
#           (a finding of severity high or above, or no answer)
#   pin     `mcpv pin FILE -- SERVER`, then `mcpv pin --check FILE -- SERVER`
#           and `mcpv diff FILE -- SERVER` against the same unchanged server:
#           each must exit 0 (exit codes in pin/NAME.rc, the pin file and
#           the outputs beside it)
#   check   `mcpv check --format json -- SERVER` (check/NAME.json), and over
#           Streamable HTTP for the servers whose row has an http column
#           (check/NAME-http.json); the server fails on a MUST failure
#   all     audit, pin and check
#   save    list the server as audit does, get each of its prompts (every
#           declared argument "example") and read each resource a model may
#           read (at most 64 of each, as mcpv audit does), and keep what it
#           showed as internal/audit/testdata/field/servers/NAME.json, the
#           saved surface the audit's field test reads offline; a server that
#           does not start is listed in internal/audit/testdata/field/
#           unstarted.tsv with the reason (`bash scripts/field.sh save NAME`
#           refreshes one server's saved surface)
#   cost    reserved for `mcpv cost` (run when the binary has that command)
#
# Options:
#   --ci          only the servers whose ci column is "ci": a representative
#                 part (every kind, quick to install: the package.json's
#                 dependencies, installed alone with --omit=dev); exit 1 when
#                 any server fails a gate
#   --mcpv PATH   judge with this binary instead of one built from this checkout
#   --out DIR     where the reports go (default $MCPV_FIELD_DIR/results)
#   --summary F   also write the summary as Markdown to F
#   -j N          servers run N at a time (default 3)
#   NAME...       only these rows of scripts/field/servers.tsv
#
# The servers are pinned in scripts/field/package.json and package-lock.json
# and installed OUTSIDE the repository with `npm ci --ignore-scripts` (no
# install script runs: some would download a browser or a binary), in
#   ${MCPV_FIELD_DIR:-${TMPDIR:-/tmp}/mcpv-field}
# A row whose package column pins a version (NAME@VERSION) is installed
# alone, with `npm install --ignore-scripts --omit=dev`, in one/NAME there;
# one whose package column is go:MODULE@VERSION is a Go server, built from
# the Go module proxy with `go install MODULE@VERSION` into go/MODULE/bin
# there (its command names the binary as $M/NAME). A package of the set
# that is not whole in that install (its package.json, or a dependency's,
# missing: an install cut short while its lockfile matches) is installed
# alone the same way, at the lockfile's version, in its server's own job.
# scripts/field/servers.tsv says how each is started (its command, with $M
# for that node_modules and $W for its own directory), the dummy environment
# it needs, and its kind. Each server runs in a directory of its own, which
# is also its HOME, seeded with dummy configuration files that point at a
# closed port on 127.0.0.1 (a kubeconfig, a wrangler config, OAuth client
# keys), and with HTTP(S)_PROXY at that port: nothing needs the network
# beyond the loopback after the install. A server is given 3 minutes to
# answer initialize (a busy machine starts some slowly), and each mcpv run
# is bounded by MCPV_FIELD_TIMEOUT seconds (default 240, 600 for check).
#
# Prints a line per server and a summary (scripts/field/summary.mjs): the
# servers, their items by kind, the audit's findings by severity and rule,
# the servers failing each gate. Needs go (unless --mcpv, and for the Go
# servers), node >= 20 and npm. Exit status: 0, or 1 with --ci when a server
# fails a gate, or 2 on a mistake or a failed set-up.
set -euo pipefail

die() {
	echo "field: $*" >&2
	exit 2
}
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
src=$repo/scripts/field

mode=audit
case "${1:-}" in audit | pin | check | all | cost | save) mode=$1 && shift ;; esac
ci=false mcpv="" out="" summary_md="" jobs=3 names=()
while [ $# -gt 0 ]; do
	case $1 in
	--ci) ci=true ;;
	--mcpv) mcpv=${2:?--mcpv needs a path} && shift ;;
	--out) out=${2:?--out needs a directory} && shift ;;
	--summary) summary_md=${2:?--summary needs a file} && shift ;;
	-j) jobs=${2:?-j needs a number} && shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' && exit 0 ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) names+=("$1") ;;
	esac
	shift
done
[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "-j needs a positive number, not $jobs"
for tool in node npm timeout cmp; do
	command -v "$tool" >/dev/null || die "$tool is required"
done
# A hang guard per mcpv run: check makes many requests, each waited for.
if [ -n "${MCPV_FIELD_TIMEOUT:-}" ]; then
	limit=$MCPV_FIELD_TIMEOUT
elif [ "$mode" = check ] || [ "$mode" = all ]; then
	limit=600
else
	limit=240
fi
[[ $limit =~ ^[1-9][0-9]*$ ]] || die "MCPV_FIELD_TIMEOUT must be a number of seconds, not $limit"

dir=$(node -e 'console.log(require("path").resolve(process.argv[1]))' "${MCPV_FIELD_DIR:-${TMPDIR:-/tmp}/mcpv-field}")
out=$(node -e 'console.log(require("path").resolve(process.argv[1]))' "${out:-$dir/results}")
for d in "$dir" "$out"; do
	case "$d/" in "$repo"/*) die "$d is inside the repository; the servers and their text stay outside it" ;; esac
done
mkdir -p "$dir" "$out" || die "cannot create $dir or $out"

# ------------------------------------------------------------- the servers

# rows: NAME<TAB>KIND<TAB>CI<TAB>ENV<TAB>COMMAND<TAB>HTTP<TAB>PACKAGE of the
# rows chosen.
rows=$(awk -F'\t' -v ci="$ci" -v want="${names[*]:-}" '
	BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) chosen[w[i]] = 1 }
	/^#/ || NF == 0 || $1 == "name" { next }
	NF != 8 { printf "field: servers.tsv line %d has %d columns, not 8\n", NR, NF > "/dev/stderr"; bad = 1; next }
	(n == 0 || $1 in chosen) && (ci == "false" || $4 == "ci") { print $1 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\t" $2; seen[$1] = 1 }
	END { for (k in chosen) if (!(k in seen)) { printf "field: no server %s in servers.tsv%s\n", k, ci == "true" ? " marked ci" : "" > "/dev/stderr"; bad = 1 }
	      exit bad }' "$src/servers.tsv") || die "see scripts/field/servers.tsv"
[ -n "$rows" ] || die "no server chosen"

# ------------------------------------------------------------- install

# --ci installs the dependencies alone (the representative part); the whole
# set adds the devDependencies. The lockfile pins both.
want=$src/package-lock.json
inst=$dir/full
omit=()
if $ci; then
	inst=$dir/ci
	omit=(--omit=dev)
fi
if ! awk -F'\t' '$7 !~ /.@/ { found = 1 } END { exit !found }' <<<"$rows"; then
	: # every row chosen pins its own package, installed alone (one_modules)
elif [ ! -d "$inst/node_modules" ] || ! cmp -s "$want" "$inst/package-lock.json" || ! cmp -s "$src/package.json" "$inst/package.json"; then
	echo "installing the field set into $inst (npm ci --ignore-scripts ${omit[*]})"
	mkdir -p "$inst" && cp "$src/package.json" "$want" "$inst/"
	if ! (cd "$inst" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error "${omit[@]}" >"$inst/npm-ci.log" 2>&1); then
		tail -n 20 "$inst/npm-ci.log" >&2
		rm -f "$inst/package-lock.json" # so that the next run installs again
		die "npm ci failed in $inst"
	fi
fi
M=$inst/node_modules
# The set's install may be incomplete while its lockfile matches (an install
# cut short, a tarball half extracted): a package of it that is not whole
# under $M (its package.json, or that of a dependency it needs, missing) is
# installed alone at the lockfile's version (one_modules), in its server's
# own job, so that the servers run -j at a time install in batches and one
# slow tarball stalls only its own server. locked: NAME<TAB>VERSION of each
# such package.
locked=$(node -e '
	const l = require(process.argv[1]);
	for (const name of process.argv.slice(2)) {
		const v = (l.packages || {})["node_modules/" + name];
		if (v && v.version) console.log(name + "\t" + v.version);
	}' "$want" $(node "$src/summary.mjs" incomplete "$M" $(awk -F'\t' '$7 !~ /.@/ { print $7 }' <<<"$rows" | sort -u))) ||
	die "cannot read $want"
[ -z "$locked" ] || echo "field: $(wc -l <<<"$locked") packages of the set are not whole in $inst; each is installed alone, in one/NAME@VERSION"

# go_bin MODULE@VERSION: the directory where `go install` put that Go
# server's binary (building it the first time); nothing on a failure.
go_bin() {
	local d=$dir/go/${1//\//+}
	if [ ! -f "$d/installed" ]; then
		mkdir -p "$d"
		(cd "$d" && GOBIN="$d/bin" GOFLAGS=-mod=mod go install "$1" >"$d/go-install.log" 2>&1) || return 0
		touch "$d/installed"
	fi
	echo "$d/bin"
}

# one_modules PACKAGE@VERSION: the node_modules where that package is
# installed alone (installing it the first time); nothing on a failure.
one_modules() {
	local d=$dir/one/${1//\//+}
	if [ ! -f "$d/installed" ]; then
		mkdir -p "$d" && echo '{"private":true}' >"$d/package.json"
		(cd "$d" && npm install --ignore-scripts --omit=dev --legacy-peer-deps --no-audit --no-fund --loglevel=error "$1" >"$d/npm-install.log" 2>&1) || return 0
		touch "$d/installed"
	fi
	echo "$d/node_modules"
}

if [ -z "$mcpv" ] || grep -q $'\tgo:' <<<"$rows"; then
	command -v go >/dev/null || die "go is required (to build mcpv without --mcpv, and the Go servers)"
fi
if [ -z "$mcpv" ]; then
	(cd "$repo" && go build -o "$dir/mcpv" .) || die "go build failed"
	mcpv=$dir/mcpv
fi
[ -x "$mcpv" ] || die "$mcpv is not an executable"
if [ "$mode" = cost ] && ! "$mcpv" help cost >/dev/null 2>&1; then
	die "this mcpv has no cost command"
fi
echo "field: $mode, $(wc -l <<<"$rows") servers, $("$mcpv" --version), node $(node --version); reports in $out"

# The HOME every server starts from: dummy configuration that points at a
# closed port on the loopback (port 9, discard: nothing listens there).
work=$(mktemp -d "${TMPDIR:-/tmp}/mcpv-field.XXXXXX")
trap 'rm -rf "$work"' EXIT
skel=$work/home
mkdir -p "$skel/.kube" "$skel/.gmail-mcp" "$skel/.config/.wrangler/config"
cat >"$skel/.kube/config" <<'EOF'
apiVersion: v1
kind: Config
clusters:
- name: field
  cluster:
    server: https://127.0.0.1:9
contexts:
- name: field
  context:
    cluster: field
    user: field
current-context: field
users:
- name: field
  user:
    token: field-dummy-token
EOF
printf '%s\n' '{"installed":{"client_id":"field-dummy.apps.example","client_secret":"field-dummy","redirect_uris":["http://127.0.0.1:9/oauth2callback"]}}' >"$skel/.gmail-mcp/gcp-oauth.keys.json"
printf '%s\n' 'oauth_token = "field-dummy"' 'expiration_time = "2099-01-01T00:00:00.000Z"' >"$skel/.config/.wrangler/config/default.toml"

mkdir -p "$out/surfaces" "$out/audit" "$out/pin" "$out/check" "$out/cost" "$out/save" "$work/lines"
saved=$repo/internal/audit/testdata/field/servers
mkdir -p "$saved"

# ------------------------------------------------------------- one server

# field_run ENV COMMAND ARGS...: run mcpv ARGS (after which "--" and the
# server's COMMAND go) in the server's directory, as its HOME, with its ENV;
# stdin from $in (default /dev/null), stdout and stderr to $o.out and
# $o.err; sets rc.
field_run() {
	local env=$1 cmd=$2
	shift 2
	local -a e c
	[ "$env" = - ] && e=() || read -r -a e <<<"$env"
	read -r -a c <<<"$cmd"
	rc=0
	(cd "$w" && env HOME="$w" HTTP_PROXY=http://127.0.0.1:9 HTTPS_PROXY=http://127.0.0.1:9 \
		http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost DO_NOT_TRACK=1 \
		"${e[@]}" timeout -k 10 "$limit" "$mcpv" --connect-timeout 3m "$@" -- "${c[@]}" <"${in:-/dev/null}" >"$o.out" 2>"$o.err") || rc=$?
}

# field_http NAME ENV HOST PATH COMMAND: start COMMAND (@PORT@ in it replaced
# by a free port; scripts/npm/loopback.cjs keeps it on 127.0.0.1 and reports
# the port) and mcpv check http://HOST:PORT/PATH; sets rc.
field_http() {
	local env=$1 host=$2 path=$3 cmd=$4 port="" free pid i
	local -a e c
	[ "$env" = - ] && e=() || read -r -a e <<<"$env"
	: >"$o.serve"
	free=$(node -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
	read -r -a c <<<"${cmd//@PORT@/$free}"
	[ "${c[0]}" = node ] && c=(node -r "$repo/scripts/npm/loopback.cjs" "${c[@]:1}")
	(cd "$w" && exec env HOME="$w" PORT="$free" NO_PROXY=127.0.0.1,localhost DO_NOT_TRACK=1 "${e[@]}" "${c[@]}") </dev/null >"$o.serve" 2>&1 &
	pid=$!
	for i in $(seq 300); do
		port=$(sed -n 's/^LISTENING \([0-9]*\)$/\1/p' "$o.serve" | head -n 1)
		[ -n "$port" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	rc=0
	if [ -z "$port" ]; then
		rc=4
		echo "the server did not listen" >"$o.err"
	else
		(cd "$w" && HOME="$w" timeout -k 10 "$limit" "$mcpv" --connect-timeout 3m check --format json -u "http://$host:$port$path" </dev/null >"$o.out" 2>"$o.err") || rc=$?
	fi
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# field_server NAME KIND ENV COMMAND HTTP PACKAGE: the chosen modes over one
# server, its line in $work/lines/NAME.
field_server() {
	local name=$1 kind=$2 env=$3 cmd=$4 http=$5 package=$6 line o pin a b c
	if [[ $package != ?*@* ]]; then
		package+=$(awk -F'\t' -v p="$package" '$1 == p { print "@" $2 }' <<<"$locked")
	fi
	if [[ $package == ?*@* ]]; then
		local M how
		if [[ $package == go:* ]]; then
			how="go install ${package#go:}"
			M=$(go_bin "${package#go:}")
		else
			how="npm install $package"
			M=$(one_modules "$package")
		fi
		if [ -z "$M" ]; then
			echo "$how failed" >"$out/save/$name.reason"
			printf '%-24s %-11s %s failed\n' "$name" "$kind" "$how" >"$work/lines/$name"
			return
		fi
	fi
	cmd=${cmd//\$M/$M}
	rm -f "$out/save/$name.reason"
	w=$work/$name
	rm -rf "$w" && cp -r "$skel" "$w"
	cmd=${cmd//\$W/$w}
	env=${env//\$W/$w}
	line=$(printf '%-24s %-11s' "$name" "$kind")
	if [ "$mode" = audit ] || [ "$mode" = all ]; then
		o=$work/$name.list
		printf '%s\n' info list-tools list-prompts list-resources list-resource-templates >"$w/.ops"
		in=$w/.ops field_run "$env" "$cmd" batch --keep-going
		node "$src/summary.mjs" surface "$o.out" "$o.err" >"$out/surfaces/$name.json" || true
		o=$out/audit/$name
		field_run "$env" "$cmd" audit --format json --output "$o.json"
		echo "$rc" >"$o.rc"
		mv "$o.out" "$o.txt"
		line+=$(node "$src/summary.mjs" line-audit "$out" "$name")
	fi
	if [ "$mode" = pin ] || [ "$mode" = all ]; then
		o=$out/pin/$name
		pin=$o.pin.json
		rm -f "$pin"
		field_run "$env" "$cmd" pin "$pin"
		a=$rc && mv "$o.out" "$o.pin.out" && mv "$o.err" "$o.pin.err"
		field_run "$env" "$cmd" pin --check "$pin"
		b=$rc && mv "$o.out" "$o.check.out" && mv "$o.err" "$o.check.err"
		field_run "$env" "$cmd" diff "$pin"
		c=$rc && mv "$o.out" "$o.diff.out" && mv "$o.err" "$o.diff.err"
		echo "pin=$a check=$b diff=$c" >"$o.rc"
		line+=$(node "$src/summary.mjs" line-pin "$out" "$name")
	fi
	if [ "$mode" = check ] || [ "$mode" = all ]; then
		o=$out/check/$name
		field_run "$env" "$cmd" check --format json
		echo "$rc" >"$o.rc" && mv "$o.out" "$o.json"
		line+=$(node "$src/summary.mjs" line-check "$out" "$name")
		if [ "$http" != - ]; then
			local host hpath hcmd
			read -r host hpath hcmd <<<"$http"
			o=$out/check/$name-http
			field_http "$env" "$host" "$hpath" "${hcmd//\$M/$M}"
			echo "$rc" >"$o.rc" && mv "$o.out" "$o.json"
			line+=$(node "$src/summary.mjs" line-check "$out" "$name-http")
		fi
	fi
	if [ "$mode" = save ]; then
		o=$work/$name.list
		printf '%s\n' info list-tools list-prompts list-resources list-resource-templates >"$w/.ops"
		in=$w/.ops field_run "$env" "$cmd" batch --keep-going
		node "$src/summary.mjs" surface "$o.out" "$o.err" >"$out/surfaces/$name.json" || true
		node "$src/summary.mjs" reads "$out/surfaces/$name.json" >"$w/.reads" 2>/dev/null || true
		o=$work/$name.reads
		: >"$o.out"
		[ ! -s "$w/.reads" ] || in=$w/.reads field_run "$env" "$cmd" batch --keep-going
		if node "$src/summary.mjs" saved "$out/surfaces/$name.json" "$o.out" >"$saved/.$name.json"; then
			mv "$saved/.$name.json" "$saved/$name.json"
			line+=" saved ($(wc -c <"$saved/$name.json") bytes)"
		else
			rm -f "$saved/.$name.json"
			# the server's last word (its last error, else its last line; not
			# node's version after a stack) and mcpv's, on one line
			{ grep -v -e '^mcpv: ' -e '^Node\.js v' -e '^ *at ' "$work/$name.list.err" | grep . | { grep -iE 'error|required|missing|not set|must|cannot|failed' || cat; } | tail -n 1 | cut -c1-240
				grep '^mcpv: ' "$work/$name.list.err" | grep -v '^mcpv: warning' | tail -n 1; } |
				paste -sd '|' | sed 's/|/ \/ /; s/\t/ /g' >"$out/save/$name.reason"
			[ -s "$out/save/$name.reason" ] || echo "no answer" >"$out/save/$name.reason"
			line+=" did not start: $(cat "$out/save/$name.reason")"
		fi
	fi
	if [ "$mode" = cost ]; then
		o=$out/cost/$name
		field_run "$env" "$cmd" cost --format json
		echo "$rc" >"$o.rc" && mv "$o.out" "$o.json"
		line+=" cost exit $rc"
	fi
	echo "$line" >"$work/lines/$name"
	rm -rf "$w"
}

# ------------------------------------------------------------- the run

running=0
while IFS=$'\t' read -r name kind _ env cmd http package; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n || true
		running=$((running - 1))
	fi
	(field_server "$name" "$kind" "$env" "$cmd" "$http" "$package" && cat "$work/lines/$name") &
	running=$((running + 1))
done <<<"$rows"
wait

if [ "$mode" = save ]; then
	# The servers that did not start, with the reason: the list's rows of the
	# servers run now replaced by this run's.
	list=$repo/internal/audit/testdata/field/unstarted.tsv
	{
		[ ! -f "$list" ] || awk -F'\t' -v run="$(cut -f1 <<<"$rows" | tr '\n' ' ')" 'BEGIN { split(run, r, " "); for (i in r) ran[r[i]] = 1 } !($1 in ran)' "$list"
		for name in $(cut -f1 <<<"$rows"); do
			[ ! -f "$out/save/$name.reason" ] || printf '%s\t%s\n' "$name" "$(cat "$out/save/$name.reason")"
		done
	} | sort >"$list.new"
	mv "$list.new" "$list"
	echo "saved surfaces in $saved; $(wc -l <"$list") servers that did not start listed in $list"
	exit 0
fi
args=(report "$out" "$mode")
[ -z "$summary_md" ] || args+=(--markdown "$summary_md")
status=0
FIELD_MODULES=$M node "$src/summary.mjs" "${args[@]}" $(cut -f1 <<<"$rows") || status=$?
if [ "$status" -gt 1 ]; then
	die "the summary failed"
fi
if $ci; then
	exit "$status"
fi
