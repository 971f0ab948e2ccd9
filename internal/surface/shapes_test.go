package surface

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLintShapes(t *testing.T) {
	findings := lint(t, `{
		"serverInfo":{"name":"s","version":"1","icons":[{"src":"file:///icon.png"}]},
		"tools":[
			{"name":"a","description":"d","inputSchema":{"type":"object"},
			 "annotations":{"title":7,"readOnlyHint":"yes"},
			 "icons":[{"src":"https://x.example/i.png","theme":"blue","sizes":"48x48"},{"mimeType":"image/png"}],
			 "_meta":{"com.example/ok":1,"-bad/x":2,"com.example/-name":3,"io.modelcontextprotocol/":4}}],
		"resources":[
			{"uri":"file:///ok.txt","name":"ok","annotations":{"audience":["user","assistant"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"}},
			{"uri":"no scheme","name":"n"},
			{"uri":"file:///a b","name":"sp"},
			{"uri":"file:///café","name":"iri"},
			{"uri":"mem://x","name":"ann","annotations":{"audience":["everyone"],"priority":2,"lastModified":"yesterday"}},
			{"name":"nouri"}],
		"resourceTemplates":[
			{"uriTemplate":"file:///{+path}{?q,page:3}","name":"ok"},
			{"uriTemplate":"file:///{path","name":"open"},
			{"uriTemplate":"file:///{=x}","name":"reserved"},
			{"uriTemplate":"file:///{a b}","name":"space"},
			{"uriTemplate":"file:///{x:0}","name":"prefix"}]}`)
	var got []Finding
	for _, f := range findings {
		if f.Rule != RuleDescription {
			got = append(got, f)
		}
	}
	want := []Finding{
		{Object: `tool "a"`, Rule: RuleIcons, Severity: SeverityError, Message: `icons[0].sizes is "48x48", not an array of strings`},
		{Object: `tool "a"`, Rule: RuleIcons, Severity: SeverityError, Message: `icons[0].theme is "blue"; it is "light" or "dark"`},
		{Object: `tool "a"`, Rule: RuleIcons, Severity: SeverityError, Message: `icons[1] has no src`},
		{Object: `tool "a"`, Rule: RuleMeta, Severity: SeverityError, Message: `_meta key "-bad/x" has a prefix label "-bad" that does not start with a letter and end with a letter or digit`},
		{Object: `tool "a"`, Rule: RuleMeta, Severity: SeverityError, Message: `_meta key "com.example/-name" has a name that does not start and end with a letter or digit`},
		{Object: `tool "a"`, Rule: RuleAnnotations, Severity: SeverityError, Message: `annotations.title is 7, not a string`},
		{Object: `tool "a"`, Rule: RuleAnnotations, Severity: SeverityError, Message: `annotations.readOnlyHint is "yes", not a boolean`},
		{Object: `resource "no scheme"`, Rule: RuleURI, Severity: SeverityError, Message: `uri has no scheme`},
		{Object: `resource "file:///a b"`, Rule: RuleURI, Severity: SeverityError, Message: `uri holds characters a URI cannot hold unencoded: ' '`},
		{Object: `resource "file:///café"`, Rule: RuleURI, Severity: SeverityWarning, Message: `uri holds characters beyond ASCII (an IRI, not an RFC 3986 URI)`},
		{Object: `resource "mem://x"`, Rule: RuleAnnotations, Severity: SeverityError, Message: `annotations.audience holds "everyone"; the roles are "user" and "assistant"`},
		{Object: `resource "mem://x"`, Rule: RuleAnnotations, Severity: SeverityError, Message: `annotations.priority is 2; it is a number from 0 to 1`},
		{Object: `resource "mem://x"`, Rule: RuleAnnotations, Severity: SeverityWarning, Message: `annotations.lastModified "yesterday" is not an ISO 8601 date and time`},
		{Object: "resource #6", Rule: RuleList, Severity: SeverityError, Message: "has no uri"},
		{Object: `resource template "file:///{path"`, Rule: RuleURITemplate, Severity: SeverityError, Message: "uriTemplate has a { at byte 8 that is never closed"},
		{Object: `resource template "file:///{=x}"`, Rule: RuleURITemplate, Severity: SeverityError, Message: `uriTemplate has an expression {=x} that starts with '=', an operator RFC 6570 reserves`},
		{Object: `resource template "file:///{a b}"`, Rule: RuleURITemplate, Severity: SeverityError, Message: `uriTemplate has an expression {a b} that has a variable name "a b" with ' ', which RFC 6570 does not allow`},
		{Object: `resource template "file:///{x:0}"`, Rule: RuleURITemplate, Severity: SeverityError, Message: `uriTemplate has an expression {x:0} that has a prefix modifier ":0" that is not 1 to 9999`},
		{Object: "server", Rule: RuleIcons, Severity: SeverityWarning, Message: `icons[0].src is a file: URI; clients take only https: and data: icons`},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("findings (-want +got):\n%s", d)
	}
}
