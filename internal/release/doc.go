// Package release is what a release ships beside mcpv's binaries, written
// from them: the container image, as an OCI image layout in a tar written
// without a daemon (WriteImage). commands/mcpv-release runs it at release
// time; its tests read the layout back, every blob checked (ReadImage, on
// the test side).
package release
