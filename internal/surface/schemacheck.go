package surface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/toolargs"
)

// compileSchema compiles a schema, or says why it could not, and how
// bad that is. A context that ended is no problem of the schema's.
func compileSchema(ctx context.Context, what string, schema json.RawMessage) (v *toolargs.Validator, problem, severity string) {
	v, err := toolargs.Compile(ctx, schema)
	switch {
	case err == nil:
		return v, "", ""
	case ctx.Err() != nil:
		return nil, "", ""
	case errors.As(err, new(*toolargs.LimitError)):
		return nil, fmt.Sprintf("%s is not checked: %v", what, err), SeverityWarning
	}
	if d, ok := stringOf(members(schema)["$schema"]); ok && !slices.Contains(knownDialects, strings.TrimSuffix(strings.Replace(d, "https://", "http://", 1), "#")) {
		return nil, fmt.Sprintf("%s is not checked: mcpv does not know its dialect %q", what, d), SeverityWarning
	}
	return nil, fmt.Sprintf("%s is not a valid schema: %s", what, condense(err)), SeverityError
}

// knownDialects are the JSON Schema dialects a server may name with
// $schema that mcpv knows (with http, without a trailing #).
var knownDialects = []string{
	"http://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft/2019-09/schema",
	"http://json-schema.org/draft-07/schema",
	"http://json-schema.org/draft-06/schema",
	"http://json-schema.org/draft-04/schema",
}

// condense makes a validator's error one line: of an indented list of
// causes ("- at '/x': ..."), the first one that has no causes under it.
func condense(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	indent := func(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
	for i, line := range lines {
		if !strings.HasPrefix(strings.TrimLeft(line, " "), "- ") {
			continue
		}
		if i+1 == len(lines) || indent(lines[i+1]) <= indent(line) {
			return safetext.Line(strings.TrimPrefix(strings.TrimLeft(line, " "), "- "))
		}
	}
	return safetext.Line(lines[0])
}
