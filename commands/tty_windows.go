package commands

import "os"

// openConsole opens the console's input and output buffers: the console
// stays reachable when stdin and stdout are pipes. Go reads and writes a
// console handle as UTF-16, so answers arrive as UTF-8.
func openConsole() (in, out *os.File, err error) {
	in, err = os.OpenFile("CONIN$", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	out, err = os.OpenFile("CONOUT$", os.O_RDWR, 0)
	if err != nil {
		in.Close()
		return nil, nil, err
	}
	return in, out, nil
}
