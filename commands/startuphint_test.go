package commands

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// A server that gets no further than its start says why it may be, by
// what it wrote: on its stderr only (still starting: more
// --connect-timeout), of headers (Content-Length framing), or nothing at
// all (either). A framing hint is given only where framing may be the
// cause.
func TestStartupHints(t *testing.T) {
	t.Parallel()
	const (
		longer  = "if it is still starting, give it longer with --connect-timeout"
		framing = "--framing content-length"
	)
	sh := func(script string) []string { return []string{"--", "sh", "-c", script} }
	tests := []struct {
		name     string
		args     []string
		server   []string
		code     int
		has, not string
		// wrote is the line the server writes on its stderr before the
		// connect timeout (on the test's clock) runs out, once mcpv has
		// shown it; "" for none.
		wrote string
	}{
		{name: "still starting, saying so on stderr", args: []string{"--connect-timeout", "1s"}, server: fake("slow-start=3600000"), code: 124,
			has: "it wrote on its stderr but nothing on its stdout: " + longer, not: framing, wrote: "fake: starting up"},
		{name: "silent: starting, or waiting for frames", args: []string{"--connect-timeout", "1s"}, server: fake("content-length=strict"), code: 124,
			has: "it wrote nothing at all: " + longer + "; if it reads only Content-Length frames, it needs " + framing},
		{name: "silent, with the framing given", args: []string{"--connect-timeout", "1s", "--framing", "lines"}, server: fake("content-length=strict"), code: 124,
			has: "it wrote nothing at all: " + longer + "\n", not: framing},
		{name: "exits on the first line, of a bad header", server: fake("content-length=exit"), code: 4,
			has: "\nmcpv: server exited with status 1; it wrote nothing on its stdout: a server that reads only Content-Length frames needs " + framing + "\n",
			not: "last lines"},
		{name: "exits on the first line, of a bad header, quietly", args: []string{"--quiet"}, server: fake("content-length=exit"), code: 4,
			has: "server exited with status 1; it wrote nothing on its stdout: a server that reads only Content-Length frames needs " + framing +
				"\nlast lines of the server's stderr:\n  | fake: Error: bad header"},
		{name: "exits for another reason", server: sh("echo 'Error: Cannot find module x' >&2; exit 1"), code: 4,
			has: "Error: Cannot find module x\nmcpv: server exited with status 1\n", not: framing},
		{name: "waits, speaking of headers", args: []string{"--connect-timeout", "1s"}, server: sh("echo 'expecting a Content-Length header' >&2; exec sleep 3600"), code: 124,
			has: "its stderr speaks of headers: a server that reads only Content-Length frames needs " + framing, not: longer, wrote: "expecting a Content-Length header"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.server[1] == "sh" {
				unixOnly(t, "a server written in sh")
			}
			t.Parallel()
			argv := append(append(tt.args, "ping"), tt.server...)
			var code int
			var stderr string
			if slices.Contains(tt.args, "--connect-timeout") {
				// The connect timeout runs out when the test says: once
				// what the server writes has been read.
				clock := mcptest.NewClock()
				_, errb, _, wait := backgroundIn(t, onClock(testEnv(t), clock), argv...)
				if tt.wrote != "" {
					errb.waitFor(t, tt.wrote)
				}
				clock.WaitUntil(t, "the connect timeout running", func(ts mcptest.Timers) bool { return ts.Running[time.Second] > 0 })
				clock.Fire(time.Second)
				code, stderr = wait(), errb.String()
			} else {
				r := mcpv(t, "", argv...)
				code, stderr = r.code, r.stderr
			}
			if code != tt.code || !strings.Contains(stderr, tt.has) || tt.not != "" && strings.Contains(stderr, tt.not) {
				t.Errorf("exit %d, stderr %q; want exit %d, with %q, without %q", code, stderr, tt.code, tt.has, tt.not)
			}
		})
	}
}
