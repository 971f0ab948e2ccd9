package oauth

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/zalando/go-keyring"
)

// Record is what mcpv keeps for one server at one authorization server: the
// client it is there, the token it holds, and the metadata needed to refresh
// it without discovering again.
type Record struct {
	Server   string `json:"server"`   // the canonical URL mcpv talks to
	Issuer   string `json:"issuer"`   // the authorization server
	Resource string `json:"resource"` // the RFC 8707 resource tokens are for; "" when none was sent
	// ResourceParam says where Resource came from: ResourceDiscovered
	// (""), ResourceGiven or ResourceOmitted.
	ResourceParam string `json:"resource_param,omitempty"`
	// AskedScope is the scope the grant asked for (Token.Scope is what
	// was granted).
	AskedScope string          `json:"asked_scope,omitempty"`
	Metadata   *ServerMetadata `json:"metadata"`
	Client     Client          `json:"client"`
	Token      Token           `json:"token"`
	Grant      string          `json:"grant,omitempty"` // GrantClientCredentials, or the code flow
	// DPoPKey is the private key a DPoP-bound token (Token.TokenType
	// "DPoP") is bound to, PKCS#8 in base64url; "" for a bearer token.
	DPoPKey string    `json:"dpop_key,omitempty"`
	Updated time.Time `json:"updated"`
	// Secrets says where the tokens, the client secret and the DPoP key
	// are: "" in this file, SecretsKeychain in the keychain's item whose
	// SHA-256 (of its text) is SecretsSum.
	Secrets    string `json:"secrets,omitempty"`
	SecretsSum string `json:"secrets_sha256,omitempty"`
	// Unread is why the secrets of a record kept in the keychain could
	// not be read: then the record has none, and cannot be used.
	Unread error `json:"-"`
}

// Store keeps records as files in Dir (mode 0700), one per issuer and
// resource (mode 0600), written atomically; a record of a resource the user
// gave or left out is kept apart from the discovered one's, per server too
// (account). A record is changed only under
// its lock, so two mcpv processes never refresh the same token at once.
// Root is the state root above Dir: every directory from Root down to Dir
// must be the user's alone (internal/safedir), or the store is not used,
// and no file in it is opened through a symbolic link.
//
// Where there is a Keychain, a record's secrets go to it, unless Where is
// StoreFile; where it fails they stay in the file (an error, when Where is
// StoreKeychain). A record whose secrets are in the keychain is read from
// it whatever Where says.
type Store struct {
	Dir, Root string
	Keychain  *Keychain
	Where     string // StoreAuto (""), StoreKeychain or StoreFile
}

// check refuses a store another user could write to.
func (s *Store) check() error {
	return safedir.Check(cmp.Or(s.Root, s.Dir), s.Dir)
}

func (s *Store) mkdir() error {
	return safedir.MkdirAll(cmp.Or(s.Root, s.Dir), s.Dir)
}

// account names r's place (its file's name, and its keychain item's) by
// its issuer and resource, and for a resource the user gave or left out,
// also the server and how, so that such a token never takes the place of
// another.
func (r *Record) account() string {
	slot := r.Issuer + "\n" + r.Resource
	if r.ResourceParam != ResourceDiscovered {
		slot += "\n" + r.Server + "\n" + r.ResourceParam
	}
	return digest([]byte(slot))[:24] // the first 12 bytes of the SHA-256
}

func (s *Store) path(r *Record) string {
	return filepath.Join(s.Dir, r.account()+".json")
}

// PermissionError is a token file others can read: mcpv will not trust or
// use it until the user has fixed its mode.
type PermissionError struct {
	Path string
	Mode os.FileMode
}

func (e *PermissionError) Error() string {
	return fmt.Sprintf("the token file %s can be read by others (%s); fix it with %s, or remove it with mcpv auth logout", e.Path, looseWhy(e.Mode), looseFix(e.Path))
}

