//go:build !race

package fuzzcheck

// Race says the race detector is on (see race.go).
const Race = false
