# shellcheck shell=bash
# Sourced by the scripts that run npm packages (conformance suites, the
# everything server, the Inspector CLI, report checkers): each package set
# is pinned by a package.json and package-lock.json in the repository and
# installed outside it.

# npm_pinned SRC DEST: install in DEST, with npm ci, the tree that
# SRC/package.json and SRC/package-lock.json pin, unless DEST holds it
# already. On failure it prints the end of npm's log, leaves DEST to be
# installed again by the next run, and returns 1.
npm_pinned() {
	local src=$1 dest=$2
	if [ -d "$dest/node_modules" ] && cmp -s "$src/package-lock.json" "$dest/package-lock.json" &&
		cmp -s "$src/package.json" "$dest/package.json"; then
		return 0
	fi
	echo "installing the npm tree pinned in $src into $dest (npm ci)"
	mkdir -p "$dest" && cp "$src/package.json" "$src/package-lock.json" "$dest/" || return 1
	if ! (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error >"$dest/npm-ci.log" 2>&1); then
		tail -n 20 "$dest/npm-ci.log" >&2
		rm -f "$dest/package-lock.json"
		return 1
	fi
}
