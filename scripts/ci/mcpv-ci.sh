#!/usr/bin/env bash
# mcpv in CI: installs an mcpv release and runs `mcpv test`. The GitHub
# Action (action.yml at the repository's root) runs its two steps; any other
# CI system can run them as they are (docs/guide/ci.md).
#
#   bash mcpv-ci.sh source     fetch a ref of mcpv's repository, to build; prints its directory
#   bash mcpv-ci.sh install    install the release for this machine, or build the source
#                              fetched; prints the binary's path
#   bash mcpv-ci.sh test       run mcpv test; write the report and a Markdown summary
#   bash mcpv-ci.sh trust      run mcpv pin --check, mcpv diff and mcpv audit, as asked
#   bash mcpv-ci.sh run        test when files are named, then trust: the action's step
#
# source reads
#   MCPV_REF          the branch, tag or commit of mcpv to build (required)
#   MCPV_REPOSITORY   the repository to fetch it from: a URL git clones, or a
#                     local repository (default https://github.com/mcpv/mcpv)
# It clones the repository without its files, checks out MCPV_REF and, on
# GitHub, sets the step outputs dir and go-mod (for actions/setup-go).
#
# install reads
#   MCPV_SOURCE       a checkout of mcpv (source's dir) to build with the go on
#                     PATH, instead of installing a release
#   MCPV_VERSION      latest (the default), or a release's tag: v1.2.3
#   MCPV_RELEASE_URL  where the release's files are (default: the GitHub release
#                     of MCPV_VERSION); https://, http:// or file://
#   MCPV_RELEASES     the releases of another repository, a fork's
#                     (default https://github.com/mcpv/mcpv/releases)
#   MCPV_INSTALL_DIR  where the binary goes (default: a directory under
#                     RUNNER_TEMP, TMPDIR or /tmp)
# It downloads checksums.txt, picks the archive of this OS and architecture
# from it, downloads that archive, refuses it unless its SHA-256 is the one
# checksums.txt gives, and unpacks the binary. On GitHub it adds the
# directory to GITHUB_PATH and sets the step outputs path and version.
#
# test reads
#   MCPV              the mcpv binary (default: mcpv on PATH)
#   MCPV_FILES        the test files and directories, one a line (required:
#                     files named on the command line need no trust)
#   MCPV_FORMAT       junit (the default), tap or json: the report's format
#   MCPV_REPORT       the report's file (default mcpv-junit.xml, mcpv-report.tap
#                     or mcpv-report.json)
#   MCPV_ARGS         more arguments for mcpv test, as words; quote a word that
#                     holds spaces ('--filter "smoke/lists tools"'); nothing is expanded
#   MCPV_JOB_SUMMARY  false: no summary (default true)
# The text report goes to stdout, the report to MCPV_REPORT; on GitHub a
# Markdown summary is added to GITHUB_STEP_SUMMARY and the step outputs
# exit-code and report are set.
#
# trust reads (each check runs when its variable is set)
#   MCPV_PIN_CHECK    a pin file: mcpv pin --check FILE MCPV_PIN_ARGS (which name
#                     the servers: --all, -s NAME, -- COMMAND...); exit 7 when one moved
#   MCPV_DIFF         mcpv diff's words: OLD [NEW] and how to reach a live server
#   MCPV_DIFF_FAIL_ON breaking, security, any (the default) or none
#   MCPV_COST         mcpv cost's words: --all, FILEs, or a server
#   MCPV_COST_BUDGET  the most tokens the surface may cost (its total); over it fails
#   MCPV_AUDIT        mcpv audit's words: --all, FILEs, or a server
#   MCPV_AUDIT_FAIL_ON  critical, high (the default), medium, low, info or none
#   MCPV_AUDIT_SARIF  the SARIF report's file, for code scanning (default
#                     mcpv-audit.sarif)
# Each check's output goes to stdout and the job summary; on GitHub the step
# outputs trust-exit-code and audit-sarif are set. The exit code is the first
# check's that failed.
#
# Needs bash (3.2 or later), curl (or wget for https://), tar, awk and
# sha256sum or shasum; unzip (or PowerShell) on Windows; git and go to
# build from source.
# Exit status: source: 0 fetched, 1 the repository or the ref could not be
# fetched. install: 0 installed, 1 a download failed, a checksum did not
# match or the build failed, 2 bad input or a missing tool. test: the exit code of mcpv test
# (0 everything passed, 1 a step failed, 2 a mistake in a file, 4 a server
# unreachable, ...), or 2 for bad input.
set -euo pipefail

