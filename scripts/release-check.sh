#!/usr/bin/env bash
# Checks the release configuration (.goreleaser.yaml) and builds a snapshot
# release into dist/ without publishing anything, then checks what it built:
# the checksums, the contents of every archive, the version the host's binary
# reports, the npm packages packed from its binaries, and that the packaged
# man page renders.
#
#   bash scripts/release-check.sh
#
# For maintainers before tagging a release; not part of CI (it compiles
# six binaries). Needs go, git, tar, unzip and sha256sum (or shasum); man
# is used when present.
#
# GoReleaser is installed once, by version, into a cache outside the
# repository ($XDG_CACHE_HOME/mcpv/goreleaser, default ~/.cache/mcpv/goreleaser);
# later runs use it as it is. The first run downloads and compiles it, and
# says how long that took: 11 minutes (668 s) were measured on a busy
# two-core machine with Go's build cache empty and the modules already
# downloaded; allow more for the download on a cold machine. Remove the
# cache directory to install it again.
#
# Exit status: 0 all good, 1 a check failed, 2 missing tool.
set -euo pipefail

goreleaser_version=v2.15.1

die() {
	printf 'release-check: %s\n' "$*" >&2
	exit "${2:-1}"
}
for tool in go git tar unzip; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is required but was not found in PATH" 2
done
if command -v sha256sum >/dev/null 2>&1; then
	sha256=(sha256sum)
elif command -v shasum >/dev/null 2>&1; then
	sha256=(shasum -a 256)
else
	die "sha256sum or shasum is required" 2
fi

cd "$(dirname "$0")/.."

goreleaser_dir=${XDG_CACHE_HOME:-$HOME/.cache}/mcpv/goreleaser/$goreleaser_version
goreleaser=("$goreleaser_dir/goreleaser")
if [ ! -x "${goreleaser[0]}" ]; then
	echo "installing GoReleaser $goreleaser_version into $goreleaser_dir, once: this takes minutes (11 on a busy two-core machine)"
	start=$SECONDS
	mkdir -p "$goreleaser_dir"
	partial=$(mktemp -d "$goreleaser_dir/.install.XXXXXX")
	GOBIN=$partial go install "github.com/goreleaser/goreleaser/v2@$goreleaser_version" ||
		{ rm -rf "$partial"; die "could not install GoReleaser $goreleaser_version"; }
	mv "$partial/goreleaser" "${goreleaser[0]}"
	rm -rf "$partial"
	echo "installed GoReleaser in $((SECONDS - start))s"
fi

# GoReleaser reads the commit, its date and the remote's URL from git; a
# checkout without a remote gets the project's URL for this run only (the
# repository's own config is left as it is).
if [ -z "$(git remote)" ]; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/mcpv/mcpv.git
fi

# The SBOMs' generator, on PATH as the release workflow puts it; the
# checksums are not signed here (cosign signs keylessly, in the workflow).
sbomdir=$(mktemp -d)
trap 'rm -rf "$sbomdir"' EXIT
go -C scripts/sbom build -o "$sbomdir/mcpv-sbom" .
export PATH="$sbomdir:$PATH"

"${goreleaser[@]}" check
"${goreleaser[@]}" release --snapshot --clean --skip=publish --skip=sign

echo
echo "== checksums"
(cd dist && "${sha256[@]}" -c checksums.txt) || die "checksums.txt does not match the archives"

echo
echo "== archives"
want=(README.md LICENSE docs/guide/install.md docs/guide/exit-codes.md completions/mcpv.bash completions/_mcpv completions/mcpv.fish completions/mcpv.ps1 manpages/mcpv.1)
for archive in dist/*.tar.gz dist/*.zip; do
	case $archive in
	*.zip) list=$(unzip -Z1 "$archive") bin=mcpv.exe ;;
	*) list=$(tar -tzf "$archive") bin=mcpv ;;
	esac
	for f in "$bin" "${want[@]}"; do
		grep -qx "$f" <<<"$list" || die "$archive lacks $f"
	done
	printf '%10s  %s\n' "$(wc -c <"$archive" | tr -d ' ')" "$archive"
done

echo
echo "== SBOMs and Linux packages"
for archive in dist/*.tar.gz dist/*.zip; do
	[ -s "$archive.spdx.json" ] || die "$archive has no SBOM ($archive.spdx.json)"
done
for f in dist/mcpv_*_amd64.deb dist/mcpv_*_arm64.deb dist/mcpv-*.x86_64.rpm dist/mcpv-*.aarch64.rpm; do
	[ -s "$f" ] || die "no $f"
	printf '%10s  %s\n' "$(wc -c <"$f" | tr -d ' ')" "$f"
done

echo
echo "== the host's binary"
host=$(go env GOOS)_$(go env GOARCH)
bin=$(ls -d dist/mcpv_"$host"*/mcpv* 2>/dev/null | head -1)
[ -n "$bin" ] || die "no binary for $host in dist/"
"$bin" --version
"$bin" --version | grep -q "^mcpv v.* (commit [0-9a-f]\{12\}, built 20" || die "--version does not say version, commit and date"

echo
echo "== npm packages (scripts/npm-pack.sh, from the binaries in dist/)"
if command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1; then
	version=$(node -p 'require("./dist/metadata.json").version')
	bash scripts/npm-pack.sh --version "$version" --dist dist --out dist/npm || die "the npm packages could not be packed"
else
	echo "node or npm not found: the npm packages are not packed"
fi

if command -v man >/dev/null 2>&1; then
	echo
	echo "== the man page"
	page=$(mktemp -d)
	trap 'rm -rf "$page" "$sbomdir"' EXIT
	archive=$(ls dist/mcpv_*_"$(go env GOOS)"_*.tar.gz 2>/dev/null | head -1)
	if [ -n "$archive" ]; then
		tar -xzf "$archive" -C "$page" manpages/mcpv.1
		MANWIDTH=80 man -l "$page/manpages/mcpv.1" 2>&1 >"$page/shown" | grep -v "can't break line" >&2 || true
		head -20 "$page/shown"
		echo "... $(wc -l <"$page/shown" | tr -d ' ') lines"
	fi
fi

echo
echo "release-check: ok (dist/ holds the snapshot; nothing was published)"
