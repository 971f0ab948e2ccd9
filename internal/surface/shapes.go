package surface

// The rules of the surface's shapes beyond names and schemas: resource
// URIs (RFC 3986), resource templates (RFC 6570), annotations, icons and
// _meta keys, on each tool, prompt, resource and template listed (and the
// server's own icons), as the specification's schema gives them.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/uritemplate"
)

// The rules of shapes, each with the severity of its findings:
const (
	// RuleURI: a resource's uri is not a URI as RFC 3986 has it (no
	// scheme, characters a URI cannot hold unencoded). Error; a warning
	// for characters beyond ASCII (an IRI, which clients mostly take).
	RuleURI = "uri"
	// RuleURITemplate: a resource template's uriTemplate is not an RFC
	// 6570 template (a brace not closed, an operator RFC 6570 reserves,
	// a variable name it does not allow). Error.
	RuleURITemplate = "uri-template"
	// RuleAnnotations: annotations of a resource or template (audience
	// of "user" and "assistant", priority from 0 to 1, lastModified a
	// string) or of a tool (title a string, the hints booleans) of
	// another shape. Error; a warning for a lastModified that is not ISO
	// 8601.
	RuleAnnotations = "annotations"
	// RuleIcons: icons that are not an array of objects with a src URI
	// (and mimeType a string, sizes strings, theme "light" or "dark").
	// Error; a warning for a src that is neither https: nor data:, which
	// clients must refuse.
	RuleIcons = "icons"
	// RuleMeta: a _meta key whose prefix or name breaks the
	// specification's format. Error.
	RuleMeta = "meta"
)

// shapes checks what every listed object may carry: icons, _meta, and
// for resources and templates their annotations.
func (l *linter) shapes(obj string, m map[string]json.RawMessage, resourceLike bool) {
	if raw, ok := m["icons"]; ok {
		l.icons(obj, raw)
	}
	if raw, ok := m["_meta"]; ok {
		l.metaKeys(obj, raw)
	}
	if raw, ok := m["annotations"]; ok {
		switch am := members(raw); {
		case am == nil:
			l.add(RuleAnnotations, SeverityError, obj, "annotations is not a JSON object")
		case resourceLike:
			l.annotations(obj, am)
		default:
			l.toolAnnotations(obj, am)
		}
	}
}

// located checks the resources (key "uri") or the resource templates
// (key "uriTemplate") listed: each an object with a name, its key an RFC
// 3986 URI or an RFC 6570 template.
func (l *linter) located(items []json.RawMessage, kind, key string) {
	for i, raw := range items {
		m := members(raw)
		obj := fmt.Sprintf("%s #%d", kind, i+1)
		if m == nil {
			l.add(RuleList, SeverityError, obj, "is not a JSON object")
			continue
		}
		at, ok := stringOf(m[key])
		switch {
		case !ok || key == "uriTemplate" && at == "":
			l.add(RuleList, SeverityError, obj, "has no %s", key)
		case key == "uri":
			obj = fmt.Sprintf("%s %q", kind, at)
			if problem, severity := uriProblem(at); problem != "" {
				l.add(RuleURI, severity, obj, "uri %s", problem)
			}
		default:
			obj = fmt.Sprintf("%s %q", kind, at)
			if _, err := uritemplate.Parse(at); err != nil {
				l.add(RuleURITemplate, SeverityError, obj, "uriTemplate %s", err)
			}
		}
		if name, ok := stringOf(m["name"]); !ok || name == "" {
			l.add(RuleList, SeverityError, obj, "has no name")
		}
		l.shapes(obj, m, true)
	}
}

// uriProblem says how s breaks RFC 3986's URI, and how badly.
func uriProblem(s string) (problem, severity string) {
	scheme, _, ok := strings.Cut(s, ":")
	if !ok || scheme == "" {
		return "has no scheme", SeverityError
	}
	for i, r := range scheme {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return fmt.Sprintf("has a scheme %q that RFC 3986 does not allow", compactText(scheme)), SeverityError
		}
	}
	if bad := badURIChars(s); bad != "" {
		return "holds characters a URI cannot hold unencoded: " + bad, SeverityError
	}
	for _, r := range s {
		if r > 0x7e {
			return "holds characters beyond ASCII (an IRI, not an RFC 3986 URI)", SeverityWarning
		}
	}
	return "", ""
}

// badURIChars lists the ASCII characters of s that no part of a URI may
// hold unencoded (RFC 3986, section 2), or "".
func badURIChars(s string) string {
	var bad []string
	for _, r := range s {
		if r < 0x21 || r == 0x7f || strings.ContainsRune(`"<>\^`+"`"+`{|}`, r) {
			if q := fmt.Sprintf("%q", r); !strings.Contains(strings.Join(bad, " "), q) {
				bad = append(bad, q)
			}
		}
	}
	return strings.Join(bad, " ")
}

