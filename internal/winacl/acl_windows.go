package winacl

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// OfHandle reads the owner and DACL of an open file or directory.
func OfHandle(h windows.Handle) (owner string, aces []ACE, noDACL bool, err error) {
	sd, err := windows.GetSecurityInfo(h, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return "", nil, false, err
	}
	return parse(sd)
}

// OfPath reads the owner and DACL of a file or directory by name.
func OfPath(path string) (owner string, aces []ACE, noDACL bool, err error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.OWNER_SECURITY_INFORMATION|windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return "", nil, false, err
	}
	return parse(sd)
}

func parse(sd *windows.SECURITY_DESCRIPTOR) (owner string, aces []ACE, noDACL bool, err error) {
	o, _, err := sd.Owner()
	if err != nil {
		return "", nil, false, err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return "", nil, false, err
	}
	if dacl == nil {
		return o.String(), nil, true, nil
	}
	for i := range uint32(dacl.AceCount) {
		var a *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &a); err != nil {
			return "", nil, false, err
		}
		sid := (*windows.SID)(unsafe.Pointer(&a.SidStart))
		aces = append(aces, ACE{
			Allow:       a.Header.AceType == windows.ACCESS_ALLOWED_ACE_TYPE,
			SID:         sid.String(),
			Mask:        uint32(a.Mask),
			InheritOnly: a.Header.AceFlags&windows.INHERIT_ONLY_ACE != 0,
		})
	}
	return o.String(), aces, false, nil
}

// Protect gives a file a DACL that lets its owner alone in, not inherited
// from its directory.
func Protect(path string) error {
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return err
	}
	sd, err := windows.SecurityDescriptorFromString(fmt.Sprintf("D:P(A;;FA;;;%s)", user.User.Sid.String()))
	if err != nil {
		return err
	}
	dacl, _, err := sd.DACL()
	if err != nil {
		return err
	}
	return windows.SetNamedSecurityInfo(path, windows.SE_FILE_OBJECT,
		windows.DACL_SECURITY_INFORMATION|windows.PROTECTED_DACL_SECURITY_INFORMATION, nil, nil, dacl, nil)
}
