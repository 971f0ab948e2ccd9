// An mcpv test file read as a scenario of mcpv load:
// what one virtual user does in one iteration. Its steps become load's
// operations, in order, on one session; what a step captures fills the
// words of the steps after it ({{name}}), its expectations are checked as
// mcpv test checks them (a step that fails them fails the pass, and the
// error names the step), and its think: is the pause before it. The file
// is read by internal/testfile, so a scenario is a test file and a test
// file a scenario: no format of its own.

package load

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/toolcall"
	"github.com/mcpv/mcpv/mcp"
)

// ScenarioSteps are f's steps as load runs them; code is the exit code mcpv would
// end with for an error (what an expectation's exit: compares). readFile
// reads a step's @FILE (through f's tree). A step load cannot run (a
// snapshot or lint step, a command that is no load operation, an option
// of the command line) is a mistake in the file: FILE:LINE: message.
func ScenarioSteps(f *testfile.File, readFile func(string) ([]byte, error), code func(error) int) ([]Step, error) {
	var steps []Step
	var errs []string
	for _, st := range f.Steps {
		if st.Skip != "" {
			continue
		}
		s, err := scenarioStep(st, readFile, code)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s:%d: step %d (%s): %v", f.Path, st.Line, st.Index, st.Name, err))
			continue
		}
		steps = append(steps, s)
	}
	if len(errs) > 0 {
		return nil, errkind.Usagef("%s", strings.Join(errs, "\n"))
	}
	if len(steps) == 0 {
		return nil, errkind.Usagef("%s: no step to run", f.Path)
	}
	return steps, nil
}

func scenarioStep(st *testfile.Step, readFile func(string) ([]byte, error), code func(error) int) (Step, error) {
	if st.Kind != testfile.StepLine {
		return Step{}, errors.New("snapshot, lint and cost steps are mcpv test's: a scenario's steps are operations")
	}
	// The words with a placeholder for each capture, for the operation
	// parsed and prepared once; a step that uses captures is made anew
	// for each pass from what they hold.
	placeholders := map[string]json.RawMessage{}
	for _, name := range st.Needs {
		placeholders[name] = json.RawMessage("0")
	}
	read := readFile
	if len(st.Needs) > 0 { // a file a capture names is read as each pass makes it
		read = func(string) ([]byte, error) { return []byte("null"), nil }
	}
	words, err := loadWords(st.Fill(placeholders), read)
	if err != nil {
		return Step{}, err
	}
	op, err := ParseOp(words, read)
	if err != nil {
		return Step{}, err
	}
	op.Name = st.Name
	s := Step{Op: op, Think: st.Think}
	if len(st.Needs) > 0 {
		s.Words = func(caps map[string]json.RawMessage) []string {
			words, err := loadWords(st.Fill(caps), readFile)
			if err != nil {
				return []string{"invalid", err.Error()} // ParseOp refuses it, naming the step
			}
			return words
		}
	}
	tool := ""
	if words[0] == "call" {
		tool = words[1]
	}
	s.Done = func(ctx context.Context, res json.RawMessage, err error, caps map[string]json.RawMessage) error {
		return stepDone(ctx, st, tool, res, err, caps, code)
	}
	return s, nil
}

// loadWords are a step's words as a load operation takes them: a call's
// --args JSON (or @FILE) becomes key:=JSON words; any other option is a
// mistake (load sends the operation and judges its result itself).
func loadWords(words []string, readFile func(string) ([]byte, error)) ([]string, error) {
	out := []string{words[0]}
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w == "--args" && words[0] == "call" && i+1 < len(words) {
			i++
			data := []byte(words[i])
			if path, ok := strings.CutPrefix(words[i], "@"); ok {
				var err error
				if data, err = readFile(path); err != nil {
					return nil, fmt.Errorf("--args @%s: %v", path, err)
				}
			}
			var args map[string]json.RawMessage
			if err := json.Unmarshal(data, &args); err != nil {
				return nil, fmt.Errorf("--args: want a JSON object: %v", err)
			}
			for _, k := range slices.Sorted(maps.Keys(args)) {
				out = append(out, k+":="+string(args[k]))
			}
			continue
		}
		if strings.HasPrefix(w, "-") && len(w) > 1 {
			return nil, fmt.Errorf("%s: a scenario's step takes no options (load sends the operation and judges its result)", w)
		}
		out = append(out, w)
	}
	return out, nil
}

// stepDone judges what came of a step as mcpv test would, and keeps its
// captures: a step that ends as its expectations say (exit 0 unless they
// say otherwise) goes on; one that failed as no expectation allows keeps
// its own error (load counts it by kind); one whose result is not what
// they expect is an *ExpectationError.
func stepDone(ctx context.Context, st *testfile.Step, tool string, res json.RawMessage, err error, caps map[string]json.RawMessage, code func(error) int) error {
	o := testfile.Outcome{Raw: res, Value: res, Err: err, Tool: tool}
	switch {
	case errors.Is(err, errToolFailed):
		o.Code, o.IsError = 1, true
	case err != nil:
		o.Code = code(err)
	}
	if res != nil && tool != "" {
		fields := toolcall.ResultFields(res)
		o.IsError, o.Structured = o.IsError || fields.IsError, fields.Structured
	}
	if ce, ok := errors.AsType[*mcp.CallError](err); ok {
		o.RPC = &testfile.RPCError{Code: ce.Err.Code, Message: ce.Err.Message}
		o.Value, _ = json.Marshal(ce.Err)
	} else if err != nil && res == nil {
		o.Value, _ = json.Marshal(map[string]string{"message": err.Error()})
	}
	fs, _ := st.Expect.Check(ctx, o, caps, func() (json.RawMessage, error) {
		return nil, errors.New("mcpv load does not check output schemas")
	})
	if len(fs) > 0 {
		if err != nil && fs[0].Kind == "exit" {
			return err // failed as nothing expected: load says how
		}
		f := fs[0]
		msg := f.Kind + ": " + f.Message
		if f.Expected != "" || f.Actual != "" {
			msg += fmt.Sprintf(" (expected %s, got %s)", f.Expected, f.Actual)
		}
		return &ExpectationError{Message: msg}
	}
	value := o.Value
	if value == nil {
		value = json.RawMessage("null")
	}
	if fs := st.Capture(ctx, value, caps); len(fs) > 0 {
		return &ExpectationError{Message: fs[0].Kind + ": " + fs[0].Message}
	}
	return nil
}
