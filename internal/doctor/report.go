package doctor

import (
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/testreport"
)

// Area is the report's one area: the connection's steps.
const Area = "connect"

// File is the walk as a test report's file: a step per step, what it
// found as a note, a failure or warning with its fix (the caller masks
// it of secrets, testreport.File.Mask).
func (r *Report) File(started time.Time) testreport.File {
	f := testreport.File{Path: Area, Name: "The connection, step by step", Named: true, Started: started}
	for i, s := range r.Steps {
		id := Area + "." + strings.ToLower(strings.ReplaceAll(s.Name, " ", "-"))
		st := testreport.Step{Index: i + 1, ID: id, Name: id + "  " + s.Name, Took: s.Took}
		f.Took += s.Took
		switch s.Status {
		case OK:
			st.Status = testreport.Passed
			st.Notes = []string{s.Finding}
		case Skipped:
			st.Status, st.Reason = testreport.Skipped, s.Finding
		case Warn, Fail:
			st.Status = testreport.Failed
			kind := "fail"
			if s.Status == Warn {
				st.Status, kind = testreport.Warned, "warning"
			}
			fl := testreport.Failure{Kind: kind, Message: s.Finding}
			if s.Fix != "" {
				fl.Details = []string{"fix: " + s.Fix}
			}
			st.Failures = []testreport.Failure{fl}
		}
		f.Steps = append(f.Steps, st)
	}
	return f
}