die() { # MESSAGE [CODE]
	printf 'mcpv-ci: %s\n' "$1" >&2
	exit "${2:-2}"
}
say() { printf 'mcpv-ci: %s\n' "$*" >&2; }

# posix PATH is PATH as bash writes it: a runner's Windows paths become
# Git Bash's (D:\a\_temp is /d/a/_temp).
posix() {
	if command -v cygpath >/dev/null 2>&1; then cygpath -u "$1"; else printf '%s\n' "$1"; fi
}
temp=$(posix "${RUNNER_TEMP:-${TMPDIR:-/tmp}}")

# scratch makes the directory work, removed when the script exits.
work=
scratch() {
	work=$(mktemp -d "$temp/mcpv-ci.XXXXXX")
	trap 'rm -rf "$work"' EXIT
}

# github_set FILE-VARIABLE LINE appends LINE to the file a GitHub runner
# named in that variable, when there is one.
github_set() {
	local file=${!1:-}
	[ -z "$file" ] || printf '%s\n' "$2" >>"$file"
}

# native PATH is PATH as the OS's own programs write it (Windows paths
# under Git Bash), for what the runner reads.
native() {
	if command -v cygpath >/dev/null 2>&1; then cygpath -w "$1"; else printf '%s\n' "$1"; fi
}

sha256() { # FILE: prints the file's SHA-256 in hex
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | awk '{print $1}'
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | awk '{print $1}'
	else
		die "sha256sum or shasum is required but was not found in PATH"
	fi
}

fetch() { # URL FILE
	if command -v curl >/dev/null 2>&1; then
		curl -fsSL --retry 3 -o "$2" "$1" || die "could not download $1" 1
	elif command -v wget >/dev/null 2>&1 && [ "${1#file://}" = "$1" ]; then
		wget -q -O "$2" "$1" || die "could not download $1" 1
	else
		die "curl is required but was not found in PATH"
	fi
}

# platform prints the release's name for this OS and architecture, as the
# archives are named: linux_amd64, darwin_arm64, windows_amd64...
platform() {
	local os arch
	case ${RUNNER_OS:-$(uname -s)} in
	Linux | linux) os=linux ;;
	macOS | Darwin) os=darwin ;;
	Windows | MINGW* | MSYS* | CYGWIN*) os=windows ;;
	*) die "no mcpv release for the OS ${RUNNER_OS:-$(uname -s)}" ;;
	esac
	case ${RUNNER_ARCH:-$(uname -m)} in
	X64 | x86_64 | amd64) arch=amd64 ;;
	ARM64 | arm64 | aarch64) arch=arm64 ;;
	*) die "no mcpv release for the architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
	esac
	printf '%s_%s\n' "$os" "$arch"
}

# source fetches MCPV_REF of MCPV_REPOSITORY into a directory of its own,
# for install to build: mcpv before its first release, or at any commit.
source_ref() {
	local ref=${MCPV_REF:-} repo=${MCPV_REPOSITORY:-https://github.com/mcpv/mcpv} dir
	[ -n "$ref" ] || die "name the ref of mcpv to build (ref: a branch, tag or commit)"
	case $ref in -*) die "the ref \"$ref\" starts with a dash: give a branch, tag or commit" ;; esac
	command -v git >/dev/null 2>&1 || die "git is required but was not found in PATH"
	dir=${MCPV_SOURCE_DIR:-$temp/mcpv-source}
	rm -rf "$dir"
	git clone --quiet --no-checkout --filter=blob:none -- "$repo" "$dir" 2>/dev/null ||
		git clone --quiet --no-checkout -- "$repo" "$dir" || die "could not clone $repo" 1
	git -C "$dir" -c advice.detachedHead=false checkout --quiet "$ref" -- 2>/dev/null ||
		git -C "$dir" -c advice.detachedHead=false checkout --quiet "origin/$ref" -- 2>/dev/null ||
		die "$repo has no branch, tag or commit \"$ref\"" 1
	[ -f "$dir/go.mod" ] || die "$ref of $repo holds no go.mod: not mcpv's source" 1
	say "$repo at $ref: $(git -C "$dir" rev-parse HEAD)"
	github_set GITHUB_OUTPUT "dir=$(native "$dir")"
	github_set GITHUB_OUTPUT "go-mod=$(native "$dir/go.mod")"
	printf '%s\n' "$dir"
}

