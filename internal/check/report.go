package check

import (
	"fmt"
	"time"

	"github.com/mcpv/mcpv/internal/testreport"
)

// Suite is the report as the test report package writes it: areas of
// checks, with the server, its era and its version first.
func (r *Report) Suite() testreport.Suite {
	return testreport.Suite{Name: "mcpv check", Group: "area", Groups: "areas", Item: "check", Items: "checks",
		Header: [][2]string{{"server", r.Server}, {"era", r.Era}, {"protocolVersion", r.Version}, {"serverTime", r.ServerTime.Round(time.Millisecond).String()}}}
}

// Waited says how much of the run's time was the server's: while its
// requests waited for answers.
func (r *Report) Waited() string {
	return fmt.Sprintf("waited %s of %s for the server's answers", r.ServerTime.Round(time.Millisecond), r.Took.Round(time.Millisecond))
}

// Files are the report as the test report package's records: an area a
// file, a check a step.
func (r *Report) Files(started time.Time) []testreport.File {
	var files []testreport.File
	for _, a := range Areas {
		f := testreport.File{Path: a.ID, Name: a.Title, Named: true, Started: started, Interrupted: r.Stopped != nil}
		for _, res := range r.Results {
			if res.Area != a.ID {
				continue
			}
			s := testreport.Step{Index: len(f.Steps) + 1, ID: res.ID, Name: res.ID + "  " + res.Title, Tag: string(res.Level),
				Ref: Ref(res.Check), Took: res.Took, Notes: res.Notes}
			f.Took += res.Took
			s.Status = [...]testreport.Status{Passed: testreport.Passed, Failed: testreport.Failed, Warned: testreport.Warned,
				Skipped: testreport.Skipped, Blocked: testreport.Blocked, Inconclusive: testreport.Inconclusive}[res.Status]
			switch res.Status {
			case Skipped, Inconclusive:
				s.Reason = res.Message
			case Blocked:
				s.Reason, s.BlockedBy = "by "+res.BlockedBy+": "+res.Message, res.BlockedBy
			case Failed, Warned:
				s.Failures = []testreport.Failure{{Kind: string(res.Level), Message: res.Message,
					Sent: res.Sent, Received: res.Received, Requires: fmt.Sprintf("%q (%s)", res.Quote, Ref(res.Check))}}
			}
			f.Steps = append(f.Steps, s)
		}
		if len(f.Steps) > 0 {
			files = append(files, f)
		}
	}
	return files
}

// Ref is where a check's requirement is stated: "2025-11-25
// basic/transports#stdio".
func Ref(c *Check) string { return c.Spec + " " + c.Section }
