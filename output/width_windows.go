package output

import (
	"os"

	"golang.org/x/sys/windows"
)

// terminalWidth is the number of columns of the console window f is, 0
// when f is none.
func terminalWidth(f *os.File) int {
	var info windows.ConsoleScreenBufferInfo
	if err := windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info); err != nil {
		return 0
	}
	return int(info.Window.Right-info.Window.Left) + 1
}
