// Package testkit is what mcpv's tests share, and nothing of mcpv's own
// code imports: which tests the quick tier leaves out (SkipLong), bounds on
// what a parse allocates and the hostile inputs every parser's fuzz target
// is seeded with, loopback addresses that refuse every connection for a
// test's whole run, and an OTLP/HTTP collector. It imports nothing of mcpv
// but rawjson, so that any package's tests may import it.
package testkit
