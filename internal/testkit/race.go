//go:build race

package testkit

// Race says the race detector is on: its instrumentation allocates, so
// the bounds on what a parse allocates are measured in a run without it
// (the fuzz targets and .ci/run's guards run without it).
const Race = true
