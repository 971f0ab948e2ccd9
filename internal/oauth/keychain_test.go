package oauth

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zalando/go-keyring"

	"github.com/mcpv/mcpv/internal/oauth/oauthtest"
	"github.com/mcpv/mcpv/internal/testkit"
)

// warnings collects a keychain's warning lines.
type warnings struct {
	mu    sync.Mutex // guards lines
	lines []string
}

func (w *warnings) add(line string) { w.mu.Lock(); w.lines = append(w.lines, line); w.mu.Unlock() }

func (w *warnings) said() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.lines...)
}

// keychainStore is a store in a directory of its own with ring as its
// keychain; its warnings go to the returned collector.
func keychainStore(t *testing.T, ring Keyring) (*Store, *warnings) {
	w := new(warnings)
	return &Store{Dir: filepath.Join(t.TempDir(), "oauth"), Keychain: &Keychain{Ring: ring, Warn: w.add}}, w
}

// secretRecord is a record with every kind of secret, each named so that
// it can be looked for.
func secretRecord(issuer string) *Record {
	return &Record{Server: "https://mcp.example/mcp", Issuer: issuer, Resource: "https://mcp.example/mcp",
		Client:  Client{ID: "client-id", Secret: "client-secret-value"},
		Token:   Token{AccessToken: "access-token-value", RefreshToken: "refresh-token-value", TokenType: "DPoP", ExpiresAt: time.Now().Add(time.Hour)},
		DPoPKey: "dpop-key-value", Updated: time.Now()}
}

var recordSecrets = []string{"client-secret-value", "access-token-value", "refresh-token-value", "dpop-key-value"}

func fileOf(t *testing.T, s *Store, r *Record) string {
	t.Helper()
	b, err := os.ReadFile(s.path(r))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func holdsNone(t *testing.T, where, text string) {
	t.Helper()
	for _, secret := range recordSecrets {
		if strings.Contains(text, secret) {
			t.Errorf("%s holds %s:\n%s", where, secret, text)
		}
	}
}

func holdsAll(t *testing.T, r *Record) {
	t.Helper()
	got := []string{r.Client.Secret, r.Token.AccessToken, r.Token.RefreshToken, r.DPoPKey}
	for i, secret := range recordSecrets {
		if got[i] != secret {
			t.Errorf("the record read back has %q for %s", got[i], secret)
		}
	}
}

// The file keeps the index, the keychain the secrets; logout removes both.
func TestKeychainKeepsTheSecrets(t *testing.T) {
	ring := oauthtest.NewKeyring()
	s, warned := keychainStore(t, ring)
	rec := secretRecord("https://as.example")
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	if rec.Secrets != SecretsKeychain {
		t.Errorf("the saved record says its secrets are in %q", rec.Secrets)
	}
	file := fileOf(t, s, rec)
	holdsNone(t, "the record's file", file)
	if !strings.Contains(file, `"secrets": "keychain"`) || !strings.Contains(file, `"client_id": "client-id"`) {
		t.Errorf("the file does not name the keychain or keep the index:\n%s", file)
	}
	if items := ring.Items(); len(items) != 1 || items[rec.account()] == "" {
		t.Fatalf("the keychain holds %v", items)
	}
	recs, err := s.Find(t.Context(), rec.Server)
	if err != nil || len(recs) != 1 || recs[0].Unread != nil {
		t.Fatalf("Find: %v, %v", recs, err)
	}
	holdsAll(t, recs[0])
	loaded, err := s.Load(rec)
	if err != nil || loaded == nil {
		t.Fatalf("Load: %v", err)
	}
	holdsAll(t, loaded)
	if err := s.Delete(context.Background(), recs[0]); err != nil {
		t.Fatal(err)
	}
	if items := ring.Items(); len(items) != 0 {
		t.Errorf("logout left the item: %v", items)
	}
	if len(warned.said()) != 0 {
		t.Errorf("warnings: %q", warned.said())
	}
}

// A record written before the keychain (or by MCPV_TOKEN_STORE=file)
// loads from its file without a call to the keychain; saved again, its
// secrets move to the keychain, and saved with MCPV_TOKEN_STORE=file,
// back to the file, the item removed.
func TestFileRecordsStillLoad(t *testing.T) {
	ring := oauthtest.NewKeyring()
	s, _ := keychainStore(t, ring)
	old := &Store{Dir: s.Dir}
	rec := secretRecord("https://as.example")
	if err := old.Save(rec); err != nil {
		t.Fatal(err)
	}
	recs, err := s.Find(t.Context(), rec.Server)
	if err != nil || len(recs) != 1 || recs[0].Secrets != "" || ring.Calls() != 0 {
		t.Fatalf("Find: %v, %v; %d keychain calls", recs, err, ring.Calls())
	}
	holdsAll(t, recs[0])
	if err := s.Save(recs[0]); err != nil {
		t.Fatal(err)
	}
	holdsNone(t, "the record's file, saved again", fileOf(t, s, rec))

	s.Where = StoreFile
	recs, _ = s.Find(t.Context(), rec.Server)
	if err := s.Save(recs[0]); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fileOf(t, s, rec), "access-token-value") || len(ring.Items()) != 0 {
		t.Errorf("MCPV_TOKEN_STORE=file: the file does not hold the token, or the keychain still does: %v", ring.Items())
	}
}

