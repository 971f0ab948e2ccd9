// Vars is the one list of the environment variables mcpv reads,
// shown by 'mcpv help environment', the man page and docs/guide/environment.md (made
// from it by go generate); a test keeps it equal to what the code reads.

package manpage

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
	{Name: "MCPV_IF_DECLARED", Help: "true: a list of a capability the server does not declare prints the empty list and exits 0, not 3 (--if-declared)"},
	{Name: "MCPV_PIN_STRICT", Help: "1 or true: as --pin-strict, refuse every pinned item while the server's instructions are not those pinned"},
	{Name: "MCPV_LIST_TTL", Help: "how long a server's list that says nothing of its own (no ttlMs) is kept between runs to type a call's arguments without listing, as a duration (default 5m; 0: not at all; --fresh asks anyway)"},
	{Name: "MCPV_CLIENT_SECRET", Help: "the OAuth client secret when --client-secret is not given"},
	{Name: "MCPV_ID_TOKEN", Help: "the user's ID token for --grant cross-app when --id-token is not given"},
	{Name: "MCPV_ASSERTION", Help: "the workload's JWT for --grant jwt-bearer when --assertion is not given"},
	{Name: "MCPV_OUTPUT", Help: "table: info and the list commands print a table when stdout is a terminal (--output-format; never in a pipe)"},
	{Name: "MCPV_ERRORS", Help: "json: every failure is one JSON object on stderr (exit, kind, message, the server's JSON-RPC error, hint) when --errors is not given; text: one line; any other value is refused (exit 2)"},
	{Name: "MCPV_INPUT_<ID>", Help: "the value of ${input:ID} in a config file (ID in upper case, other characters than letters and digits as _); unset, mcpv asks on the terminal"},
	{Name: "MCPV_TOKEN_STORE", Help: "where OAuth tokens and client secrets are kept: auto (the default: the system's keychain where there is one, else a file readable by you alone), keychain (an error where the keychain cannot keep them) or file (a headless machine, CI)"},
	{Name: "MCPV_TRACE", Help: "the trace file every run writes when --trace is not given (a CI job sets it once)"},
	{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Help: "set: export spans over OTLP/HTTP (JSON) to this collector's /v1/traces (as --otel does; default http://localhost:4318)"},
	{Name: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", Help: "set: export spans to this URL, as it is"},
	{Name: "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", Help: "where mcpv load posts its figures as OTLP metrics when spans are exported (default: the endpoint's /v1/metrics)"},
	{Name: "OTEL_EXPORTER_OTLP_HEADERS", Help: "headers sent with each export (key=value,...; values URL-encoded), masked in every output"},
	{Name: "OTEL_EXPORTER_OTLP_TRACES_HEADERS", Help: "more headers sent with each export of spans"},
	{Name: "OTEL_EXPORTER_OTLP_TIMEOUT", Help: "milliseconds an export may take (at most 2000: mcpv waits no longer at its exit)"},
	{Name: "OTEL_EXPORTER_OTLP_PROTOCOL", Help: "grpc is refused: mcpv exports over OTLP/HTTP only"},
	{Name: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", Help: "grpc is refused, as for OTEL_EXPORTER_OTLP_PROTOCOL"},
	{Name: "OTEL_SERVICE_NAME", Help: "the service.name of mcpv's spans (default mcpv)"},
	{Name: "OTEL_SDK_DISABLED", Help: "true: export nothing, whatever else asks for it"},
	{Name: "TRACEPARENT", Help: "a W3C traceparent: the command's span is its child (a CI job's or an agent's trace)"},
	{Name: "MCPV_HTTP_TOKEN", Help: "the bearer token serve --http and mock --http require when --http-token is not given"},
	{Name: "NO_COLOR", Help: "set: no colour"},
	{Name: "CLICOLOR", Help: "0: no colour"},
	{Name: "CLICOLOR_FORCE", Help: "set and not 0: colour even when stdout is not a terminal"},
	{Name: "FORCE_COLOR", Help: "the same as CLICOLOR_FORCE"},
	{Name: "TERM", Help: "dumb: no colour and no progress line"},
	{Name: "BROWSER", Help: "the browser for OAuth logins (a shell command; on Windows a program)"},
	{Name: "SSH_CONNECTION", Help: "set (or SSH_TTY): no browser can be opened here, so a login takes the device grant where the server offers it"},
	{Name: "SSH_TTY", Help: "see SSH_CONNECTION"},
	{Name: "DISPLAY", Help: "Linux and the BSDs: unset (and WAYLAND_DISPLAY unset, BROWSER unset): no browser can be opened, as over ssh"},
	{Name: "WAYLAND_DISPLAY", Help: "see DISPLAY"},
	{Name: "DBUS_SESSION_BUS_ADDRESS", Help: "Linux and the BSDs: the session bus, where the Secret Service keeps tokens; unset (and no /run/user/UID/bus): no keychain, tokens are kept in files"},
	{Name: "HOME", Help: "the home directory, for config files and the state directory"},
	{Name: "USERPROFILE", Help: "Windows: the home directory when HOME is not set", Library: true},
	{Name: "XDG_CONFIG_HOME", Help: "where mcpv's catalog and Claude Desktop's and VS Code's files are (default ~/.config)"},
	{Name: "XDG_STATE_HOME", Help: "the state directory's parent (default ~/.local/state)"},
	{Name: "XDG_RUNTIME_DIR", Help: "where session sockets live"},
	{Name: "APPDATA", Help: "Windows: where the catalog and Claude Desktop's and VS Code's files are"},
	{Name: "LOCALAPPDATA", Help: "Windows: the state directory's parent"},
	{Name: "CI", Help: "set (and not false or 0): mcpv test runs as in CI (--ci), where a missing snapshot fails its step"},
	{Name: "MCPV_LAUNCHER_FD", Help: "set by the npm package's launcher: the descriptor of a pipe it holds while it runs; when the pipe closes (the launcher ended, killed with SIGKILL too) mcpv ends as on SIGTERM. Taken out of the environment of every process mcpv starts"},
	{Name: "GOGC", Help: "set (or GOMEMLIMIT set): Go's garbage collector as it says; otherwise mcpv collects nothing until its heap nears 32 MB"},
	{Name: "GOMEMLIMIT", Help: "see GOGC"},
	{Name: "HTTPS_PROXY", Help: "the proxy for HTTPS servers (also HTTP_PROXY, NO_PROXY)", Library: true},
}
