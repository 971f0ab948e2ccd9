package commands

// mcpv check's connection doctor: what a connection to the server needs,
// step by step (internal/doctor), alone with --connect-only, or in place
// of the catalogue when no session opens and the server broke no
// requirement on the way (it could not be started or reached).

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpv/mcpv/internal/check"
	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/doctor"
	"github.com/mcpv/mcpv/internal/testreport"
)

// doctorSuite names the doctor's report.
var doctorSuite = testreport.Suite{Name: "mcpv check", Group: "area", Groups: "areas", Item: "step", Items: "steps"}

// connect walks the connection to the target and writes the walk as the
// report; the error is the walk's failure, with its exit code.
func (c *checkCmd) connect(ctx context.Context, s *session, target *check.Target, opts check.Options, dest *testreport.Output, format string, out *console) error {
	// The walk waits for a stdio server's first answer as long as it
	// waits on the network, unless --connect-timeout says otherwise (a
	// value other than its default).
	if opts.StartTimeout == connect.DefaultConnectTimeout {
		opts.StartTimeout = doctor.DefaultTimeout
	}
	dt, err := c.doctorTarget(s, target, opts)
	if err != nil {
		return err
	}
	started := time.Now()
	walk := doctor.Walk(ctx, dt)
	files := []testreport.File{walk.File(started)}
	took := time.Since(started)
	suite := doctorSuite
	suite.Header = [][2]string{{"server", target.Server}}
	if err := c.write("mcpv check: "+target.Server+", the connection", suite, files, took, false, dest, format, out); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if f := walk.Failed(); f != nil {
		return checkFailed{connect: fmt.Sprintf("the connection fails at %s: %s", f.Name, f.Finding), exit: f.Code}
	}
	return nil
}

// doctorTarget is the session's server as the doctor reaches it.
func (c *checkCmd) doctorTarget(s *session, target *check.Target, opts check.Options) (doctor.Target, error) {
	st := s.settings
	dt := doctor.Target{Server: target.Server, URL: st.URL, Header: st.Header, Stdio: target.Stdio, Start: target.Start, Era: st.ProtocolEra,
		ClientInfo: s.hooks.Client, StartTimeout: opts.StartTimeout}
	if st.URL != "" {
		var err error
		if dt.Client, dt.Plain, err = s.httpClients(); err != nil {
			return dt, err
		}
		target.Client, target.Plain = dt.Client, dt.Plain
	}
	dt.FirstContact = func(ctx context.Context) (string, string) { return check.FirstContact(ctx, target, opts) }
	return dt, nil
}
