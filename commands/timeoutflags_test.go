package commands

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/output"
)

// --timeout, --connect-timeout and --max-timeout take what a config
// entry's timeout takes: a Go duration or a bare number of seconds.
func TestTimeoutFlagsTakeSeconds(t *testing.T) {
	parse := func(t *testing.T, args ...string) (*cli, error) {
		t.Helper()
		var c cli
		var out bytes.Buffer
		k, err := parser(&c, output.NewStreams(strings.NewReader(""), &out, &out), func(code int) { t.Fatalf("exit %d: %s", code, out.String()) }, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = k.Parse(append(args, "ping"))
		return &c, err
	}
	c, err := parse(t)
	if err != nil || c.flags.Timeout != 10*time.Minute || c.flags.ConnectTimeout != time.Minute || c.flags.MaxTimeout != time.Hour {
		t.Fatalf("defaults: %v %v %v, %v", c.flags.Timeout, c.flags.ConnectTimeout, c.flags.MaxTimeout, err)
	}
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{[]string{"--timeout", "30"}, 30 * time.Second},
		{[]string{"--timeout", "1.5"}, 1500 * time.Millisecond},
		{[]string{"--timeout=1.5"}, 1500 * time.Millisecond},
		{[]string{"--timeout", "1m30s"}, 90 * time.Second},
		{[]string{"--timeout", "0"}, 0},
		{[]string{"--timeout", "1e3"}, 1000 * time.Second},
	} {
		c, err := parse(t, tc.args...)
		if err != nil || c.flags.Timeout != tc.want {
			t.Errorf("%q: --timeout %v, %v; want %v", tc.args, c.flags.Timeout, err, tc.want)
		}
	}
	c, err = parse(t, "--connect-timeout", "2.5", "--max-timeout", "7200")
	if err != nil || c.flags.ConnectTimeout != 2500*time.Millisecond || c.flags.MaxTimeout != 2*time.Hour {
		t.Errorf("--connect-timeout %v, --max-timeout %v, %v", c.flags.ConnectTimeout, c.flags.MaxTimeout, err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--timeout", "-1"}, `--timeout: "-1" is negative`},
		{[]string{"--timeout=-1"}, `--timeout: "-1" is negative`},
		{[]string{"--timeout=-5s"}, `--timeout: "-5s" is negative`},
		{[]string{"--timeout", "abc"}, `--timeout: "abc" is not a duration: want e.g. 30s, 1m30s or a number of seconds`},
		{[]string{"--timeout", "NaN"}, `--timeout: "NaN" is not a duration`},
		{[]string{"--timeout", "Inf"}, `--timeout: "Inf" is not a duration`},
		{[]string{"--timeout", "1e10"}, `--timeout: "1e10" is too long`},
		{[]string{"--connect-timeout", "soon"}, `--connect-timeout: "soon" is not a duration`},
		{[]string{"--max-timeout=-0.5"}, `--max-timeout: "-0.5" is negative`},
	} {
		r := mcpv(t, "", append(tc.args, "ping", "--", "true")...)
		if r.code != exitcode.Usage || !strings.Contains(r.stderr, tc.want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%q: code %d, stderr %q; want exit 2 and one line with %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// A bare number is seconds all the way down: 0.2 is 200ms.
func TestConnectTimeoutInSeconds(t *testing.T) {
	unixOnly(t, "a server that never answers: sleep")
	t.Parallel()
	r := mcpv(t, "", "--connect-timeout", "0.2", "ping", "--", "sleep", "30")
	if r.code != 124 || !strings.Contains(r.stderr, "the server did not answer within 200ms of its start (--connect-timeout); it wrote nothing at all: if it is still starting, give it longer with --connect-timeout") {
		t.Fatalf("code %d, stderr %q", r.code, r.stderr)
	}
}
