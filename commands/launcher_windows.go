package commands

import (
	"encoding/binary"
	"os"
	"syscall"
	"unsafe"
)

// launcherPipe is the handle of C runtime descriptor fd as a file, when
// it is a pipe. Node passes descriptors past 2 as the C runtime does, in
// the startup information's lpReserved2 (which syscall.StartupInfo
// leaves unnamed, after ShowWindow and cbReserved2): a 32-bit count n,
// n bytes of flags, then n handles, packed.
func launcherPipe(fd int) *os.File {
	var si syscall.StartupInfo
	if syscall.GetStartupInfo(&si) != nil {
		return nil
	}
	const size = int(unsafe.Sizeof(uintptr(0)))
	cb := *(*uint16)(unsafe.Add(unsafe.Pointer(&si), unsafe.Offsetof(si.ShowWindow)+2))
	lp := *(**byte)(unsafe.Add(unsafe.Pointer(&si), unsafe.Offsetof(si.StdInput)-uintptr(size)))
	if lp == nil || cb < 4 {
		return nil
	}
	buf := unsafe.Slice(lp, cb)
	n := int(binary.LittleEndian.Uint32(buf))
	if fd >= n || len(buf) < 4+n+n*size {
		return nil
	}
	var h uintptr // little-endian, of the pointer's size
	for i := size - 1; i >= 0; i-- {
		h = h<<8 | uintptr(buf[4+n+fd*size+i])
	}
	if t, err := syscall.GetFileType(syscall.Handle(h)); err != nil || t != syscall.FILE_TYPE_PIPE {
		return nil
	}
	return os.NewFile(h, "launcher")
}
