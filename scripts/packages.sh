#!/usr/bin/env bash
# Builds what the release makes for Linux beside its archives, as the
# release makes it, into OUT, for CI (e2e TestPackages*, TestImage*,
# TestSBOM*, TestSignedChecksums) and for a look before tagging:
#
#   bash scripts/packages.sh OUT
#
#   OUT/mcpv_linux_amd64/mcpv, OUT/mcpv_linux_arm64/mcpv
#                     static binaries, as .goreleaser.yaml's builds make them
#   OUT/mcpv_*.deb, OUT/mcpv-*.rpm
#                     .goreleaser.yaml's nfpms entry, packed by nfpm's library
#                     (scripts/nfpm, a module of its own, built from the Go
#                     module proxy once into $XDG_CACHE_HOME/mcpv/nfpm,
#                     default ~/.cache/mcpv/nfpm, keyed by its files)
#   OUT/mcpv-image.tar
#                     the container image, both platforms, as an OCI image
#                     layout (scripts/image, a module of its own), unpacked as
#                     built by skopeo and umoci (Debian's packages,
#                     installed as root with apt-get where missing), each
#                     platform by its tag: a tool that cannot be had or
#                     cannot unpack it fails the build
#   OUT/mcpv_*_linux_*.tar.gz, OUT/*.tar.gz.spdx.json
#                     the Linux archives and an SBOM of each (mcpv-sbom,
#                     scripts/sbom, a module of its own with no
#                     dependencies), as the release writes them
#   OUT/checksums.txt, OUT/checksums.txt.sig, OUT/signer.pub, OUT/allowed_signers
#                     the checksums, signed with a key made for this run by
#                     ssh-keygen -Y sign (the release signs keylessly with
#                     cosign, which CI cannot reach: docs/guide/install.md)
#
# The version is 0.0.0-SNAPSHOT-ci, the commit and date this checkout's
# (or fixed ones outside git). build/ is written as the release's before
# hooks write it (the man page and the completions the packages take);
# like the release, this replaces it.
#
# Exit status: 0 built, 1 a step failed, 2 usage or missing tool.
set -euo pipefail
die() { echo "packages.sh: $*" >&2; exit "${2:-1}"; }
[ $# = 1 ] || die "usage: bash scripts/packages.sh OUT" 2
for tool in go gzip sha256sum ssh-keygen; do
	command -v "$tool" >/dev/null 2>&1 || die "$tool is required" 2
done
mkdir -p "$1"
out=$(cd "$1" && pwd)
cd "$(dirname "$0")/.."
start=$SECONDS

version=0.0.0-SNAPSHOT-ci
commit=$(git rev-parse HEAD 2>/dev/null || echo 0123456789abcdef0123456789abcdef01234567)
date=$(git log -1 --format=%cI HEAD 2>/dev/null || echo 2026-01-02T03:04:05Z)
date=$(TZ=UTC date -d "$date" +%Y-%m-%dT%H:%M:%SZ)

# nfpm's library, built once (a few hundred modules' worth of packages:
# seconds with them in Go's caches, a minute or two without).
nfpm_key=$(cat scripts/nfpm/go.mod scripts/nfpm/go.sum scripts/nfpm/main.go | sha256sum | cut -c1-12)
nfpm_dir=${XDG_CACHE_HOME:-$HOME/.cache}/mcpv/nfpm/$nfpm_key
nfpm=$nfpm_dir/nfpm
if [ ! -x "$nfpm" ]; then
	t=$SECONDS
	mkdir -p "$nfpm_dir"
	(cd scripts/nfpm && go build -trimpath -o "$nfpm.tmp" .) || { rm -f "$nfpm.tmp"; die "building scripts/nfpm failed"; }
	mv "$nfpm.tmp" "$nfpm"
	echo "built scripts/nfpm into $nfpm_dir in $((SECONDS - t))s"
fi

# The builds of .goreleaser.yaml, for Linux.
pkg=github.com/mcpv/mcpv/commands
for arch in amd64 arm64; do
	mkdir -p "$out/mcpv_linux_$arch"
	CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath \
		-ldflags "-s -w -X $pkg.Version=v$version -X $pkg.Commit=$commit -X $pkg.Date=$date" \
		-o "$out/mcpv_linux_$arch/mcpv" .
done

# The before hooks' man page and completions (.goreleaser.yaml).
rm -rf build
mkdir -p build/completions build/manpages
go run ./commands/mcpv-release man -version "v$version" -date "$date" -o build/manpages/mcpv.1
gzip -9nkf build/manpages/mcpv.1
host=$out/mcpv_linux_$(go env GOARCH)/mcpv
for s in bash:mcpv.bash zsh:_mcpv fish:mcpv.fish powershell:mcpv.ps1; do
	"$host" completions "${s%%:*}" >"build/completions/${s#*:}"
done

"$nfpm" -config .goreleaser.yaml -version "$version" -date "$date" \
	-bin "linux/amd64=$out/mcpv_linux_amd64/mcpv" -bin "linux/arm64=$out/mcpv_linux_arm64/mcpv" -o "$out"

go -C scripts/image run . -version "v$version" -revision "$commit" -created "$date" -license "$PWD/LICENSE" \
	-bin "linux/amd64=$out/mcpv_linux_amd64/mcpv" -bin "linux/arm64=$out/mcpv_linux_arm64/mcpv" \
	-o "$out/mcpv-image.tar" >"$out/mcpv-image.digest"

# The image as built, unpacked by the tools that read a layout without a
# daemon, each platform by its tag (v...-linux-ARCH): skopeo copies it out
# of the tar, umoci unpacks the layout itself into a runtime bundle, and
# each bundle's mcpv is that platform's build. Another apt-get (CI's) may
# hold dpkg's lock: it is waited for.
apt_install() {
	[ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 0
	local i apt=(apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "$@")
	DEBIAN_FRONTEND=noninteractive "${apt[@]}" >/dev/null 2>&1 && return
	for i in 1 2 3 4 5 6; do
		apt-get -o DPkg::Lock::Timeout=900 update -qq >/dev/null 2>&1 && break
		sleep 20
	done
	DEBIAN_FRONTEND=noninteractive "${apt[@]}" >/dev/null 2>&1 || true
}
command -v umoci >/dev/null && command -v skopeo >/dev/null || apt_install umoci skopeo
for tool in umoci skopeo; do
	command -v "$tool" >/dev/null || die "$tool is required to unpack the image (Debian: apt-get install umoci skopeo)" 2
done
unpack=$(mktemp -d)
trap 'rm -rf "$unpack"' EXIT
mkdir "$unpack/layout"
tar -xf "$out/mcpv-image.tar" -C "$unpack/layout"
for arch in amd64 arm64; do
	tag=v$version-linux-$arch
	skopeo copy -q "oci-archive:$out/mcpv-image.tar:$tag" "dir:$unpack/skopeo-$arch" ||
		die "skopeo cannot copy $tag out of the image"
	umoci unpack --rootless --image "$unpack/layout:$tag" "$unpack/bundle-$arch" >/dev/null ||
		die "umoci cannot unpack $tag"
	cmp -s "$unpack/bundle-$arch/rootfs/usr/local/bin/mcpv" "$out/mcpv_linux_$arch/mcpv" ||
		die "umoci unpacked $tag, and its /usr/local/bin/mcpv is not the linux/$arch build"
done
echo "the image unpacked by skopeo $(skopeo --version | awk '{print $3}') and umoci $(umoci --version | awk '{print $3}'), each platform by its tag"

# The archives, as .goreleaser.yaml's archives lay them out (the guides
# and the skill left out), and an SBOM of each, as its sboms make one.
go -C scripts/sbom build -o "$unpack/mcpv-sbom" .
for arch in amd64 arm64; do
	a=mcpv_${version}_linux_$arch.tar.gz
	tar -czf "$out/$a" --owner=0 --group=0 --mtime="$date" \
		-C "$out/mcpv_linux_$arch" mcpv -C "$PWD" README.md LICENSE \
		--transform 's,^build/,,' build/completions build/manpages/mcpv.1
	"$unpack/mcpv-sbom" -version "v$version" -created "$date" -o "$out/$a.spdx.json" "$out/$a"
done

# checksums.txt as GoReleaser writes it, signed with a key of this run's.
(cd "$out" && sha256sum -- *.tar.gz *.spdx.json *.deb *.rpm >checksums.txt)
rm -f "$out/signer" "$out/signer.pub"
ssh-keygen -q -t ed25519 -N '' -C mcpv-ci -f "$out/signer"
ssh-keygen -q -Y sign -f "$out/signer" -n file "$out/checksums.txt"
rm "$out/signer"
echo "mcpv-ci $(cat "$out/signer.pub")" >"$out/allowed_signers"
echo "packages.sh: built in $((SECONDS - start))s into $out:"
(cd "$out" && ls -l -- *.tar.gz *.deb *.rpm *.tar *.json checksums.txt*)
