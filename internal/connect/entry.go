package connect

import (
	"log/slog"

	"github.com/mcpv/mcpv/internal/config"
)

// ResolveEntry is Resolve for a config entry the caller holds, rather
// than one the flags name: a server of a serve file (its own entry, or a
// config server's with what the serve file adds). It is checked for
// trust as its file's entries are (an untrusted project file's stdio
// entry does not run), expanded, and merged with the flags, which name
// no server.
func ResolveEntry(f Flags, explicit map[string]bool, s *config.Server, env Env, log *slog.Logger) (*Settings, error) {
	f.URL, f.Session, f.Server = "", "", s.Name
	return resolve(f, explicit, nil, env, log, s)
}
