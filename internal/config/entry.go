package config

import "github.com/mcpv/mcpv/internal/yamlnode"

// Another of mcpv's files may hold config entries, or parts of one (a
// serve file: the servers mcpv serve puts behind one endpoint, and what
// it adds to a config server's entry). These, with File.Entry, ParseGuard,
// ParseOAuth, ParseVars, ParseDuration and ParseStrings, read them as a
// config file reads its own.

// ParseYAML parses a YAML document of mcpv's own, bounded as a config
// file is.
func ParseYAML(data []byte, what string) (*yamlnode.Node, error) {
	return yamlnode.Parse(data, yamlnode.Options{What: what, MaxNodes: maxYAMLNodes})
}

// ParseJSON parses a JSON document of mcpv's own (comments and trailing
// commas allowed) as a config file is.
func ParseJSON(data []byte) (*yamlnode.Node, error) {
	data, err := checkJSON(data)
	if err != nil {
		return nil, err
	}
	return jsonAt(data)
}

// Classify is src as Sources classifies a file the user names: a project
// file when it lies under the current repository (cwd's).
func Classify(src Source, cwd string) Source { return classify([]Source{src}, cwd)[0] }
