// Package release is what a release ships beside mcpv's binaries, written
// from them: the software bill of materials of an archive or a binary, as
// SPDX 2.3 JSON (NewSBOM), and the container image, as an OCI image layout
// in a tar written without a daemon (WriteImage; ReadImage reads one back,
// every blob checked). commands/mcpv-release runs them at release time.
package release
