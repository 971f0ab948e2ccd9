// Package winacl decides, from a Windows security descriptor, whether a
// file or directory is the user's alone: Windows reports every writable
// file as mode 0666 and every directory as 0777, so the mode bits Unix
// checks say nothing there. The decisions are pure functions of the owner
// and the access-control entries, tested on every OS; reading and writing
// real descriptors is in acl_windows.go.
package winacl

// ACE is one entry of a discretionary access-control list, as far as the
// checks need it.
type ACE struct {
	Allow       bool   // an access-allowed entry (else denied, or another kind)
	SID         string // the trustee, as S-1-...
	Mask        uint32 // the access rights
	InheritOnly bool   // applies only to objects created inside, not to this one
}

// Access rights, as in winnt.h.
const (
	fileReadData    = 0x1     // FILE_READ_DATA, FILE_LIST_DIRECTORY
	fileWriteData   = 0x2     // FILE_WRITE_DATA, FILE_ADD_FILE
	fileAppendData  = 0x4     // FILE_APPEND_DATA, FILE_ADD_SUBDIRECTORY
	fileDeleteChild = 0x40    // FILE_DELETE_CHILD
	writeDAC        = 0x40000 // WRITE_DAC
	writeOwner      = 0x80000 // WRITE_OWNER
	genericAll      = 0x10000000
	genericWrite    = 0x40000000
	genericRead     = 0x80000000
	readRights      = fileReadData | genericRead | genericAll
	writeDirRights  = fileWriteData | fileAppendData | fileDeleteChild | writeDAC | writeOwner | genericWrite | genericAll
)

// trusted are the trustees that may hold rights on a user's files besides
// the user: the system itself and the machine's administrators, who can
// take any file anyway, and OWNER RIGHTS, which is the owner.
var trusted = map[string]bool{
	"S-1-5-18":     true, // LocalSystem
	"S-1-5-32-544": true, // BUILTIN\Administrators
	"S-1-3-4":      true, // OWNER RIGHTS
}

// OthersMayRead reports whether anyone but the owner (and the trustees
// above) may read a file's contents. A missing DACL (nil aces with
// noDACL) grants everyone everything.
func OthersMayRead(owner string, aces []ACE, noDACL bool) bool {
	return othersMay(owner, aces, noDACL, readRights)
}

// OthersMayWriteDir reports whether anyone but the owner (and the trustees
// above) may add, remove or rename entries of a directory, or change who
// may.
func OthersMayWriteDir(owner string, aces []ACE, noDACL bool) bool {
	return othersMay(owner, aces, noDACL, writeDirRights)
}

// othersMay counts allow entries alone: a deny entry could only narrow what
// they grant, so ignoring it errs on the side of refusing.
func othersMay(owner string, aces []ACE, noDACL bool, rights uint32) bool {
	if noDACL {
		return true
	}
	for _, a := range aces {
		if !a.Allow || a.InheritOnly || a.SID == owner || trusted[a.SID] {
			continue
		}
		if a.Mask&rights != 0 {
			return true
		}
	}
	return false
}

// Mine reports whether a file's owner is the user me, or the machine's
// Administrators (the owner Windows gives files an elevated process of the
// user creates).
func Mine(owner, me string) bool { return owner == me || trusted[owner] }
