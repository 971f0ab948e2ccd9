//go:build !e2e

package testkit

// LongTier is true where the long tests run: built with -tags e2e.
const LongTier = false
