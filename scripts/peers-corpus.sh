#!/usr/bin/env bash
# Measures other offline MCP tool-poisoning scanners ("peers") on a
# labelled corpus the way scripts/audit-corpus.sh measures mcpv audit, so
# that the two sets of figures stand side by side:
#
#   bash scripts/peers-corpus.sh [--peer NAME]... [--details] [--cisco-rules DIR] CORPUS
#
# CORPUS is what audit-corpus.sh reads (servers/NAME.json and
# labels.jsonl). Every item of every server (instructions, tools, prompts,
# resources, resource templates) is given to each peer the way it reads
# MCP surfaces; every finding is mapped back to its item and its severity
# to mcpv's scale; then the tables of audit-corpus.sh are printed: found at
# medium+ and high+, false alarms at high+ and medium+, in all, by family,
# by language and by where; and the servers failing a gate at high.
# --details lists the misses and false alarms (not for a held-out corpus).
#
# Peers (default: cisco-yara ferret agent-security):
#   cisco-yara      Cisco AI Defense mcp-scanner 4.8.3's YARA rules, run by
#                   the yara command, on the texts its static analyzer
#                   gives them (a tool's description, and the tool less its
#                   description as Python's json.dumps writes it; a
#                   prompt's name, description and arguments; a resource's
#                   URI, name, description, MIME type and resources/read
#                   text, every MIME type let through; the instructions, as
#                   its instructions scan reads them). It reads no prompts/get
#                   message and no resource template. Severity: its own
#                   threat mapping (CODE EXECUTION low, every other high).
#   ferret          ferret-scan 2.10.0 (`ferret scan DIR`); it reads AI
#                   config files, not MCP lists, so each item is written as
#                   a markdown file of its own (every value of its list
#                   entry and of its prompts/get or resources/read result, a
#                   line each), where its instruction-file rules apply.
#                   Severity: its own, the same five words as mcpv's.
#   ferret-thorough the same with --thorough (every local analysis).
#   agent-security  agent-security-scanner-mcp 4.5.9: a server's tools
#                   through its manifest check (scan_mcp_server with
#                   manifest: true), everything else through
#                   scan_agent_prompt on the same text ferret is given.
#                   Severity: the package's own map, ERROR high, WARNING
#                   medium. See scripts/peers/asm.mjs.
#
# Installs, each pinned, go OUTSIDE the repository, into
# ${XDG_CACHE_HOME:-~/.cache}/mcpv/peers: the npm packages from
# scripts/peers/package-lock.json (npm ci --ignore-scripts), the Go helper
# scripts/peers (a module of its own), and mcp-scanner's rules at commit
# 893327c5 (4.8.3), checked against scripts/peers/cisco-rules.sha256 and
# taken, the first time, from --cisco-rules DIR: a clone of
# github.com/cisco-ai-defense/mcp-scanner (a git directory or a work tree
# with that commit) or its mcpscanner/data/yara_rules folder; mcp-scanner
# is a Python package, and no registry this runs against serves it. The
# yara command comes from
# the system's packages (apt-get install yara). The corpus is copied only
# into a temporary folder, removed at the end.
set -euo pipefail

cisco_commit=893327c54d223ea07296f68f32d8294f5c045f4a # mcp-scanner 4.8.3
die() { echo "peers-corpus: $*" >&2; exit 2; }
say() { echo "peers-corpus: $*" >&2; }

peers=() details="" cisco_rules=""
while [ $# -gt 1 ]; do
	case $1 in
	--peer) peers+=("$2"); shift ;;
	--details) details=--details ;;
	--cisco-rules) cisco_rules=$(cd "$2" && pwd -P) || die "no folder $2"; shift ;;
	*) die "unknown argument $1" ;;
	esac
	shift
