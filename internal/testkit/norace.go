//go:build !race

package testkit

// Race says the race detector is on (see race.go).
const Race = false