// A keychain that fails (locked, absent) is tried once a run: the tokens go
// to files, and one warning says so.
func TestKeychainFailureFallsBackOnce(t *testing.T) {
	ring := oauthtest.NewKeyring()
	ring.Fail(errors.New("the collection is locked"))
	s, warned := keychainStore(t, ring)
	for _, issuer := range []string{"https://as1.example", "https://as2.example"} {
		rec := secretRecord(issuer)
		if err := s.Save(rec); err != nil {
			t.Fatal(err)
		}
		if rec.Secrets != "" || !strings.Contains(fileOf(t, s, rec), "access-token-value") {
			t.Errorf("%s: not kept in its file", issuer)
		}
	}
	if said := warned.said(); len(said) != 1 || !strings.Contains(said[0], "the collection is locked") || !strings.Contains(said[0], "files") {
		t.Errorf("warnings: %q", said)
	}
	if ring.Calls() != 1 {
		t.Errorf("%d keychain calls; after the first failure, none", ring.Calls())
	}

	// MCPV_TOKEN_STORE=keychain: an error, not a file.
	s, _ = keychainStore(t, ring)
	s.Where = StoreKeychain
	if err := s.Save(secretRecord("https://as.example")); err == nil || !strings.Contains(err.Error(), "MCPV_TOKEN_STORE=keychain") {
		t.Errorf("Save with the keychain required: %v", err)
	}
	s.Keychain = nil
	if err := s.Save(secretRecord("https://as.example")); err == nil || !strings.Contains(err.Error(), "no keychain") {
		t.Errorf("Save with the keychain required and none: %v", err)
	}
}

// A keychain that never answers (a locked Secret Service's prompt nobody
// sees) holds the run up for its bound only.
func TestKeychainThatNeverAnswers(t *testing.T) {
	ring := oauthtest.NewKeyring()
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	ring.Hang(hang)
	s, warned := keychainStore(t, ring)
	s.Keychain.Timeout = 10 * time.Millisecond
	rec := secretRecord("https://as.example")
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	if said := warned.said(); len(said) != 1 || !strings.Contains(said[0], "did not answer within 10ms") {
		t.Errorf("warnings: %q", said)
	}
	if !strings.Contains(fileOf(t, s, rec), "access-token-value") {
		t.Error("the token is not in its file")
	}
}

// A token too large for the keychain stays in its file, said once; the
// keychain is still used for the others.
func TestTokenTooLargeForTheKeychain(t *testing.T) {
	ring := oauthtest.NewKeyring()
	ring.Fail(keyring.ErrSetDataTooBig)
	s, warned := keychainStore(t, ring)
	big := secretRecord("https://big.example")
	if err := s.Save(big); err != nil || big.Secrets != "" {
		t.Fatalf("Save: %v, secrets in %q", err, big.Secrets)
	}
	ring.Fail(nil)
	small := secretRecord("https://small.example")
	if err := s.Save(small); err != nil || small.Secrets != SecretsKeychain {
		t.Fatalf("Save: %v, secrets in %q", err, small.Secrets)
	}
	if said := warned.said(); len(said) != 1 || !strings.Contains(said[0], "too large") {
		t.Errorf("warnings: %q", said)
	}
}

// What the keychain answers is data: an item another program wrote or
// changed, a damaged one, a huge one, or none at all leaves the record
// unusable and says why, and never lends it a token.
func TestKeychainItemsMcpvDidNotWrite(t *testing.T) {
	for name, item := range map[string]string{
		"another token": `{"access_token":"planted-token"}`,
		"damaged":       `{"access_token":`,
		"huge":          `{"access_token":"` + strings.Repeat("x", 1<<20) + `"}`,
		"gone":          "",
	} {
		t.Run(name, func(t *testing.T) {
			ring := oauthtest.NewKeyring()
			s, warned := keychainStore(t, ring)
			rec := secretRecord("https://as.example")
			if err := s.Save(rec); err != nil {
				t.Fatal(err)
			}
			if item == "" {
				ring.Delete(rec.account())
			} else {
				ring.Put(rec.account(), item)
			}
			recs, err := s.Find(t.Context(), rec.Server)
			if err != nil || len(recs) != 1 {
				t.Fatalf("Find: %v, %v", recs, err)
			}
			if recs[0].Unread == nil || recs[0].Token.AccessToken != "" {
				t.Errorf("the record was read: token %.20q, unread %v", recs[0].Token.AccessToken, recs[0].Unread)
			}
			if len(warned.said()) != 0 {
				t.Errorf("warnings: %q (the keychain itself works)", warned.said())
			}
		})
	}
}