# build builds the checkout in MCPV_SOURCE with the go on PATH (which
# actions/setup-go puts there, at the version go.mod asks for), as a
# release is built but for its version: the checkout's commit says it.
build() {
	local src bin exe= version
	src=$(posix "$MCPV_SOURCE")
	[ -f "$src/go.mod" ] || die "$src is not a checkout of mcpv (no go.mod)"
	command -v go >/dev/null 2>&1 || die "go is required to build mcpv but was not found in PATH (actions/setup-go puts it there)"
	case $(platform) in windows_*) exe=.exe ;; esac
	bin=${MCPV_INSTALL_DIR:-$temp/mcpv-build}
	mkdir -p "$bin"
	(cd "$src" && CGO_ENABLED=0 go build -trimpath -buildvcs=auto -ldflags "-s -w" -o "$bin/mcpv$exe" .) || die "could not build mcpv in $src" 1
	"$bin/mcpv$exe" --version >&2 || die "$bin/mcpv$exe does not run" 1
	version=$("$bin/mcpv$exe" --version | awk '{ print $2; exit }')
	say "built $bin/mcpv$exe from $src"
	github_set GITHUB_PATH "$(native "$bin")"
	github_set GITHUB_OUTPUT "path=$(native "$bin/mcpv$exe")"
	github_set GITHUB_OUTPUT "version=$version"
	printf '%s\n' "$bin/mcpv$exe"
}

install() {
	if [ -n "${MCPV_SOURCE:-}" ]; then
		build
		return
	fi
	local version=${MCPV_VERSION:-latest} base plat sums archive want got stem bin exe=
	local releases=${MCPV_RELEASES:-https://github.com/mcpv/mcpv/releases}
	case $version in
	latest) base=$releases/latest/download ;;
	v[0-9]*) base=$releases/download/$version ;;
	[0-9]*) version=v$version base=$releases/download/$version ;; # (assigned left to right)
	*) die "version must be latest or a release's tag (v1.2.3), not \"$version\"" ;;
	esac
	base=${MCPV_RELEASE_URL:-$base}
	base=${base%/}
	plat=$(platform)
	command -v tar >/dev/null 2>&1 || die "tar is required but was not found in PATH"
	command -v awk >/dev/null 2>&1 || die "awk is required but was not found in PATH"

	scratch
	fetch "$base/checksums.txt" "$work/checksums.txt"
	# One line per file: "HEX  NAME". The version is whatever the release
	# says (a snapshot's is 1.2.4-SNAPSHOT-0123abc); a tag asks for its own.
	sums=$(awk -v plat="$plat" '$2 ~ ("^mcpv_[^_/]+_" plat "[.](tar[.]gz|zip)$") { print }' "$work/checksums.txt")
	case $(printf '%s' "$sums" | awk 'END { print NR }') in
	1) ;;
	0) die "the release at $base has no archive for $plat" 1 ;;
	*) die "the release at $base has more than one archive for $plat" 1 ;;
	esac
	want=${sums%% *}
	archive=${sums##* }
	if [ "$version" != latest ] && [ "${archive#mcpv_"${version#v}"_}" = "$archive" ]; then
		die "the release at $base is not $version: it holds $archive" 1
	fi
	fetch "$base/$archive" "$work/$archive"
	got=$(sha256 "$work/$archive")
	[ "$got" = "$want" ] || die "$archive does not match checksums.txt (sha256 $got, expected $want): refused" 1
	say "$archive: sha256 $got, as checksums.txt says"

	case $plat in windows_*) exe=.exe ;; esac
	stem=${archive%.tar.gz}
	bin=${MCPV_INSTALL_DIR:-$temp/${stem%.zip}}
	mkdir -p "$bin"
	case $archive in
	*.zip)
		if command -v unzip >/dev/null 2>&1; then
			unzip -o -q "$work/$archive" "mcpv$exe" -d "$bin" || die "could not unpack $archive" 1
		else
			powershell -NoProfile -Command "Expand-Archive -Force -LiteralPath '$(native "$work/$archive")' -DestinationPath '$(native "$work/unpacked")'" ||
				die "could not unpack $archive" 1
			mv "$work/unpacked/mcpv$exe" "$bin/"
		fi
		;;
	*) tar -xzf "$work/$archive" -C "$bin" "mcpv$exe" || die "could not unpack $archive" 1 ;;
	esac
	"$bin/mcpv$exe" --version >&2 || die "$bin/mcpv$exe does not run" 1
	version=$("$bin/mcpv$exe" --version | awk '{ print $2; exit }')

	github_set GITHUB_PATH "$(native "$bin")"
	github_set GITHUB_OUTPUT "path=$(native "$bin/mcpv$exe")"
	github_set GITHUB_OUTPUT "version=$version"
	printf '%s\n' "$bin/mcpv$exe"
}

