//go:build unix

package load

import (
	"syscall"
	"time"
)

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
