// Package connect opens the session a command talks through, in three
// steps the command line takes in turn:
//
//   - Resolve finds the server a run names (exactly one of --url, --server
//     and the words after --, else MCPV_URL or MCPV_SERVER): it looks a
//     config entry up, refuses a project file the user has not trusted,
//     expands the entry's variables, reads the files the flags name (-H
//     @FILE, the secrets) and hands all of it to Merge.
//   - Merge is a pure function: the session flags, what Resolve found and
//     the environment become Settings, data only. It does no I/O, so every
//     mistake it finds is reported before any server starts.
//   - Open turns Settings into a connected *Conn: it starts the stdio
//     server (or prepares the HTTP transport, with OAuth when the server
//     asks for it), finds the server's era and initializes, and from then
//     on answers the server's requests (sampling, elicitation, roots) and
//     shows its notifications through the Hooks the command line supplies.
//     On failure nothing is left running. Attach does the same over a
//     session keeper's transport, sending nothing.
//
// What connect never does: read the process's environment, working
// directory or streams (it is given an Env and Hooks; only System reads
// the process's), parse the command line (its Flags are filled by
// commands), print a result, or decide an exit code (its errors are
// typed, and internal/exitcode maps them). What a command does with the
// session once it is open is the command's.
package connect
