package apps

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const page = "<!DOCTYPE html><html><body><p>hi</p></body></html>"

func read(uri, mimeType, text, meta string) json.RawMessage {
	item := fmt.Sprintf(`{"uri":%q,"mimeType":%q,"text":%q`, uri, mimeType, text)
	if meta != "" {
		item += `,"_meta":{"ui":` + meta + `}`
	}
	return json.RawMessage(`{"contents":[` + item + `}]}`)
}

// rules are the rules of the problems of a level.
func rules(ps []Problem, level Level) []string {
	var out []string
	for _, p := range ps {
		if p.Level == level {
			out = append(out, p.Rule)
		}
	}
	return out
}

func TestOfTool(t *testing.T) {
	tests := []struct {
		name       string
		tool       string
		ok         bool
		uri        string
		visibility []string
		errors     []string
		warnings   []string
	}{
		{"none", `{"name":"t"}`, false, "", []string{"model", "app"}, nil, nil},
		{"plain", `{"name":"t","_meta":{"ui":{"resourceUri":"ui://w/v.html"}}}`, true, "ui://w/v.html", []string{"model", "app"}, nil, nil},
		{"app only", `{"name":"t","_meta":{"ui":{"resourceUri":"ui://w","visibility":["app"]}}}`, true, "ui://w", []string{"app"}, nil, nil},
		{"model only, no app", `{"name":"t","_meta":{"ui":{"visibility":["model"]}}}`, false, "", []string{"model"}, nil, nil},
		{"deprecated key", `{"name":"t","_meta":{"ui/resourceUri":"ui://w"}}`, true, "ui://w", []string{"model", "app"}, nil, []string{"apps.deprecated-key"}},
		{"both keys agree", `{"name":"t","_meta":{"ui":{"resourceUri":"ui://w"},"ui/resourceUri":"ui://w"}}`, true, "ui://w", []string{"model", "app"}, nil, nil},
		{"both keys differ", `{"name":"t","_meta":{"ui":{"resourceUri":"ui://w"},"ui/resourceUri":"ui://x"}}`, true, "ui://w", []string{"model", "app"}, []string{"apps.tool-meta"}, nil},
		{"not ui://", `{"name":"t","_meta":{"ui":{"resourceUri":"https://evil.example/app.html"}}}`, true, "https://evil.example/app.html", []string{"model", "app"}, []string{"apps.resource-uri"}, nil},
		{"bad visibility", `{"name":"t","_meta":{"ui":{"resourceUri":"ui://w","visibility":["model","everyone"]}}}`, true, "ui://w", []string{"model"}, []string{"apps.visibility"}, nil},
		{"empty visibility", `{"name":"t","_meta":{"ui":{"resourceUri":"ui://w","visibility":[]}}}`, true, "ui://w", []string{}, nil, []string{"apps.visibility"}},
		{"ui not an object", `{"name":"t","_meta":{"ui":"ui://w"}}`, false, "", []string{"model", "app"}, []string{"apps.tool-meta"}, nil},
		{"uri not a string", `{"name":"t","_meta":{"ui":{"resourceUri":7}}}`, false, "", []string{"model", "app"}, []string{"apps.tool-meta"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := OfTool(json.RawMessage(tt.tool))
			if ok != tt.ok || a.ResourceURI != tt.uri || !slices.Equal(a.Visibility, tt.visibility) {
				t.Errorf("OfTool = %+v, %v", a, ok)
			}
			if d := cmp.Diff(tt.errors, rules(a.Problems, Error)); d != "" {
				t.Errorf("errors (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tt.warnings, rules(a.Problems, Warning)); d != "" {
				t.Errorf("warnings (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadResource(t *testing.T) {
	const uri = "ui://w/v.html"
	const mt = "text/html;profile=mcp-app"
	blob := base64.StdEncoding.EncodeToString([]byte(page))
	tests := []struct {
		name     string
		res      string
		listing  string
		max      int
		errors   []string
		warnings []string
	}{
		{"valid", string(read(uri, mt, page, "")), "", 0, nil, nil},
		{"blob", `{"contents":[{"uri":"ui://w/v.html","mimeType":"` + mt + `","blob":"` + blob + `"}]}`, "", 0, nil, nil},
		{"wrong media type", string(read(uri, "text/html", page, "")), "", 0, []string{"apps.mime-type"}, nil},
		{"no media type", `{"contents":[{"uri":"ui://w/v.html","text":"` + page + `"}]}`, "", 0, []string{"apps.mime-type"}, nil},
		{"media type not a string", `{"contents":[{"uri":"ui://w/v.html","mimeType":7,"text":"` + page + `"}]}`, "", 0, []string{"apps.mime-type"}, nil},
		{"media type written otherwise", string(read(uri, "text/html; profile=mcp-app", page, "")), "", 0, nil, []string{"apps.mime-type"}},
		{"no doctype", string(read(uri, mt, "<p>hi</p>", "")), "", 0, []string{"apps.html"}, nil},
		{"old doctype", string(read(uri, mt, `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01//EN"><p>`, "")), "", 0, []string{"apps.html"}, nil},
		{"comment first", string(read(uri, mt, "<!-- built -->\n"+page, "")), "", 0, nil, nil},
		{"empty", string(read(uri, mt, "", "")), "", 0, []string{"apps.html"}, nil},
		{"too big", string(read(uri, mt, page+strings.Repeat(" ", 100), "")), "", 100, []string{"apps.size"}, nil},
		{"blob too big", `{"contents":[{"uri":"ui://w/v.html","mimeType":"` + mt + `","blob":"` + strings.Repeat("QUFB", 100) + `"}]}`, "", 100, []string{"apps.size"}, nil},
		{"neither", `{"contents":[{"uri":"ui://w/v.html","mimeType":"` + mt + `"}]}`, "", 0, []string{"apps.content"}, nil},
		{"both", `{"contents":[{"uri":"ui://w/v.html","mimeType":"` + mt + `","text":"x","blob":"eA=="}]}`, "", 0, []string{"apps.content"}, nil},
		{"bad blob", `{"contents":[{"uri":"ui://w/v.html","mimeType":"` + mt + `","blob":"!!"}]}`, "", 0, []string{"apps.content"}, nil},
		{"other uri, alone", string(read("ui://other", mt, page, "")), "", 0, nil, []string{"apps.content"}},
		{"no contents", `{}`, "", 0, []string{"apps.content"}, nil},
		{"listed otherwise", string(read(uri, mt, page, "")), `{"uri":"ui://w/v.html","mimeType":"text/html"}`, 0, nil, []string{"apps.listed-mime-type"}},
		{"a CSP that allows everything", string(read(uri, mt, page, `{"csp":{"connectDomains":["*"]}}`)), "", 0, []string{"apps.csp"}, nil},
		{"a CSP that injects", string(read(uri, mt, page, `{"csp":{"resourceDomains":["https://a.example; script-src *"]}}`)), "", 0, []string{"apps.csp"}, nil},
		{"a scheme alone", string(read(uri, mt, page, `{"csp":{"resourceDomains":["https:"]}}`)), "", 0, []string{"apps.csp"}, nil},
		{"every host of a TLD", string(read(uri, mt, page, `{"csp":{"connectDomains":["https://*.com"]}}`)), "", 0, []string{"apps.csp"}, nil},
		{"a keyword", string(read(uri, mt, page, `{"csp":{"resourceDomains":["'unsafe-eval'"]}}`)), "", 0, []string{"apps.csp"}, nil},
		{"a path", string(read(uri, mt, page, `{"csp":{"resourceDomains":["https://cdn.example.com/lib/"]}}`)), "", 0, []string{"apps.csp"}, nil},
		{"plain http", string(read(uri, mt, page, `{"csp":{"connectDomains":["http://api.example.com"]}}`)), "", 0, nil, []string{"apps.csp"}},
		{"unknown list", string(read(uri, mt, page, `{"csp":{"scriptDomains":["https://a.example"]}}`)), "", 0, nil, []string{"apps.csp"}},
		{"unknown permission", string(read(uri, mt, page, `{"permissions":{"usb":{}}}`)), "", 0, nil, []string{"apps.permissions"}},
		{"permission not an object", string(read(uri, mt, page, `{"permissions":{"camera":true}}`)), "", 0, []string{"apps.permissions"}, nil},
		{"border not a boolean", string(read(uri, mt, page, `{"prefersBorder":"yes"}`)), "", 0, []string{"apps.resource-meta"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var listing json.RawMessage
			if tt.listing != "" {
				listing = json.RawMessage(tt.listing)
			}
			r, ps := ReadResource(uri, json.RawMessage(tt.res), listing, tt.max)
			if d := cmp.Diff(tt.errors, rules(ps, Error)); d != "" {
				t.Errorf("errors (-want +got):\n%s\n%+v", d, ps)
			}
			if d := cmp.Diff(tt.warnings, rules(ps, Warning)); d != "" {
				t.Errorf("warnings (-want +got):\n%s\n%+v", d, ps)
			}
			if (r.HTML != nil) == Invalid(ps) {
				t.Errorf("the HTML is kept (%v) for an app whose problems are %+v", r.HTML != nil, ps)
			}
		})
	}
}

// The policy is the extension's restrictive default opened only to what
// was declared, the content item's metadata first, the listing's when it
// has none.
func TestPolicy(t *testing.T) {
	const uri = "ui://w"
	r, ps := ReadResource(uri, read(uri, "text/html;profile=mcp-app", page, ""), nil, 0)
	if len(ps) != 0 || r.MetaFrom != "" {
		t.Fatalf("problems %+v, meta from %q", ps, r.MetaFrom)
	}
	want := "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
		"media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'"
	if got := r.Meta.CSP.Policy(); got != want {
		t.Errorf("default policy\n got %s\nwant %s", got, want)
	}
	meta := `{"csp":{"connectDomains":["https://API.example.com:8443","wss://rt.example.com"],"resourceDomains":["https://*.cdn.example"],` +
		`"frameDomains":["https://www.youtube.com"],"baseUriDomains":["https://cdn.example.com"]},"permissions":{"camera":{},"microphone":{}},"prefersBorder":true}`
	r, ps = ReadResource(uri, read(uri, "text/html;profile=mcp-app", page, ""), json.RawMessage(`{"uri":"ui://w","_meta":{"ui":`+meta+`}}`), 0)
	if len(ps) != 0 || r.MetaFrom != "listing" {
		t.Fatalf("problems %+v, meta from %q", ps, r.MetaFrom)
	}
	want = "default-src 'none'; script-src 'self' 'unsafe-inline' https://*.cdn.example; style-src 'self' 'unsafe-inline' https://*.cdn.example; " +
		"img-src 'self' data: https://*.cdn.example; font-src 'self' https://*.cdn.example; media-src 'self' data: https://*.cdn.example; " +
		"connect-src https://api.example.com:8443 wss://rt.example.com; frame-src https://www.youtube.com; object-src 'none'; base-uri https://cdn.example.com"
	if got := r.Meta.CSP.Policy(); got != want {
		t.Errorf("declared policy\n got %s\nwant %s", got, want)
	}
	if got := Allow(r.Meta.Permissions, []string{"camera", "geolocation"}); got != "camera" {
		t.Errorf("allow %q: only what was asked and granted", got)
	}
	// The content item's metadata wins over the listing's.
	r, _ = ReadResource(uri, read(uri, "text/html;profile=mcp-app", page, `{"csp":{"connectDomains":["https://b.example"]}}`), json.RawMessage(`{"_meta":{"ui":`+meta+`}}`), 0)
	if r.MetaFrom != "content" || !slices.Equal(r.Meta.CSP.ConnectDomains, []string{"https://b.example"}) || r.Meta.Permissions != nil {
		t.Errorf("content's metadata: from %q, %+v", r.MetaFrom, r.Meta)
	}
}

func TestCheckAndCall(t *testing.T) {
	tools := []json.RawMessage{
		json.RawMessage(`{"name":"show","_meta":{"ui":{"resourceUri":"ui://w"}}}`),
		json.RawMessage(`{"name":"refresh","_meta":{"ui":{"resourceUri":"ui://w","visibility":["app"]}}}`),
		json.RawMessage(`{"name":"delete","_meta":{"ui":{"visibility":["model"]}}}`),
		json.RawMessage(`{"name":"plain"}`),
	}
	a, _ := OfTool(tools[0])
	r, _ := Check(a, tools, read("ui://w", "text/html;profile=mcp-app", page, ""), "", nil, 0)
	if !r.Valid || !slices.Equal(r.AppTools, []string{"show", "refresh", "plain"}) || r.Host == nil || r.Host.Sandbox != "allow-scripts" {
		t.Errorf("report %+v", r)
	}
	r.AddCall(json.RawMessage(`{}`), json.RawMessage(`{"content":[{"type":"text","text":"  "}],"structuredContent":{"a":1}}`))
	if r.Valid || !slices.Contains(rules(r.Problems, Error), "apps.text-fallback") {
		t.Errorf("a result with no text: %+v", r)
	}
	r, _ = Check(a, tools, nil, "resources/read: Resource not found", nil, 0)
	if r.Valid || !slices.Contains(rules(r.Problems, Error), "apps.resource-exists") || r.Host != nil {
		t.Errorf("a resource that does not exist: %+v", r)
	}
	// Whatever the server wrote, the problems are safe for a terminal.
	r, _ = Check(a, tools, read("ui://w", "text/html\x1b[31m", page, ""), "", nil, 0)
	for _, p := range r.Problems {
		if strings.ContainsRune(p.Message, 0x1b) {
			t.Errorf("a raw escape in %q", p.Message)
		}
	}
}

// A hostile app's metadata is bounded in what it costs: ten thousand
// domains are read once each, and nothing the server wrote reaches the
// policy unless it is an origin.
func TestHostileMeta(t *testing.T) {
	var domains []string
	for i := range 10000 {
		domains = append(domains, fmt.Sprintf(`"https://h%d.example"`, i%50))
	}
	domains = append(domains, `"https://x.example 'unsafe-eval'"`, `"javascript:alert(1)"`, `"https://a.example\u0000"`)
	meta := `{"csp":{"connectDomains":[` + strings.Join(domains, ",") + `]}}`
	r, ps := ReadResource("ui://w", read("ui://w", "text/html;profile=mcp-app", page, meta), nil, 0)
	if len(r.Meta.CSP.ConnectDomains) != 50 || len(rules(ps, Error)) != 3 {
		t.Errorf("%d domains kept, %d errors", len(r.Meta.CSP.ConnectDomains), len(rules(ps, Error)))
	}
	policy := r.Meta.CSP.Policy()
	for _, bad := range []string{"unsafe-eval", "javascript", "\x00"} {
		if strings.Contains(policy, bad) {
			t.Errorf("the policy holds %q", bad)
		}
	}
}

// A mimeType that is there but no string is said to be so, not taken as
// missing.
func TestReadResourceMimeTypeNotAString(t *testing.T) {
	_, ps := ReadResource("ui://w/v.html", json.RawMessage(`{"contents":[{"uri":"ui://w/v.html","mimeType":["text/html"],"text":"`+page+`"}]}`), nil, 0)
	for _, p := range ps {
		if p.Rule == "apps.mime-type" {
			if !strings.Contains(p.Message, `mimeType is ["text/html"], not a string`) {
				t.Errorf("message %q", p.Message)
			}
			return
		}
	}
	t.Errorf("no apps.mime-type problem in %+v", ps)
}
