package safefile

import (
	"fmt"
	"io/fs"
	"os"

	"golang.org/x/sys/windows"

	"github.com/mcpv/mcpv/internal/winacl"
)

func judge(path string, f *os.File, _ fs.FileInfo, _ int, want Want) (string, Want, error) {
	var (
		owner  string
		aces   []winacl.ACE
		noDACL bool
		err    error
	)
	if f != nil {
		owner, aces, noDACL, err = winacl.OfHandle(windows.Handle(f.Fd()))
	} else {
		owner, aces, noDACL, err = winacl.OfPath(path)
	}
	if err != nil {
		return "", 0, fmt.Errorf("%s: reading its access list: %w", path, err)
	}
	if want&Mine != 0 {
		user, err := windows.GetCurrentProcessToken().GetTokenUser()
		if err != nil {
			return "", 0, err
		}
		if me := user.User.Sid.String(); !winacl.Mine(owner, me) {
			return fmt.Sprintf("belongs to %s, not to you (%s)", owner, me), Mine, nil
		}
	}
	switch {
	case want&Unread != 0 && winacl.OthersMayRead(owner, aces, noDACL):
		return "can be read by others (its access list allows it)", Unread, nil
	case want&(Unwritten|NotWorldWritten) != 0 && winacl.OthersMayWriteDir(owner, aces, noDACL):
		return "can be written by others (its access list allows it)", want & (Unwritten | NotWorldWritten), nil
	}
	return "", 0, nil
}
