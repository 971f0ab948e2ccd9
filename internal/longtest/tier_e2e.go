//go:build e2e

package longtest

// Tier is true where the long tests run: built with -tags e2e.
const Tier = true
