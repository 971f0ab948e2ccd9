//go:build race

package cost

// raceEnabled: the race detector's instrumentation allocates, so the
// allocation bounds are measured in a run without it (.ci/run has one).
const raceEnabled = true
