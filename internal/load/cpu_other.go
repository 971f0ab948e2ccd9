//go:build !unix && !windows

package load

// cpuTime is unknown on this platform.
func cpuTime() cpuSample { return cpuSample{} }
