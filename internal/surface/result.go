package surface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/toolargs"
)

// CheckResult checks a tools/call result against the tool's definition,
// as tools/list gave it: when the tool has an outputSchema and the result
// is not isError, structuredContent must be present and accepted by the
// schema (server/tools, "Output Schema": servers MUST provide structured
// results that conform to it; an isError result reports a failure
// instead). A violation names its pointer into structuredContent and the
// schema keyword it breaks. No outputSchema, no findings. A check too
// costly to finish is a warning, as mcpv call gives; one ctx ended says
// so.
func CheckResult(ctx context.Context, tool json.RawMessage, result json.RawMessage) []Finding {
	t := members(tool)
	obj := "tool"
	if name, ok := stringOf(t["name"]); ok {
		obj = fmt.Sprintf("tool %q", name)
	}
	schema, ok := t["outputSchema"]
	if !ok || string(schema) == "null" {
		return nil
	}
	fail := func(rule, severity, format string, args ...any) []Finding {
		return []Finding{{Object: obj, Rule: rule, Severity: severity, Message: fmt.Sprintf(format, args...)}}
	}
	r := members(result)
	if r == nil {
		return fail(RuleStructuredResult, SeverityError, "the result is not a JSON object")
	}
	var isError bool
	if json.Unmarshal(r["isError"], &isError) == nil && isError {
		return nil
	}
	content, ok := r["structuredContent"]
	if !ok {
		return fail(RuleStructuredResult, SeverityError, "the result has no structuredContent, though the tool has an outputSchema")
	}
	v, problem, severity := compileSchema(ctx, "outputSchema", schema)
	if ctx.Err() != nil {
		return fail(RuleStructuredResult, SeverityError, "structuredContent is not checked: %s", safetext.Line(context.Cause(ctx).Error()))
	}
	if v == nil {
		return fail(RuleOutputSchema, severity, "%s", problem)
	}
	err := v.Validate(ctx, content)
	var violation *toolargs.Violation
	switch {
	case err == nil:
		return nil
	case errors.As(err, new(*toolargs.CostError)):
		return fail(RuleStructuredResult, SeverityWarning, "structuredContent is not checked: %s", safetext.Line(err.Error()))
	case errors.As(err, &violation):
		where := "structuredContent"
		if violation.Pointer != "" {
			where += " at " + safetext.Line(violation.Pointer)
		}
		return fail(RuleStructuredResult, SeverityError, "%s breaks %q: %s", where, violation.Rule, safetext.Line(violation.Message))
	default:
		return fail(RuleStructuredResult, SeverityError, "structuredContent is not checked: %s", safetext.Line(err.Error()))
	}
}
