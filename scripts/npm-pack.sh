#!/usr/bin/env bash
# Writes mcpv's npm packages and packs each with npm pack: "mcpv", the
# launcher (scripts/npm-launcher/mcpv.js, no install script), and one
# package per platform, @mcpv/OS-CPU (linux, darwin, win32; x64, arm64),
# holding that platform's binary, which npm installs alone of the six
# (their os and cpu fields) as the launcher's optional dependency, each at
# the launcher's exact version. The release publishes the tarballs as they
# are (npm publish --provenance FILE.tgz, .github/workflows/release.yml).
#
#   bash scripts/npm-pack.sh --version 1.2.3 --dist dist --out dist/npm
#       the binaries GoReleaser built into dist/ (dist/mcpv_OS_ARCH*/mcpv),
#       every one of the six, byte for byte
#   bash scripts/npm-pack.sh --version 0.0.0-dev --host --out DIR
#       this machine's platform alone, built here as .goreleaser.yaml
#       builds a release (CGO_ENABLED=0, -trimpath, the same -ldflags)
#
# Prints the tarballs' paths, the launcher's first. Needs npm (and go with
# --host). Exit status: 0 packed, 1 failed, 2 bad arguments or a missing tool.
set -euo pipefail

die() {
	printf 'npm-pack: %s\n' "$1" >&2
	exit "${2:-1}"
}

version= dist= host= out=
while [ $# -gt 0 ]; do
	case $1 in
	--version) version=${2-} && shift ;;
	--dist) dist=${2-} && shift ;;
	--host) host=1 ;;
	--out) out=${2-} && shift ;;
	*) die "unknown argument $1" 2 ;;
	esac
	shift
done
[ -n "$out" ] || die "--out DIR is required" 2
[ -n "$dist" ] || [ -n "$host" ] || die "--dist DIR or --host is required" 2
# npm's semver, without build metadata; a tag's v is not part of it.
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] ||
	die "--version wants a version as npm writes it (1.2.3, 1.2.3-rc.1), not '$version'" 2
command -v npm >/dev/null 2>&1 || die "npm is required but was not found in PATH" 2
if [ -n "$host" ]; then
	command -v go >/dev/null 2>&1 || die "go is required for --host but was not found in PATH" 2
fi

repo=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Go's names, npm's names (process.platform, process.arch), and the names
# said in a description.
goos_of() { case $1 in win32) echo windows ;; *) echo "$1" ;; esac; }
goarch_of() { case $1 in x64) echo amd64 ;; *) echo "$1" ;; esac; }
said() { case $1 in linux) echo Linux ;; darwin) echo macOS ;; win32) echo Windows ;; *) echo "$1" ;; esac; }

platforms=(linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64)
if [ -n "$host" ]; then
	host_platform=$(node -p 'process.platform + "-" + process.arch')
	[[ " ${platforms[*]} " == *" $host_platform "* ]] || die "no mcpv release is built for $host_platform" 2
	packed=("$host_platform")
else
	packed=("${platforms[@]}")
fi

# The same build as a release's, for --host: .goreleaser.yaml's flags,
# with this checkout's commit and its date in place of the tag's.
host_build() { # OUTPUT
	local pkg=github.com/mcpv/mcpv/commands commit date
	commit=$(git -C "$repo" rev-parse HEAD 2>/dev/null || echo unknown)
	date=$(TZ=UTC git -C "$repo" log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null || echo unknown)
	(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$1" \
		-ldflags "-s -w -X $pkg.Version=v$version -X $pkg.Commit=$commit -X $pkg.Date=$date" .)
}

sha256() { if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1; }

pack() { # DIR: packs it into $out, prints the tarball's path
	local name
	name=$(cd "$1" && npm pack --silent --pack-destination "$out") || die "npm pack failed in $1"
	echo "$out/${name##*$'\n'}"
}

common_fields() { # NAME DESCRIPTION
	cat <<EOF
  "name": "$1",
  "version": "$version",
  "description": "$2",
  "license": "MIT",
  "homepage": "https://github.com/mcpv/mcpv",
  "repository": {
    "type": "git",
    "url": "git+https://github.com/mcpv/mcpv.git"
  },
EOF
}

tarballs=()
for p in "${packed[@]}"; do
	os=${p%-*} cpu=${p#*-}
	exe=mcpv
	[ "$os" = win32 ] && exe=mcpv.exe
	dir=$work/$p
	mkdir -p "$dir/bin"
	if [ -n "$host" ]; then
		host_build "$dir/bin/$exe"
	else
		# GoReleaser's directories: dist/mcpv_linux_amd64_v1, dist/mcpv_linux_arm64_v8.0, ...
		src=$(ls -d "$dist"/mcpv_"$(goos_of "$os")"_"$(goarch_of "$cpu")"*/"$exe" 2>/dev/null | head -1)
		[ -n "$src" ] || die "no $exe for $(goos_of "$os")/$(goarch_of "$cpu") in $dist"
		cp "$src" "$dir/bin/$exe"
	fi
	chmod 755 "$dir/bin/$exe"
	cp "$repo/LICENSE" "$dir/"
	{
		echo "{"
		common_fields "@mcpv/$p" "The mcpv binary for $(said "$os") on $cpu; install the mcpv package, which runs it"
		cat <<EOF
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/$exe"],
  "preferUnplugged": true
}
EOF
	} >"$dir/package.json"
	printf '# @mcpv/%s\n\nThe [mcpv](https://github.com/mcpv/mcpv) binary for %s on %s. Install `mcpv`, which\ninstalls this package on %s/%s and runs its binary: `npm install -g mcpv` or `npx -y mcpv --help`.\n' \
		"$p" "$(said "$os")" "$cpu" "$os" "$cpu" >"$dir/README.md"
	tarball=$(pack "$dir")
	# The binary in the tarball is the one given, byte for byte.
	mkdir -p "$work/check/$p"
	tar -xzf "$tarball" -C "$work/check/$p" "package/bin/$exe"
	[ "$(sha256 "$work/check/$p/package/bin/$exe")" = "$(sha256 "$dir/bin/$exe")" ] ||
		die "$tarball holds another binary than the one packed"
	[ -x "$work/check/$p/package/bin/$exe" ] || die "$tarball holds bin/$exe without its executable mode"
	tarballs+=("$tarball")
done

dir=$work/mcpv
mkdir -p "$dir/bin"
cp "$repo/scripts/npm-launcher/mcpv.js" "$dir/bin/mcpv.js"
chmod 755 "$dir/bin/mcpv.js"
cp "$repo/LICENSE" "$repo/scripts/npm-launcher/README.md" "$dir/"
{
	echo "{"
	common_fields mcpv "Scriptable command-line client for the Model Context Protocol (MCP)"
	cat <<EOF
  "keywords": ["mcp", "model-context-protocol", "cli"],
  "bin": {
    "mcpv": "bin/mcpv.js"
  },
  "files": ["bin/mcpv.js"],
  "engines": {
    "node": ">=18"
  },
  "optionalDependencies": {
EOF
	for p in "${platforms[@]}"; do
		[ "$p" = "${platforms[-1]}" ] && comma= || comma=,
		echo "    \"@mcpv/$p\": \"$version\"$comma"
	done
	echo "  }"
	echo "}"
} >"$dir/package.json"
launcher=$(pack "$dir")

echo "$launcher"
printf '%s\n' "${tarballs[@]}"
