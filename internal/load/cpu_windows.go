package load

import (
	"time"

	"golang.org/x/sys/windows"
)

// cpuSample is the CPU time used so far: mcpv's own (the time of child
// processes is not known here).
type cpuSample struct {
	self, children time.Duration
	ok             bool
}

func cpuTime() cpuSample {
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(windows.CurrentProcess(), &created, &exited, &kernel, &user) != nil {
		return cpuSample{}
	}
	ticks := func(f windows.Filetime) time.Duration {
		return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
	}
	return cpuSample{self: ticks(kernel) + ticks(user), ok: true}
}
