// Package mcp is mcpv's protocol layer: a JSON-RPC 2.0 session over a
// transport (stdio, Streamable HTTP, legacy HTTP+SSE), and an MCP client on
// top of it (the initialize lifecycle, capabilities, timeouts with progress,
// pagination, tasks). It is a library: it never prints, never reads the
// process environment, and knows nothing of mcpv's command line. Warnings go
// to a *slog.Logger the caller gives; errors are typed values the caller maps
// to what it shows.
//
// # Layers
//
//	Client     MCP: Initialize, Call (timeouts, progress tokens), List and
//	           Walk (pagination), WaitTask and CancelTask (tasks), ToolCache
//	Session    JSON-RPC: ids, the pending-call map, cancellation on the wire,
//	           server requests and notifications
//	Transport  whole messages both ways: CommandTransport (stdio),
//	           HTTPTransport (Streamable HTTP, legacy SSE as a fallback)
//
// Payloads stay raw: params, results, error data and ids are json.RawMessage
// end to end, so a result reaches the caller byte for byte as the server sent
// it (key order, number text, unknown fields) and a 100 MB result is never
// decoded into Go values. The package writes its own JSON-RPC rather than use
// an SDK because SDK clients decode results into typed structs, which drops
// what mcpv must print.
//
// # The transport contract
//
// A Transport moves whole messages: Read returns one JSON value (an object,
// or an array for a batch from a 2025-03-26 peer), Write sends one. Read is
// called by one goroutine only (the session's reader) and returns a fresh
// slice each time. Its errors are of two kinds: a *RequestError belongs to
// one request (an HTTP POST that failed, a stream that could not be resumed)
// and fails that request alone; any other error ends the session: io.EOF,
// *TransportError (which quotes the tail of a stdio server's stderr),
// *AuthError (HTTP 401 or 403).
//
// Write is serialised by the session unless the transport implements
// ConcurrentWriter and returns true (HTTP: every message is its own POST, and
// a request's POST is answered on a goroutine of its own, so Write returns
// before the answer arrives). A transport that must know the negotiated
// protocol version implements VersionSetter. Close is bounded: stdio closes
// the server's stdin, then signals its process group with SIGTERM and
// SIGKILL, waiting a grace period between steps; HTTP DELETEs the session.
// When Close's context is done, the grace periods are skipped.
//
// # Goroutines and what stops them
//
//   - Session: the reader (stops when Read fails, which Close brings
//     about); the dispatcher, which delivers notifications in order from a
//     bounded queue (stops when the reader has stopped and the queue is
//     drained); one goroutine per server request being handled, at most
//     maxServerRequests (each ends when its handler returns and its answer
//     is written, or at once when the session closes).
//   - CommandTransport: one copying the server's stderr (stops at EOF, when
//     every holder of the pipe has gone) and one waiting for the process.
//   - HTTPTransport: one per request's POST (stops with the answer, the
//     request's context, or Close), the standalone GET stream and the legacy
//     SSE stream (stop at Close or when the server ends them).
//
// # The specification
//
// MCP 2025-11-25: https://modelcontextprotocol.io/specification/2025-11-25.
// Code that implements a requirement names the section it follows; the
// transports are at .../basic/transports, the lifecycle at
// .../basic/lifecycle, cancellation and progress under .../basic/utilities.
package mcp