done
[ $# -eq 1 ] || { sed -n '2,53p' "$0"; exit 2; }
corpus=$(cd "$1" && pwd -P) || die "no folder $1"
[ ${#peers[@]} -gt 0 ] || peers=(cisco-yara ferret agent-security)
for p in "${peers[@]}"; do
	case $p in cisco-yara | ferret | ferret-thorough | agent-security) ;; *) die "no peer $p (cisco-yara, ferret, ferret-thorough, agent-security)" ;; esac
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/peers" && pwd -P)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/mcpv/peers
mkdir -p "$cache"
command -v go >/dev/null || die "go is required"

# The Go helper, built once per content of its module.
key=$(cat "$here"/go.mod "$here"/*.go | sha256sum | cut -c1-12)
helper=$cache/helper-$key/peers
if [ ! -x "$helper" ]; then
	say "building the helper into $(dirname "$helper")"
	mkdir -p "$(dirname "$helper")"
	(cd "$here" && nice -n 19 go build -trimpath -o "$helper.tmp" .) || die "go build failed"
	mv "$helper.tmp" "$helper"
fi

need() { # the peers that need a thing
	local p
	for p in "${peers[@]}"; do
		case " $* " in *" $p "*) return 0 ;; esac
	done
	return 1
}

# The npm packages, at the versions package-lock.json pins.
if need ferret ferret-thorough agent-security; then
	command -v npm >/dev/null || die "npm is required"
	key=$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-12)
	npmdir=$cache/npm-$key
	if [ ! -f "$npmdir/.done" ]; then
		say "installing the npm peers into $npmdir (npm ci --ignore-scripts)"
		rm -rf "$npmdir" && mkdir -p "$npmdir"
		cp "$here/package.json" "$here/package-lock.json" "$npmdir/"
		(cd "$npmdir" && nice -n 19 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >npm-ci.log 2>&1) || die "npm ci failed: $npmdir/npm-ci.log"
		touch "$npmdir/.done"
	fi
fi

# mcp-scanner's YARA rules at the pinned commit, and a yara to run them.
if need cisco-yara; then
	rules=$cache/mcp-scanner-$cisco_commit/yara_rules
	if [ ! -f "$rules/.done" ]; then
		rm -rf "$rules" && mkdir -p "$rules"
		[ -n "$cisco_rules" ] || { rm -rf "$rules"; die "mcp-scanner's rules are not in $cache yet: give --cisco-rules, a clone of github.com/cisco-ai-defense/mcp-scanner (a git directory or a work tree) or its mcpscanner/data/yara_rules folder"; }
		if git --git-dir="$cisco_rules" cat-file -e "$cisco_commit^{commit}" 2>/dev/null; then
			git --git-dir="$cisco_rules" archive "$cisco_commit" mcpscanner/data/yara_rules | tar -x -C "$rules" --strip-components=3
		elif git -C "$cisco_rules" cat-file -e "$cisco_commit^{commit}" 2>/dev/null; then
			git -C "$cisco_rules" archive "$cisco_commit" mcpscanner/data/yara_rules | tar -x -C "$rules" --strip-components=3
		elif [ -d "$cisco_rules/mcpscanner/data/yara_rules" ]; then
			cp "$cisco_rules"/mcpscanner/data/yara_rules/*.yara "$rules/"
		else
			cp "$cisco_rules"/*.yara "$rules/"
		fi
		(cd "$rules" && sha256sum --quiet -c "$here/cisco-rules.sha256") || { rm -rf "$rules"; die "mcp-scanner's rules are not those of $cisco_commit"; }
		touch "$rules/.done"
	fi
	if ! command -v yara >/dev/null; then
		[ "$(id -u)" = 0 ] || die "yara is required: apt-get install yara"
		say "installing yara (apt-get install yara)"
		apt-get install -y -qq yara >/dev/null || die "apt-get install yara failed"
	fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mcpv-peers.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$helper" prepare "$corpus" "$work/in" || die "could not read $corpus"

for p in "${peers[@]}"; do
	w=$work/$p
	cp -r "$work/in" "$w"
	case $p in
	cisco-yara)
		version="mcp-scanner $cisco_commit (4.8.3) YARA rules, $(yara --version | head -1 | sed 's/^/yara /')"
		mapfile -t files < <(find "$rules" -name '*.yara' | sort)
		nice -n 19 yara -w -m -r "${files[@]}" "$w/cisco/texts" >"$w/cisco/yara.out" || die "yara failed"
		"$helper" cisco "$w"
		;;
	ferret | ferret-thorough)
		version="ferret-scan $(node -p "require('$npmdir/node_modules/ferret-scan/package.json').version")"
		extra=()
		[ "$p" = ferret-thorough ] && extra=(--thorough)
		rc=0
		(cd "$w/ferret" && NO_COLOR=1 nice -n 19 node "$npmdir/node_modules/ferret-scan/bin/ferret.js" scan surface "${extra[@]}" --format json -o report.json >scan.log 2>&1) || rc=$?
		# 1 and 2 say that it found something; 3 and the rest that it failed.
		{ [ "$rc" -le 2 ] && [ -f "$w/ferret/report.json" ]; } || { cat "$w/ferret/scan.log" >&2; die "ferret failed ($rc)"; }
		"$helper" ferret "$w"
		;;
	agent-security)
		version="agent-security-scanner-mcp $(node -p "require('$npmdir/node_modules/agent-security-scanner-mcp/package.json').version")"
		nice -n 19 node "$here/asm.mjs" "$npmdir/node_modules/agent-security-scanner-mcp" "$w" >"$w/asm.log" 2>&1 || { cat "$w/asm.log" >&2; die "agent-security-scanner-mcp failed"; }
		;;
	esac
	echo "peer: $p ($version)"
	"$helper" measure $details "$corpus" "$w/findings.jsonl"
	if [ "$p" = agent-security ]; then
		echo
		echo "as the tool reports them (its scan_mcp_server keeps one finding of a rule per server.json):"
		"$helper" measure "$corpus" "$w/findings-reported.jsonl" | sed -n '3,5p'
	fi
	echo
done
