package load

import (
	"time"

	"golang.org/x/sys/windows"
)

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
