package connect

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/mcp"
)

// A kept session is an HTTP session that call --detach left open, so that
// a later command can collect the task from the server that scopes tasks to
// its session: its id and what was negotiated are kept, 0600, in the state
// directory, and --session-id resumes it without a new initialize.
type keptSession struct {
	URL       string    `json:"url"`
	SessionID string    `json:"sessionId"`
	State     mcp.State `json:"state"`
	Saved     time.Time `json:"saved"`
}

func keptFile(dir, url, sid string) string {
	sum := sha256.Sum256([]byte(url + "\n" + sid))
	return filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")
}

// Keep leaves the HTTP session open when the command ends (no DELETE) and
// records it for --session-id. It returns the session id, or "" when there
// is no session to keep (stdio, or a server of the 2026-07-28 era, which
// has no sessions).
func (c *Conn) Keep() (string, error) {
	if c.http == nil || c.Client.Modern() {
		return "", nil
	}
	sid := c.http.SessionID()
	if sid == "" {
		return "", nil
	}
	dir, root := c.env.stateDir("http-sessions") // where kept sessions are recorded
	if err := safedir.MkdirAll(root, dir); err != nil {
		return "", err
	}
	b, err := json.Marshal(keptSession{URL: c.settings.URL, SessionID: sid, State: c.Client.State(), Saved: time.Now().UTC()})
	if err != nil {
		return "", err
	}
	if err := safefile.Replace(keptFile(dir, c.settings.URL, sid), b); err != nil {
		return "", err
	}
	c.http.Keep()
	return sid, nil
}

// resume opens the kept session s.ResumeSession over t.
func resume(s *Settings, env Env, h Hooks, ans *answerer) (*Conn, error) {
	dir, root := env.stateDir("http-sessions")
	if err := safedir.Check(root, dir); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(keptFile(dir, s.URL, s.ResumeSession))
	var k keptSession
	if errors.Is(err, os.ErrNotExist) || err == nil && (json.Unmarshal(b, &k) != nil || k.SessionID != s.ResumeSession || k.URL != s.URL) {
		return nil, errkind.Usagef("--session-id: no session %q of %s was kept here (call --detach keeps one)", s.ResumeSession, s.URL)
	}
	if err != nil {
		return nil, err
	}
	opts, err := httpOptions(s, env, h)
	if err != nil {
		return nil, err
	}
	opts.Mode, opts.SessionID, opts.ProtocolVersion = mcp.ModeStreamable, k.SessionID, k.State.Version
	t, err := mcp.NewHTTPTransport(opts)
	if err != nil {
		return nil, errkind.Usage(err)
	}
	t.Keep() // a later command may want it too; the server's own expiry ends it
	c, session := newConn(s, h, ans, t, nil, false)
	c.http, c.settings, c.env = t, s, env
	c.Client = mcp.Attach(session, clientOptions(s, env, h, ans.capabilities()), k.State)
	return c, nil
}
