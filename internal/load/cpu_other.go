//go:build !unix && !windows

package load

import "time"

// cpuSample is the CPU time used so far, unknown on this platform.
type cpuSample struct {
	self, children time.Duration
	ok             bool
}

func cpuTime() cpuSample { return cpuSample{} }
