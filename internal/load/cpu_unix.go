//go:build unix

package load

import (
	"syscall"
	"time"
)

// cpuSample is the CPU time used so far: mcpv's own, and that of the child
// processes it has waited for (the stdio servers it started and stopped).
type cpuSample struct {
	self, children time.Duration
	ok             bool
}

func cpuTime() cpuSample {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return cpuSample{}
	}
	return cpuSample{self: rusageTime(&self), children: rusageTime(&children), ok: true}
}

func rusageTime(u *syscall.Rusage) time.Duration {
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
