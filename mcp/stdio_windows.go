package mcp

import (
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a server runs in a process group of its own (so that the
// console's Ctrl-C, which mcpv handles, is not delivered to it) and in a Job
// Object that kills every process in it when the job's last handle closes:
// when mcpv ends it, or when mcpv itself ends, however it ends. The job
// takes the server right after it starts; a process it starts in that
// moment may escape.

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

var jobs struct {
	sync.Mutex // guards byPID
	byPID      map[int]windows.Handle
}

// afterStart puts the server in a kill-on-close Job Object.
func afterStart(pid int) error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return err
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return err
	}
	p, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		windows.CloseHandle(job)
		return err
	}
	defer windows.CloseHandle(p)
	if err := windows.AssignProcessToJobObject(job, p); err != nil {
		windows.CloseHandle(job)
		return err
	}
	jobs.Lock()
	if jobs.byPID == nil {
		jobs.byPID = map[int]windows.Handle{}
	}
	jobs.byPID[pid] = job
	jobs.Unlock()
	return nil
}

// killGroup asks the server's group to stop (SIGTERM: a Ctrl-Break, which
// console programs treat as Ctrl-C) or ends every process of its job
// (SIGKILL).
func killGroup(pid int, sig syscall.Signal) {
	if sig != syscall.SIGKILL {
		windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(pid))
		return
	}
	jobs.Lock()
	job, ok := jobs.byPID[pid]
	delete(jobs.byPID, pid)
	jobs.Unlock()
	if ok {
		windows.TerminateJobObject(job, 1)
		windows.CloseHandle(job)
	}
}

// groupEnded has nothing to do: killGroup closed the job.
func groupEnded(int) {}