// fileFinisher is a keychain whose first read happens between another
// process's two writes of a refresh: the item is new, the file not yet.
// Its first Get writes the new file, as that process then does.
type fileFinisher struct {
	*oauthtest.Keyring
	once   sync.Once
	finish func()
}

func (f *fileFinisher) Get(account string) (string, error) {
	s, err := f.Keyring.Get(account)
	f.once.Do(f.finish)
	return s, err
}

func TestKeychainReadDuringARefresh(t *testing.T) {
	ring := oauthtest.NewKeyring()
	s, _ := keychainStore(t, ring)
	other := &Store{Dir: filepath.Join(t.TempDir(), "oauth"), Keychain: &Keychain{Ring: ring}}
	rec := secretRecord("https://as.example")
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	next := *rec
	next.Token.AccessToken = "refreshed-token"
	if err := other.Save(&next); err != nil { // the item is the refreshed one's, s's file the old one's
		t.Fatal(err)
	}
	s.Keychain.Ring = &fileFinisher{Keyring: ring, finish: func() {
		b, _ := os.ReadFile(other.path(&next))
		os.WriteFile(s.path(rec), b, 0o600)
	}}
	got, err := s.Load(rec)
	if err != nil || got.Unread != nil || got.Token.AccessToken != "refreshed-token" {
		t.Fatalf("Load: %v, unread %v, token %q", err, got.Unread, got.Token.AccessToken)
	}
}

// A refresh by another process that is slower than the reads between its
// two writes: the record read lock-free names an item it does not hold,
// and Find, which every reader of the store goes through (a run's token,
// auth status and logout, the era memory's credentials), reads it again
// once that process lets its lock go: it is the refreshed one. (Read
// without the lock, it is the mismatch still: the writer ends only after
// Find returns, or a second at most.)
func TestKeychainReadAfterASlowRefresh(t *testing.T) {
	ring := oauthtest.NewKeyring()
	s, _ := keychainStore(t, ring)
	rec := secretRecord("https://as.example")
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	writer := &Store{Dir: s.Dir, Keychain: &Keychain{Ring: ring}}
	unlock, err := writer.Lock(t.Context(), rec)
	if err != nil {
		t.Fatal(err)
	}
	next := *rec
	next.Token.AccessToken = "refreshed-token"
	item, _ := next.item()
	ring.Put(next.account(), item) // the refresh's first write; its file comes later
	if r, err := s.Load(rec); err != nil || !errors.Is(r.Unread, errNotOurs) {
		t.Fatalf("Load between the writes: %v, %v", r, err)
	}
	done := make(chan []*Record)
	go func() {
		recs, err := s.Find(t.Context(), rec.Server)
		if err != nil {
			t.Error(err)
		}
		done <- recs
	}()
	var got []*Record
	select {
	case got = <-done:
	case <-time.After(time.Second):
	}
	if err := writer.Save(&next); err != nil { // the file, then the lock let go
		t.Fatal(err)
	}
	unlock()
	if got == nil {
		got = <-done
	}
	if len(got) != 1 {
		t.Fatalf("Find: %d records", len(got))
	}
	if got[0].Unread != nil || got[0].Token.AccessToken != "refreshed-token" {
		t.Fatalf("Find: unread %v, token %q", got[0].Unread, got[0].Token.AccessToken)
	}
}

// A run whose keychain cannot be read does not use what is kept there:
// in stored mode it asks for a login, as with nothing stored; a run that
// reads it uses the token.
func TestUnreadRecordIsNotUsed(t *testing.T) {
	w := newWorld(t)
	ring := oauthtest.NewKeyring()
	dir := filepath.Join(t.TempDir(), "oauth")
	manager := func() *Manager {
		m, err := NewManager(Options{ServerURL: w.rs.URL + "/mcp", HTTP: testkit.HTTP(t), Mode: ModeAuto, Open: browser(t),
			Store: &Store{Dir: dir, Keychain: &Keychain{Ring: ring, Warn: func(string) {}}}}, testkit.Pool(t))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if status, _, err := call(t, manager(), w, "tools/list"); err != nil || status != 200 {
		t.Fatalf("login: %d %v", status, err)
	}
	if len(ring.Items()) != 1 {
		t.Fatalf("the keychain holds %v", ring.Items())
	}
	if status, _, err := call(t, manager(), w, "tools/list"); err != nil || status != 200 || w.count("authorize") != 1 {
		t.Fatalf("from the keychain: %d %v, %d authorizations", status, err, w.count("authorize"))
	}
	ring.Fail(errors.New("locked"))
	m := manager()
	m.opts.Mode, m.opts.Open = ModeStored, noBrowser(t)
	if _, _, err := call(t, m, w, "tools/list"); err == nil || !strings.Contains(err.Error(), "does not start a browser flow") {
		t.Fatalf("with the keychain locked: %v", err)
	}
}
