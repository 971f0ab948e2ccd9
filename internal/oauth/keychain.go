package oauth

// The system's keychain (the macOS Keychain, the Windows Credential
// Manager, the Secret Service on Linux and the BSDs), reached through
// github.com/zalando/go-keyring, holds a record's secrets: its tokens, its
// client secret and its DPoP key, as one item per record (service "mcpv",
// account the record file's name). The record file stays the index and the
// lock, and names the item's SHA-256, so an item another program wrote or
// changed is refused rather than sent to a server.
//
// Invariants:
//   - every call is bounded (a locked Secret Service may wait for a prompt
//     nobody sees): past the bound, or at the first failure, the run stops
//     using the keychain, keeps new tokens in files, and warns once.
//   - what the keychain answers is data: an item larger than maxItem, not
//     JSON, or not the one the file names is not used.

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/zalando/go-keyring"
)

// Where tokens go (MCPV_TOKEN_STORE): the keychain when there is one, else
// a file (StoreAuto, the default); the keychain or an error; a file.
const (
	StoreAuto     = "auto"
	StoreKeychain = "keychain"
	StoreFile     = "file"
)

// SecretsKeychain is a record's Secrets when its secrets are in the
// keychain; "" is in the file.
const SecretsKeychain = "keychain"

const (
	keychainService = "mcpv"
	// keychainBound is how long one call to the keychain may take: a
	// working one answers in milliseconds, a loaded machine in ten times
	// that; a locked one may wait forever.
	keychainBound = 5 * time.Second
	// maxItem bounds the item read: mcpv writes a few kilobytes.
	maxItem = 64 << 10
)

// Keyring is what a keychain holds for mcpv, by account: a missing item
// is go-keyring's ErrNotFound, an item too large for it (macOS takes about
// 3,000 bytes, Windows 2,560) its ErrSetDataTooBig, and that record is
// kept in its file.
type Keyring interface {
	Get(account string) (string, error)
	Set(account, secret string) error
	Delete(account string) error
}

// systemKeyring is go-keyring's keychain of this system.
type systemKeyring struct{}

func (systemKeyring) Get(a string) (string, error) { return keyring.Get(keychainService, a) }
func (systemKeyring) Set(a, s string) error        { return keyring.Set(keychainService, a, s) }
func (systemKeyring) Delete(a string) error        { return keyring.Delete(keychainService, a) }

// SystemKeychain is the system's keychain, or nil where none can be
// reached: on Linux and the BSDs without a session bus (a headless machine,
// a container), where D-Bus would otherwise try to start one.
func SystemKeychain(goos string, getenv func(string) string) *Keychain {
	if goos != "darwin" && goos != "windows" {
		if a := getenv("DBUS_SESSION_BUS_ADDRESS"); a == "" || a == "autolaunch:" {
			if _, err := os.Stat("/run/user/" + strconv.Itoa(os.Getuid()) + "/bus"); err != nil {
				return nil
			}
		}
	}
	return &Keychain{Ring: systemKeyring{}}
}

// Keychain is a keychain as one run of mcpv uses it.
type Keychain struct {
	Ring    Keyring
	Timeout time.Duration // each call's bound; zero is keychainBound
	Warn    func(line string)

	mu     sync.Mutex // guards down and warned
	down   error      // why the keychain is no longer used this run
	warned bool
}

// ForRun is k for one run, warning through warn: the same keyring, with a
// state of its own.
func (k *Keychain) ForRun(warn func(string)) *Keychain {
	if k == nil {
		return nil
	}
	return &Keychain{Ring: k.Ring, Timeout: k.Timeout, Warn: warn}
}

// call runs f within the bound; its failure (other than a missing item or
// a refused size) ends the keychain's use for the run.
func (k *Keychain) call(f func() (string, error)) (string, error) {
	k.mu.Lock()
	down := k.down
	k.mu.Unlock()
	if down != nil {
		return "", down
	}
	type answer struct {
		s   string
		err error
	}
	done := make(chan answer, 1)
	// The keychain call: ends when the keychain answers; one that never
	// does ends with the process, the run having gone on without it.
	go func() {
		s, err := f()
		done <- answer{s, err}
	}()
	bound := cmp.Or(k.Timeout, keychainBound)
	var a answer
	select {
	case a = <-done:
	case <-time.After(bound):
		a.err = fmt.Errorf("it did not answer within %s", bound)
	}
	if a.err != nil && !errors.Is(a.err, keyring.ErrNotFound) && !errors.Is(a.err, keyring.ErrSetDataTooBig) {
		k.fail(a.err)
	}
	return a.s, a.err
}

// fail ends the keychain's use for the run, saying so once.
func (k *Keychain) fail(err error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.down == nil {
		k.down = err
		k.warnLocked(fmt.Sprintf("the keychain cannot be used (%v): tokens are kept in files readable by you alone this run", err))
	}
}

// warnOnce says line unless the run was warned of the keychain already.
func (k *Keychain) warnOnce(line string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.warnLocked(line)
}

func (k *Keychain) warnLocked(line string) {
	if !k.warned && k.Warn != nil {
		k.warned = true
		k.Warn(line)
	}
}

func (k *Keychain) get(account string) (string, error) {
	return k.call(func() (string, error) { return k.Ring.Get(account) })
}

func (k *Keychain) set(account, secret string) error {
	_, err := k.call(func() (string, error) { return "", k.Ring.Set(account, secret) })
	return err
}

func (k *Keychain) delete(account string) error {
	_, err := k.call(func() (string, error) { return "", k.Ring.Delete(account) })
	return err
}

// secrets are what a record keeps in the keychain.
type secrets struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token,omitempty"`
	ClientSecret string `json:"client_secret,omitempty"`
	DPoPKey      string `json:"dpop_key,omitempty"`
}

// item is r's secrets as a keychain item, and its SHA-256 for the file.
func (r *Record) item() (string, string) {
	b, _ := json.Marshal(secrets{r.Token.AccessToken, r.Token.RefreshToken, r.Client.Secret, r.DPoPKey})
	return string(b), digest(b)
}

// withoutSecrets is r as its file keeps it when the keychain holds the
// item whose SHA-256 is sum.
func (r Record) withoutSecrets(sum string) Record {
	r.Token.AccessToken, r.Token.RefreshToken, r.Client.Secret, r.DPoPKey = "", "", "", ""
	r.Secrets, r.SecretsSum = SecretsKeychain, sum
	return r
}

// errNotOurs is an item other than the one the record's file names.
var errNotOurs = errors.New("its keychain item is not the one mcpv wrote (another program changed it)")

// fill puts the item's secrets in r, which names it.
func (r *Record) fill(item string) error {
	if len(item) > maxItem {
		return fmt.Errorf("its keychain item is too large (%d bytes)", len(item))
	}
	if digest([]byte(item)) != r.SecretsSum {
		return errNotOurs
	}
	var s secrets
	if err := json.Unmarshal([]byte(item), &s); err != nil {
		return fmt.Errorf("its keychain item is damaged: %v", err)
	}
	r.Token.AccessToken, r.Token.RefreshToken, r.Client.Secret, r.DPoPKey = s.AccessToken, s.RefreshToken, s.ClientSecret, s.DPoPKey
	return nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
