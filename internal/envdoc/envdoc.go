// Package envdoc is the one list of the environment variables mcpv reads,
// shown by 'mcpv help environment', the man page and docs/guide/environment.md (made
// from it by go generate); a test keeps it equal to what the code reads.
package envdoc

// Var is one environment variable and what mcpv does with it.
type Var struct {
	// Name is the variable's; a family of variables ends with a
	// placeholder: MCPV_INPUT_<ID>.
	Name, Help string
	// Library: read by a library mcpv uses (Go's net/http), not by mcpv's
	// own code.
	Library bool
}

// Vars are the variables mcpv reads, in the order they are shown.
var Vars = []Var{
	{Name: "MCPV_SERVER", Help: "the server name when --server is not given"},
	{Name: "MCPV_URL", Help: "the server URL when --url is not given"},
	{Name: "MCPV_CONFIG", Help: "a config file read before the project's and the user's"},
	{Name: "MCPV_SESSION", Help: "the session to use when --session is not given"},
	{Name: "MCPV_PIN", Help: "the pin file to hold servers to when --pin is not given (mcpv pin)"},
	{Name: "MCPV_PIN_STRICT", Help: "1 or true: as --pin-strict, refuse every pinned item while the server's instructions are not those pinned"},
	{Name: "MCPV_CLIENT_SECRET", Help: "the OAuth client secret when --client-secret is not given"},
	{Name: "MCPV_ID_TOKEN", Help: "the user's ID token for --grant cross-app when --id-token is not given"},
	{Name: "MCPV_ASSERTION", Help: "the workload's JWT for --grant jwt-bearer when --assertion is not given"},
	{Name: "MCPV_OUTPUT", Help: "table: info and the list commands print a table when stdout is a terminal (--output-format; never in a pipe)"},
	{Name: "MCPV_INPUT_<ID>", Help: "the value of ${input:ID} in a config file (ID in upper case, other characters than letters and digits as _); unset, mcpv asks on the terminal"},
	{Name: "MCPV_HTTP_TOKEN", Help: "the bearer token serve --http and mock --http require when --http-token is not given"},
	{Name: "NO_COLOR", Help: "set: no colour"},
	{Name: "CLICOLOR", Help: "0: no colour"},
	{Name: "CLICOLOR_FORCE", Help: "set and not 0: colour even when stdout is not a terminal"},
	{Name: "FORCE_COLOR", Help: "the same as CLICOLOR_FORCE"},
	{Name: "TERM", Help: "dumb: no colour and no progress line"},
	{Name: "BROWSER", Help: "the browser for OAuth logins (a shell command; on Windows a program)"},
	{Name: "HOME", Help: "the home directory, for config files and the state directory"},
	{Name: "USERPROFILE", Help: "Windows: the home directory when HOME is not set", Library: true},
	{Name: "XDG_CONFIG_HOME", Help: "where mcpv's catalog and Claude Desktop's and VS Code's files are (default ~/.config)"},
	{Name: "XDG_STATE_HOME", Help: "the state directory's parent (default ~/.local/state)"},
	{Name: "XDG_RUNTIME_DIR", Help: "where session sockets live"},
	{Name: "APPDATA", Help: "Windows: where the catalog and Claude Desktop's and VS Code's files are"},
	{Name: "LOCALAPPDATA", Help: "Windows: the state directory's parent"},
	{Name: "CI", Help: "set (and not false or 0): mcpv test runs as in CI (--ci), where a missing snapshot fails its step"},
	{Name: "GOGC", Help: "set (or GOMEMLIMIT set): Go's garbage collector as it says; otherwise mcpv collects nothing until its heap nears 32 MB"},
	{Name: "GOMEMLIMIT", Help: "see GOGC"},
	{Name: "HTTPS_PROXY", Help: "the proxy for HTTPS servers (also HTTP_PROXY, NO_PROXY)", Library: true},
}
