package serverstate

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/windows"

	"github.com/mcpv/mcpv/internal/winacl"
)

// openNoFollow opens path for reading, refusing a link (a reparse point).
func openNoFollow(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("is a symbolic link")}
	}
	return os.Open(path)
}

// private refuses a file that is not the user's, or whose access list lets
// others read it: Windows reports every file as mode 0666.
func private(f *os.File, _ os.FileInfo) error {
	owner, aces, noDACL, err := winacl.OfHandle(windows.Handle(f.Fd()))
	if err != nil {
		return err
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return err
	}
	if me := user.User.Sid.String(); !winacl.Mine(owner, me) {
		return fmt.Errorf("%s belongs to %s, not to you (%s)", f.Name(), owner, me)
	}
	if winacl.OthersMayRead(owner, aces, noDACL) {
		return fmt.Errorf("%s can be read by others (its access list allows it)", f.Name())
	}
	return nil
}
