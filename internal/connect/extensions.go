package connect

import (
	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/mcp"
)

// noExtensions are the identifiers of the extensions a session does not
// declare: those --no-extension names, and those the config entry turns
// off (extensions: {NAME: false}). A name of no extension mcpv speaks is
// a mistake, said with the names it knows.
func noExtensions(flag []string, x *config.Expanded) ([]string, error) {
	var ids []string
	for _, name := range flag {
		id, ok := mcp.ExtensionID(name)
		if !ok {
			return nil, errkind.Usagef("--no-extension %s: mcpv speaks no such extension (it speaks %s)", name, mcp.ExtensionNames())
		}
		ids = append(ids, id)
	}
	if x != nil {
		for _, name := range x.NoExtensions {
			id, ok := mcp.ExtensionID(name)
			if !ok {
				return nil, errkind.Configf("%s: server %q: extensions: mcpv speaks no extension %q (it speaks %s)", x.Where(), x.Name, name, mcp.ExtensionNames())
			}
			ids = append(ids, id)
		}
	}
	return uniq(ids), nil
}
