package testfile

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loopSchema loops back on itself through a chain of anyOf without
// moving into the value: checking a string ends with a CostError.
func loopSchema(t *testing.T) string {
	data, err := os.ReadFile(filepath.Join("..", "surface", "testdata", "costly-loop.json"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// A schema check that could not be done is not a value that breaks the
// schema: too costly a check is a note (as mcpv call warns), and the end
// of the step's time says so, not "breaks the schema".
func TestSchemaCheckNotDone(t *testing.T) {
	f := readFileLines(t, "steps:\n  - ping:\n    expect: {schema: "+loopSchema(t)+"}\n  - ping:\n    expect: {schema: {type: integer}, output-schema: true}\n", Line{Calls: true})
	loop, plain := f.Steps[0].Expect, f.Steps[1].Expect
	call := Outcome{Value: json.RawMessage(`"s"`), Raw: json.RawMessage(`{}`), Structured: json.RawMessage(`"s"`)}

	fs, notes := loop.Check(t.Context(), call, nil, nil)
	if len(fs) != 0 || len(notes) != 1 || !strings.HasPrefix(notes[0], "warning: the value is not checked against the schema: checking a value against it would take more than ") {
		t.Errorf("costly: failures %+v, notes %q", fs, notes)
	}

	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errors.New("the step took longer than 1s"))
	schema := func() (json.RawMessage, error) { return json.RawMessage(`{"type":"integer"}`), nil }
	fs, notes = plain.Check(ctx, call, nil, schema)
	var msgs []string
	for _, f := range fs {
		msgs = append(msgs, f.Kind+": "+f.Message)
	}
	want := []string{"schema: the value is not checked against the schema: the step took longer than 1s",
		"output-schema: structuredContent is not checked against the outputSchema: the step took longer than 1s"}
	if strings.Join(msgs, "\n") != strings.Join(want, "\n") || len(notes) != 0 {
		t.Errorf("ended: failures\n%s\nnotes %q; want failures\n%s", strings.Join(msgs, "\n"), notes, strings.Join(want, "\n"))
	}

	// A value that breaks the schema still fails as such.
	fs, _ = plain.Check(t.Context(), call, nil, schema)
	if len(fs) != 2 || fs[0].Message != "the value breaks the schema at /: got string, want integer (type)" {
		t.Errorf("breaks: %+v", fs)
	}
}
