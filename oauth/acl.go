package oauth

// ace is one entry of a Windows DACL, as far as the token file check needs.
type ace struct {
	allow bool   // an access-allowed entry (else denied, or another kind)
	sid   string // the trustee, as S-1-...
	mask  uint32
}

// The access rights that let a trustee read a file's contents.
const (
	fileReadData = 0x1
	genericRead  = 0x80000000
	genericAll   = 0x10000000
)

// Trustees that may read a user's token file besides the user: the system
// itself and the machine's administrators, who can read anything anyway.
var trustedSIDs = map[string]bool{
	"S-1-5-18":     true, // LocalSystem
	"S-1-5-32-544": true, // BUILTIN\Administrators
	"S-1-3-4":      true, // OWNER RIGHTS
}

// othersMayRead decides, from a file's owner and DACL entries, whether
// anyone else than the owner (and the trustees above) is allowed to read
// it. A deny entry is not taken into account: allow entries alone decide
// what a mistaken ACL exposes, and mcpv writes none of either kind but its
// own.
func othersMayRead(owner string, aces []ace) bool {
	for _, a := range aces {
		if !a.allow || a.sid == owner || trustedSIDs[a.sid] {
			continue
		}
		if a.mask&(fileReadData|genericRead|genericAll) != 0 {
			return true
		}
	}
	return false
}
