#!/usr/bin/env bash
# Measures mcpv audit on a corpus of servers written by someone who has
# not read its rules, or on a field set of real servers' surfaces:
#
#   bash scripts/audit-corpus.sh [--mcpv BINARY] [--details] CORPUS
#
# CORPUS is a folder with servers/NAME.json (what a client sees of each
# server: serverInfo, instructions, tools, prompts, resources,
# resourceTemplates) and labels.jsonl (a line per item: server, kind,
# name, poisoned, family, where, language); a folder with no labels.jsonl
# is a field set, every item of it honest. Each server is written as a
# saved surface and audited alone by BINARY (default: mcpv built from this
# checkout, OUTSIDE the repository, in ${TMPDIR:-/tmp}/mcpv-audit-corpus),
# so that an old mcpv can be measured on the same corpus.
#
# It prints, in all, by family, by language and by where the poisoned text
# is: the poisoned items found (a finding of medium or above; and of high
# or above), and the false alarms (honest items with a finding of high or
# above, the default gate of mcpv audit, and of medium or above); then the
# servers the default gate fails. --details lists every miss and every
# false alarm with its findings (do not share those of a held-out corpus).
# The test it runs is TestBlindCorpus in internal/audit/corpus_test.go.
set -euo pipefail

die() { echo "audit-corpus: $*" >&2; exit 2; }
mcpv="" details=""
while [ $# -gt 1 ]; do
	case $1 in
	--mcpv) mcpv=$2; shift ;;
	--details) details=1 ;;
	*) die "unknown argument $1" ;;
	esac
	shift
done
[ $# -eq 1 ] || { sed -n '2,22p' "$0"; exit 2; }
corpus=$(cd "$1" && pwd -P) || die "no folder $1"
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
command -v go >/dev/null || die "go is required"
if [ -z "$mcpv" ]; then
	dir=${TMPDIR:-/tmp}/mcpv-audit-corpus
	mkdir -p "$dir"
	(cd "$repo" && go build -o "$dir/mcpv" .) || die "go build failed"
	mcpv=$dir/mcpv
fi
mcpv=$(cd "$(dirname "$mcpv")" && pwd -P)/$(basename "$mcpv")
[ -x "$mcpv" ] || die "$mcpv is not an executable"
report=$(mktemp "${TMPDIR:-/tmp}/mcpv-audit-corpus.XXXXXX")
trap 'rm -f "$report"' EXIT
out=$(cd "$repo" && MCPV_AUDIT_CORPUS=$corpus MCPV_AUDIT_BINARY=$mcpv MCPV_AUDIT_REPORT=$report MCPV_AUDIT_DETAILS=$details \
	go test -tags e2e -count=1 -timeout 60m -run '^TestBlindCorpus$' ./internal/audit 2>&1) || { echo "$out" >&2; die "the harness failed"; }
echo "mcpv: $mcpv ($("$mcpv" --version 2>/dev/null | head -1))"
cat "$report"