func (l *linter) annotations(obj string, m map[string]json.RawMessage) {
	if a, ok := m["audience"]; ok {
		var roles []json.RawMessage
		if json.Unmarshal(a, &roles) != nil {
			l.add(RuleAnnotations, SeverityError, obj, "annotations.audience is not an array")
		}
		for _, r := range roles {
			if s, _ := stringOf(r); s != "user" && s != "assistant" {
				l.add(RuleAnnotations, SeverityError, obj, `annotations.audience holds %s; the roles are "user" and "assistant"`, compact(r))
			}
		}
	}
	if p, ok := m["priority"]; ok {
		var f float64
		if json.Unmarshal(p, &f) != nil || f < 0 || f > 1 {
			l.add(RuleAnnotations, SeverityError, obj, "annotations.priority is %s; it is a number from 0 to 1", compact(p))
		}
	}
	if lm, ok := m["lastModified"]; ok {
		s, isString := stringOf(lm)
		switch {
		case !isString:
			l.add(RuleAnnotations, SeverityError, obj, "annotations.lastModified is %s, not a string", compact(lm))
		case !iso8601(s):
			l.add(RuleAnnotations, SeverityWarning, obj, "annotations.lastModified %q is not an ISO 8601 date and time", compactText(s))
		}
	}
}

// iso8601 reports whether s reads as an ISO 8601 date-time (or date).
func iso8601(s string) bool {
	return slices.ContainsFunc([]string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05", "2006-01-02"}, func(layout string) bool {
		_, err := time.Parse(layout, s)
		return err == nil
	})
}

func (l *linter) toolAnnotations(obj string, m map[string]json.RawMessage) {
	if _, isString := stringOf(m["title"]); m["title"] != nil && !isString {
		l.add(RuleAnnotations, SeverityError, obj, "annotations.title is %s, not a string", compact(m["title"]))
	}
	for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
		if v, ok := m[hint]; ok && string(v) != "true" && string(v) != "false" {
			l.add(RuleAnnotations, SeverityError, obj, "annotations.%s is %s, not a boolean", hint, compact(v))
		}
	}
}

func (l *linter) icons(obj string, raw json.RawMessage) {
	var icons []json.RawMessage
	if json.Unmarshal(raw, &icons) != nil {
		l.add(RuleIcons, SeverityError, obj, "icons is not an array")
		return
	}
	for i, ic := range icons {
		m := members(ic)
		where := fmt.Sprintf("icons[%d]", i)
		if m == nil {
			l.add(RuleIcons, SeverityError, obj, "%s is not a JSON object", where)
			continue
		}
		if src, ok := stringOf(m["src"]); !ok {
			l.add(RuleIcons, SeverityError, obj, "%s has no src", where)
		} else if problem, _ := uriProblem(src); problem != "" {
			l.add(RuleIcons, SeverityError, obj, "%s.src %s", where, problem)
		} else if scheme, _, _ := strings.Cut(strings.ToLower(src), ":"); scheme != "https" && scheme != "data" {
			l.add(RuleIcons, SeverityWarning, obj, "%s.src is a %s: URI; clients take only https: and data: icons", where, compactText(scheme))
		}
		if _, isString := stringOf(m["mimeType"]); m["mimeType"] != nil && !isString {
			l.add(RuleIcons, SeverityError, obj, "%s.mimeType is %s, not a string", where, compact(m["mimeType"]))
		}
		if sz, ok := m["sizes"]; ok {
			var sizes []string
			if json.Unmarshal(sz, &sizes) != nil {
				l.add(RuleIcons, SeverityError, obj, "%s.sizes is %s, not an array of strings", where, compact(sz))
			}
		}
		if s, _ := stringOf(m["theme"]); m["theme"] != nil && s != "light" && s != "dark" {
			l.add(RuleIcons, SeverityError, obj, `%s.theme is %s; it is "light" or "dark"`, where, compact(m["theme"]))
		}
	}
}

func (l *linter) metaKeys(obj string, raw json.RawMessage) {
	m := members(raw)
	if m == nil {
		l.add(RuleMeta, SeverityError, obj, "_meta is not a JSON object")
		return
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if p := MetaKeyProblem(k); p != "" {
			l.add(RuleMeta, SeverityError, obj, "_meta key %q %s", compactText(k), p)
		}
	}
}

// MetaKeyProblem says how a _meta key breaks the specification's format
// (basic, "General fields", _meta), or "": an optional prefix of dotted
// labels, each starting with a letter and ending with a letter or digit,
// then a slash; then a name that, unless empty, starts and ends with a
// letter or digit, with letters, digits, hyphens, underscores and dots
// between.
func MetaKeyProblem(key string) string {
	name := key
	if i := strings.LastIndexByte(key, '/'); i >= 0 {
		prefix := key[:i]
		name = key[i+1:]
		if prefix == "" {
			return "has an empty prefix before its slash"
		}
		for label := range strings.SplitSeq(prefix, ".") {
			if label == "" || !isLetter(label[0]) || !isAlnum(label[len(label)-1]) {
				return fmt.Sprintf("has a prefix label %q that does not start with a letter and end with a letter or digit", compactText(label))
			}
			for i := 0; i < len(label); i++ {
				if !isAlnum(label[i]) && label[i] != '-' {
					return fmt.Sprintf("has a prefix label %q with %q", compactText(label), label[i])
				}
			}
		}
	}
	if name == "" {
		return ""
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return "has a name that does not start and end with a letter or digit"
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Sprintf("has a name with %q", c)
		}
	}
	return ""
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool  { return isLetter(c) || c >= '0' && c <= '9' }

// compactText is text from the server made safe and short for a finding.
func compactText(s string) string { return safetext.Line(safetext.Clip(s, 100)) }
