package mcp

import (
	"errors"
	"fmt"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/mcpv/mcpv/internal/lazy"
)

// On Windows a server runs in a process group of its own (so that the
// console's Ctrl-C, which mcpv handles, is not delivered to it) and in a Job
// Object that kills every process in it when the job's last handle closes:
// when mcpv ends it, or when mcpv itself ends, however it ends. The server
// starts suspended and runs only once the job has it, so that no process
// it starts at once (cmd.exe starting node, npx its package) escapes the
// job on a busy machine.

func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED}
}

var jobs struct {
	sync.Mutex // guards byPID
	byPID      map[int]windows.Handle
}

// afterStart puts the server in a kill-on-close Job Object, then lets it run.
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
	lazy.Put(&jobs.byPID, pid, job)
	jobs.Unlock()
	if err := resume(uint32(pid)); err != nil {
		killGroup(pid, syscall.SIGKILL) // the job closed with the server in it
		return err
	}
	return nil
}

// resume lets the threads of a process started suspended run (its one
// thread: a suspended process has started none of its own).
func resume(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("listing the server's threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	resumed := false
	t := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	for err = windows.Thread32First(snap, &t); err == nil; err = windows.Thread32Next(snap, &t) {
		if t.OwnerProcessID != pid {
			continue
		}
		h, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, t.ThreadID)
		if err != nil {
			return fmt.Errorf("resuming the server: %w", err)
		}
		_, err = windows.ResumeThread(h)
		windows.CloseHandle(h)
		if err != nil {
			return fmt.Errorf("resuming the server: %w", err)
		}
		resumed = true
	}
	if !resumed {
		return errors.New("resuming the server: it has no thread")
	}
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
