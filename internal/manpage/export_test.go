package manpage

// For the tests of mcpv's page (package manpage_test).
var (
	CommandPath = commandPath
	Quoted      = quoted
	Escape      = escape
)
