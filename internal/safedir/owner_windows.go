package safedir

import (
	"fmt"
	"io/fs"
	"strings"

	"golang.org/x/sys/windows"

	"github.com/mcpv/mcpv/internal/winacl"
)

// notPrivate judges directory d by its owner and DACL: Windows reports every
// directory as mode 0777, so the mode says nothing. A profile's
// AppData\Local, where mcpv keeps its state, lets the user, SYSTEM and the
// Administrators in, and no one else.
func notPrivate(d string, _ fs.FileInfo) (why, fix string, err error) {
	owner, aces, noDACL, err := winacl.OfPath(d)
	if err != nil {
		return "", "", fmt.Errorf("the state directory %s: reading its access list: %w", d, err)
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return "", "", err
	}
	if me := user.User.Sid.String(); !winacl.Mine(owner, me) {
		return fmt.Sprintf("belongs to %s, not to you (%s)", owner, me), "takeown /f " + quote(d), nil
	}
	if winacl.OthersMayWriteDir(owner, aces, noDACL) {
		return "can be written by others (its access list allows it)",
			"icacls " + quote(d) + ` /inheritance:r /grant:r "%USERNAME%:(OI)(CI)F"`, nil
	}
	return "", "", nil
}

func removeCommand(d string) string { return "rmdir " + quote(d) }

// quote quotes a path for cmd.exe and PowerShell (paths hold no '"').
func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, "") + `"` }
