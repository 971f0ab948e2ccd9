package oauthtest

import (
	"maps"
	"sync"

	"github.com/zalando/go-keyring"
)

// Keyring is a keychain in memory (an oauth.Keyring): a test's, never the
// developer's.
type Keyring struct {
	mu    sync.Mutex // guards the fields
	items map[string]string
	err   error
	hang  chan struct{}
	calls int
}

// NewKeyring is an empty Keyring.
func NewKeyring() *Keyring { return &Keyring{items: map[string]string{}} }

// Fail makes every call answer err (a locked or absent keychain); nil
// mends it.
func (k *Keyring) Fail(err error) { k.mu.Lock(); k.err = err; k.mu.Unlock() }

// Hang holds every call until ch is closed (a keychain waiting on a
// prompt nobody sees).
func (k *Keyring) Hang(ch chan struct{}) { k.mu.Lock(); k.hang = ch; k.mu.Unlock() }

// Items is what the keychain holds, by account.
func (k *Keyring) Items() map[string]string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return maps.Clone(k.items)
}

// Put writes an item as another program would.
func (k *Keyring) Put(account, secret string) { k.mu.Lock(); k.items[account] = secret; k.mu.Unlock() }

// Calls is how many calls were made.
func (k *Keyring) Calls() int { k.mu.Lock(); defer k.mu.Unlock(); return k.calls }

// answer counts a call and says whether it fails, after Hang's wait.
func (k *Keyring) answer() error {
	k.mu.Lock()
	k.calls++
	hang := k.hang
	k.mu.Unlock()
	if hang != nil {
		<-hang
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.err
}

func (k *Keyring) Get(account string) (string, error) {
	if err := k.answer(); err != nil {
		return "", err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	s, ok := k.items[account]
	if !ok {
		return "", keyring.ErrNotFound
	}
	return s, nil
}

func (k *Keyring) Set(account, secret string) error {
	if err := k.answer(); err != nil {
		return err
	}
	k.Put(account, secret)
	return nil
}

// Delete answers as Get does, and removes the item it finds.
func (k *Keyring) Delete(account string) error {
	_, err := k.Get(account)
	if err == nil {
		k.mu.Lock()
		delete(k.items, account)
		k.mu.Unlock()
	}
	return err
}