// readRecord reads one record file, refusing one with loose permissions.
func readRecord(path string) (*Record, error) {
	f, err := safefile.OpenNoFollow(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if why, _, err := safefile.Judge(path, f, fi, safefile.Unread); err != nil {
		return nil, err
	} else if why != "" {
		return nil, &PermissionError{Path: path, Mode: fi.Mode()}
	}
	var r Record
	if err := json.NewDecoder(f).Decode(&r); err != nil {
		return nil, fmt.Errorf("the token file %s is damaged: %v", path, err)
	}
	return &r, nil
}

// Find returns the records for server (a canonical URL), most recently
// updated first. A record read between another process's two writes of a
// refresh is read again once that process lets its lock go (settled).
func (s *Store) Find(ctx context.Context, server string) ([]*Record, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*Record
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(s.Dir, e.Name())
		r, err := readRecord(path)
		if err == nil && r.Server == server {
			r, err = s.read(path) // and its secrets, from the keychain where they are
		}
		if err == nil && errors.Is(r.Unread, errNotOurs) {
			r = s.settled(ctx, r)
		}
		if err != nil {
			if errors.As(err, new(*PermissionError)) {
				return nil, err
			}
			continue // another server's damaged file is not this run's concern
		}
		if r.Server == server {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

// Load reads the record now in rec's place (its issuer and resource); (nil,
// nil) if there is none.
func (s *Store) Load(rec *Record) (*Record, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	r, err := s.read(s.path(rec))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return r, err
}

// read reads the record at path with its secrets. A refresh by another
// process writes the item, then the file: a file and an item read between
// the two do not match, and are read again (and, by a run about to use
// the token, once more after the refresh: settled).
func (s *Store) read(path string) (*Record, error) {
	for try := 1; ; try++ {
		r, err := readRecord(path)
		if err != nil || r.Secrets != SecretsKeychain {
			return r, err
		}
		if s.Keychain == nil {
			r.Unread = errors.New("its secrets are in the keychain, which this run cannot reach")
			return r, nil
		}
		item, err := s.Keychain.get(r.account())
		if err == nil {
			err = r.fill(item)
		}
		if err == nil || !errors.Is(err, errNotOurs) || try == 3 {
			r.Unread = err
			return r, nil
		}
	}
}

// Save writes r, replacing the record for its issuer and resource: its
// secrets in the keychain where it is used, else in the file.
func (s *Store) Save(r *Record) error {
	if err := s.mkdir(); err != nil {
		return err
	}
	kept, err := s.keep(r)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(kept, "", "  ")
	if err != nil {
		return err
	}
	if err := safefile.Replace(s.path(r), append(data, '\n')); err != nil {
		return err
	}
	if kept.Secrets == "" && r.Secrets == SecretsKeychain && s.Keychain != nil {
		s.Keychain.delete(r.account()) // the file holds them now; best effort
	}
	r.Secrets, r.SecretsSum = kept.Secrets, kept.SecretsSum
	return nil
}

// saveToken saves r with tok, a new grant's token (the scope r asked for
// where tok names none), under its place's lock.
func (s *Store) saveToken(ctx context.Context, r *Record, tok *Token) error {
	tok.Scope = cmp.Or(tok.Scope, r.AskedScope)
	r.Token, r.Updated = *tok, time.Now()
	unlock, err := s.Lock(ctx, r)
	if err != nil {
		return &Error{Step: StepToken, Err: err}
	}
	defer unlock()
	if err := s.Save(r); err != nil {
		return &Error{Step: StepToken, Err: fmt.Errorf("saving the token: %w", err)}
	}
	return nil
}

// keep is r as its file keeps it, its secrets put in the keychain first
// where they go there.
func (s *Store) keep(r *Record) (Record, error) {
	kept := *r
	kept.Secrets, kept.SecretsSum, kept.Unread = "", "", nil
	if s.Where == StoreFile {
		return kept, nil
	}
	if s.Keychain == nil {
		if s.Where == StoreKeychain {
			return kept, errors.New("MCPV_TOKEN_STORE=keychain, and this system has no keychain mcpv can reach")
		}
		return kept, nil
	}
	item, sum := r.item()
	err := s.Keychain.set(r.account(), item)
	switch {
	case err == nil:
		return kept.withoutSecrets(sum), nil
	case s.Where == StoreKeychain:
		return kept, fmt.Errorf("MCPV_TOKEN_STORE=keychain, and the keychain cannot keep the token: %w", err)
	case errors.Is(err, keyring.ErrSetDataTooBig):
		s.Keychain.warnOnce(fmt.Sprintf("the token of %s is too large for the keychain: it is kept in a file readable by you alone", r.Issuer))
	}
	return kept, nil
}

// settled is r read again under its place's lock. A refresh by another
// process writes the keychain item, then the file, under that lock, and a
// record read lock-free between the two writes names an item it does not
// hold (errNotOurs): once the lock is free, both are the refresh's. r as
// it was when the lock is not had, or the place is empty.
func (s *Store) settled(ctx context.Context, r *Record) *Record {
	unlock, err := s.Lock(ctx, r)
	if err != nil {
		return r
	}
	defer unlock()
	if cur, err := s.Load(r); err == nil && cur != nil {
		return cur
	}
	return r
}

// Delete removes the record in r's place, under its lock. The lock file
// stays: removing it while another process holds it would let a third lock
// a new file and refresh at the same time. A record whose keychain item
// cannot be removed (this run reaches no keychain, or it failed) is
// removed all the same, and Delete says so with an *ItemLeft: no record
// names the item any more, and the user must hear of it.
func (s *Store) Delete(ctx context.Context, r *Record) error {
	unlock, err := s.Lock(ctx, r)
	if err != nil {
		return err
	}
	defer unlock()
	err = os.Remove(s.path(r))
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	if err != nil || r.Secrets != SecretsKeychain {
		return err
	}
	err = errors.New("this run cannot reach the keychain")
	if s.Keychain != nil {
		if err = s.Keychain.delete(r.account()); err == nil || errors.Is(err, keyring.ErrNotFound) {
			return nil
		}
	}
	return &ItemLeft{Issuer: r.Issuer, Account: r.account(), Err: err}
}

// ItemLeft is a record removed whose secrets' keychain item stays.
type ItemLeft struct {
	Issuer, Account string
	Err             error // why it stays
}

func (e *ItemLeft) Error() string {
	return fmt.Sprintf("the keychain item of %s (service %s, account %s) could not be removed: %v; remove it with the keychain's own tool",
		e.Issuer, keychainService, e.Account, e.Err)
}

// lockPoll is how often a waiting Lock tries again.
const lockPoll = 25 * time.Millisecond

// Lock takes the lock of r's place, an exclusive flock(2) on a file beside
// it, waiting until ctx ends. flock locks belong to the open file, so the
// lock also excludes another Lock in the same process. The returned
// function releases it.
func (s *Store) Lock(ctx context.Context, r *Record) (func(), error) {
	if err := s.mkdir(); err != nil {
		return nil, err
	}
	path := strings.TrimSuffix(s.path(r), ".json") + ".lock"
	f, err := safefile.OpenNoFollow(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		locked, err := tryLock(f)
		if locked {
			return func() {
				unlock(f)
				f.Close()
			}, nil
		}
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for another mcpv to finish with %s: %w", path, context.Cause(ctx))
		case <-time.After(lockPoll):
		}
	}
}