# words TEXT prints TEXT's words, each followed by a NUL: split at blanks,
# with quotes and backslashes as xargs reads them and nothing expanded.
words() {
	case $1 in *[![:space:]]*) ;; *) return 0 ;; esac
	printf '%s\n' "$1" | xargs printf '%s\0' || die "cannot split the arguments $1 into words (an unmatched quote?)"
}

# meaning CODE: what an exit code of mcpv test says, as the README's table has it.
meaning() {
	case $1 in
	0) echo "passed" ;;
	1) echo "a step failed" ;;
	2) echo "a mistake in a test file or in the arguments, found before any server started" ;;
	3) echo "a server answered with a JSON-RPC error" ;;
	4) echo "a server could not be started or reached, or broke the protocol" ;;
	5) echo "authentication or authorization failed or is required" ;;
	7) echo "a server moved from its pin" ;;
	124) echo "a timeout expired" ;;
	130) echo "interrupted" ;;
	*) echo "exit $1" ;;
	esac
}

# html TEXT-FILE prints the file escaped for HTML, for a <pre> block.
html() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' "$1"; }

# junit_markdown FILE prints a table of the JUnit report's files and a list
# of its failed steps. Our JUnit writer puts each element on its own line,
# attributes escaped (no raw quote inside a value), which is all this reads.
junit_markdown() {
	awk '
	function attr(line, name) {
		if (!match(line, " " name "=\"[^\"]*\"")) return ""
		return substr(line, RSTART + length(name) + 3, RLENGTH - length(name) - 4)
	}
	function md(s,    out, i, c) { # a backslash before each character Markdown would read
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (index("\\`*_[]|~", c)) out = out "\\"
			out = out c
		}
		return out
	}
	/^ *<testsuite / {
		tests = attr($0, "tests"); f = attr($0, "failures"); e = attr($0, "errors"); sk = attr($0, "skipped")
		rows[++n] = "| " md(attr($0, "name")) " | " md(attr($0, "file")) " | " (tests - f - e - sk) " | " (f + e) " | " (sk + 0) " | " attr($0, "time") " s |"
		suite = attr($0, "name")
	}
	/^ *<testcase / { step = attr($0, "name"); file = attr($0, "file"); line = attr($0, "line") }
	/^ *<(failure|error) / {
		where = file (line != "" ? ":" line : "")
		bad[++m] = "- **" md(suite) "** › " md(step) " (`" where "`): " md(attr($0, "message"))
	}
	END {
		if (n == 0) exit
		print "| file | path | passed | failed | skipped | time |"
		print "| --- | --- | ---: | ---: | ---: | ---: |"
		for (i = 1; i <= n; i++) print rows[i]
		if (m > 0) { print ""; print "**Failed**"; print ""; for (i = 1; i <= m; i++) print bad[i] }
	}' "$1"
}

