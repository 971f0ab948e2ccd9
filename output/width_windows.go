package output

import (
	"os"

	"golang.org/x/sys/windows"
)

// columns is the width of the console f is, 0 when unknown.
func columns(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info) != nil {
		return 0
	}
	return int(info.Window.Right-info.Window.Left) + 1
}