# summary CODE TEXT-REPORT STDERR FORMAT REPORT prints the job summary in
# Markdown.
summary() {
	local verdict last
	last=$(awk 'NF { l = $0 } END { print l }' "$2")
	if [ "$1" = 0 ]; then verdict="✅ mcpv test passed"; else verdict="❌ mcpv test failed (exit $1: $(meaning "$1"))"; fi
	printf '### %s\n\n' "$verdict"
	[ -z "$last" ] || printf '%s\n\n' "$last" # mcpv test's own line: PASS 2 passed, 0 failed (...)
	if [ "$4" = junit ] && [ -s "$5" ]; then
		junit_markdown "$5"
		echo
	fi
	if [ -s "$2" ] || [ -s "$3" ]; then
		printf '<details%s><summary>The report</summary>\n\n<pre>\n' "$([ "$1" = 0 ] || echo ' open')"
		html "$2"
		html "$3"
		printf '</pre>\n</details>\n\n'
	fi
}

run_test() {
	local mcpv format=${MCPV_FORMAT:-junit} report line code
	local -a files args
	mcpv=mcpv
	[ -z "${MCPV:-}" ] || mcpv=$(posix "$MCPV")
	case $format in
	junit) report=${MCPV_REPORT:-mcpv-junit.xml} ;;
	tap) report=${MCPV_REPORT:-mcpv-report.tap} ;;
	json) report=${MCPV_REPORT:-mcpv-report.json} ;;
	*) die "format must be junit, tap or json, not \"$format\"" ;;
	esac
	files=()
	while IFS= read -r line; do
		line=$(printf '%s' "$line" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//')
		case $line in
		'') ;;
		-*) files+=("./$line") ;; # a name, not a flag
		*) files+=("$line") ;;
		esac
	done <<<"${MCPV_FILES:-}"
	[ ${#files[@]} -gt 0 ] || die "name the test files to run (files, one a line): files named on the command line need no trust"
	scratch
	words "${MCPV_ARGS:-}" >"$work/args"
	args=()
	while IFS= read -r -d '' line; do args+=("$line"); done <"$work/args"
	command -v "$mcpv" >/dev/null 2>&1 || die "$mcpv is not installed (run mcpv-ci.sh install first)"
	mkdir -p "$(dirname "$report")" # a report in a directory of its own, as CI systems collect them
	rm -f "$report"                  # the report output names this run's report or none

	set +e
	"$mcpv" test --format "$format" --output "$report" ${args[@]+"${args[@]}"} "${files[@]}" 2>"$work/stderr" | tee "$work/text"
	code=${PIPESTATUS[0]}
	set -e
	cat "$work/stderr" >&2

	case $report in /* | [A-Za-z]:*) ;; *) report=$PWD/$report ;; esac
	if [ "${MCPV_JOB_SUMMARY:-true}" != false ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		summary "$code" "$work/text" "$work/stderr" "$format" "$report" >>"$GITHUB_STEP_SUMMARY"
	fi
	github_set GITHUB_OUTPUT "exit-code=$code"
	if [ -f "$report" ]; then github_set GITHUB_OUTPUT "report=$(native "$report")"; fi
	exit "$code"
}

# trust_check TITLE WORDS... runs mcpv with WORDS, its output
# to stdout and, on GitHub, in a block of the job summary; it returns
# mcpv's exit code.
trust_check() {
	local title=$1 code
	shift
	set +e
	"$mcpv" "$@" >"$work/out" 2>"$work/err"
	code=$?
	set -e
	cat "$work/out"
	cat "$work/err" >&2
	if [ "${MCPV_JOB_SUMMARY:-true}" != false ] && [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
		{
			case $code in
			0) printf '### ✅ %s passed\n\n' "$title" ;;
			1) printf '### ❌ %s failed (exit 1: found what --fail-on fails on)\n\n' "$title" ;;
			*) printf '### ❌ %s failed (exit %s: %s)\n\n' "$title" "$code" "$(meaning "$code")" ;;
			esac
			printf '<details%s><summary>%s</summary>\n\n<pre>\n' "$([ "$code" = 0 ] || echo ' open')" "$title"
			html "$work/out"
			html "$work/err"
			printf '</pre>\n</details>\n\n'
		} >>"$GITHUB_STEP_SUMMARY"
	fi
	return "$code"
}

# read_words VARIABLE-VALUE: the words of a value, into the array words_out.
read_words() {
	words "$1" >"$work/words"
	words_out=()
	local w
	while IFS= read -r -d '' w; do words_out+=("$w"); done <"$work/words"
}

run_trust() {
	local code=0 c sarif budget
	local -a words_out
	mcpv=mcpv
	[ -z "${MCPV:-}" ] || mcpv=$(posix "$MCPV")
	command -v "$mcpv" >/dev/null 2>&1 || die "$mcpv is not installed (run mcpv-ci.sh install first)"
	scratch
	if [ -n "${MCPV_PIN_CHECK:-}" ]; then
		read_words "${MCPV_PIN_ARGS:-}"
		c=0
		trust_check "mcpv pin --check" pin --check "$MCPV_PIN_CHECK" ${words_out[@]+"${words_out[@]}"} || c=$?
		[ "$code" != 0 ] || code=$c
	fi
	if [ -n "${MCPV_DIFF:-}" ]; then
		read_words "$MCPV_DIFF"
		c=0
		trust_check "mcpv diff" diff --fail-on "${MCPV_DIFF_FAIL_ON:-any}" "${words_out[@]}" || c=$?
		[ "$code" != 0 ] || code=$c
	fi
	if [ -n "${MCPV_COST:-}" ]; then
		read_words "$MCPV_COST"
		c=0
		budget=${MCPV_COST_BUDGET:-null}
		case $budget in null | [0-9] | [1-9]*[0-9]) ;; *) die "cost-budget: want a number of tokens, not $budget" ;; esac
		trust_check "mcpv cost" cost --jq-argjson budget "$budget" -r -e \
			-q '"\(.total) tokens (\(.tokenizer), as \(.as))" + if $budget then "; budget \($budget)" else "" end, ($budget == null or .total <= $budget)' \
			"${words_out[@]}" || c=$?
		[ "$code" != 0 ] || code=$c
	fi
	if [ -n "${MCPV_AUDIT:-}" ]; then
		read_words "$MCPV_AUDIT"
		sarif=${MCPV_AUDIT_SARIF:-mcpv-audit.sarif}
		mkdir -p "$(dirname "$sarif")"
		rm -f "$sarif"
		c=0
		trust_check "mcpv audit" audit --fail-on "${MCPV_AUDIT_FAIL_ON:-high}" --format sarif --output "$sarif" "${words_out[@]}" || c=$?
		[ "$code" != 0 ] || code=$c
		case $sarif in /* | [A-Za-z]:*) ;; *) sarif=$PWD/$sarif ;; esac
		if [ -f "$sarif" ]; then github_set GITHUB_OUTPUT "audit-sarif=$(native "$sarif")"; fi
	fi
	github_set GITHUB_OUTPUT "trust-exit-code=$code"
	return "$code"
}

# run_all is the action's step: mcpv test when files are named, then the
# trust checks asked for; its exit code is the first that failed.
run_all() {
	local code=0 c
	case ${MCPV_FILES:-} in
	*[![:space:]]*)
		c=0
		(run_test) || c=$?
		code=$c
		;;
	*)
		[ -n "${MCPV_PIN_CHECK:-}${MCPV_DIFF:-}${MCPV_COST:-}${MCPV_AUDIT:-}" ] ||
			die "name the test files to run (files, one a line: files named on the command line need no trust), or pin-check, diff, cost or audit"
		;;
	esac
	c=0
	run_trust || c=$?
	[ "$code" != 0 ] || code=$c
	exit "$code"
}

case ${1:-} in
source) source_ref ;;
install) install ;;
test) run_test ;;
trust)
	c=0
	run_trust || c=$?
	exit "$c"
	;;
run) run_all ;;
*) die "usage: mcpv-ci.sh source|install|test|trust|run (the variables each reads are at the top of the script)" ;;
esac
