package apps

// The content security policy and the permissions an app declares in its
// resource's _meta.ui, and what a host builds of them: "Host MUST construct
// CSP headers based on declared domains", "MAY further restrict but MUST
// NOT allow undeclared domains", with the extension's restrictive default
// where nothing is declared. A domain goes into the policy only once it is
// an origin and nothing else: one that would add a directive of its own
// (a ';'), a keyword ('unsafe-eval'), a scheme alone (https:) or a
// wildcard that admits everything is refused, and the app with it.

import (
	"encoding/json"
	"net"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/origin"
)

// Meta is a UI resource's _meta.ui (UIResourceMeta).
type Meta struct {
	CSP CSP `json:"csp"`
	// Permissions are those asked for, known ones only, in the order of
	// Permissions' table.
	Permissions   []string `json:"permissions,omitempty"`
	Domain        string   `json:"domain,omitempty"`
	PrefersBorder *bool    `json:"prefersBorder,omitempty"`
}

// CSP is McpUiResourceCsp: the origins an app needs, by what it does
// with them. Only domains that passed the checks are kept.
type CSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	FrameDomains    []string `json:"frameDomains,omitempty"`
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
}

// Permissions are the permissions an app may ask for, and the Permission
// Policy feature each maps to.
var Permissions = []struct{ Name, Feature string }{
	{"camera", "camera"},
	{"microphone", "microphone"},
	{"geolocation", "geolocation"},
	{"clipboardWrite", "clipboard-write"},
}

// PermissionNames are the names of Permissions.
func PermissionNames() []string {
	names := make([]string, len(Permissions))
	for i, p := range Permissions {
		names[i] = p.Name
	}
	return names
}

// ParseMeta reads a _meta.ui object (nil or null: nothing declared).
func ParseMeta(raw json.RawMessage) (Meta, []Problem) {
	var m Meta
	var ps []Problem
	if raw == nil || string(raw) == "null" {
		return m, nil
	}
	var ui struct {
		CSP           json.RawMessage `json:"csp"`
		Permissions   json.RawMessage `json:"permissions"`
		Domain        json.RawMessage `json:"domain"`
		PrefersBorder json.RawMessage `json:"prefersBorder"`
	}
	if json.Unmarshal(raw, &ui) != nil {
		return m, []Problem{problem(Error, "apps.resource-meta", "the resource's _meta.ui is not an object")}
	}
	m.CSP, ps = parseCSP(ui.CSP, ps)
	m.Permissions, ps = parsePermissions(ui.Permissions, ps)
	if ui.Domain != nil && string(ui.Domain) != "null" {
		if json.Unmarshal(ui.Domain, &m.Domain) != nil {
			ps = append(ps, problem(Error, "apps.resource-meta", "_meta.ui.domain is not a string"))
		} else {
			ps = append(ps, problem(Note, "apps.domain", "the app asks for the dedicated origin %q, whose form each host defines; mcpv serves it from an origin of its own", m.Domain))
		}
	}
	if ui.PrefersBorder != nil && string(ui.PrefersBorder) != "null" {
		var b bool
		if json.Unmarshal(ui.PrefersBorder, &b) != nil {
			ps = append(ps, problem(Error, "apps.resource-meta", "_meta.ui.prefersBorder is not a boolean"))
		} else {
			m.PrefersBorder = &b
		}
	}
	return m, ps
}

func parseCSP(raw json.RawMessage, ps []Problem) (CSP, []Problem) {
	var c CSP
	if raw == nil || string(raw) == "null" {
		return c, ps
	}
	var lists map[string]json.RawMessage
	if json.Unmarshal(raw, &lists) != nil {
		return c, append(ps, problem(Error, "apps.csp", "_meta.ui.csp is not an object"))
	}
	type field struct {
		key string
		dst *[]string
	}
	fields := []field{{"connectDomains", &c.ConnectDomains}, {"resourceDomains", &c.ResourceDomains}, {"frameDomains", &c.FrameDomains}, {"baseUriDomains", &c.BaseURIDomains}}
	for _, f := range fields {
		v, ok := lists[f.key]
		if !ok || string(v) == "null" {
			continue
		}
		var domains []json.RawMessage
		if json.Unmarshal(v, &domains) != nil {
			ps = append(ps, problem(Error, "apps.csp", "_meta.ui.csp.%s is not an array", f.key))
			continue
		}
		for _, d := range domains {
			var s string
			if json.Unmarshal(d, &s) != nil {
				ps = append(ps, problem(Error, "apps.csp", "_meta.ui.csp.%s holds %.40s, not a string", f.key, d))
				continue
			}
			norm, p := checkDomain(f.key, s)
			if p != nil {
				ps = append(ps, *p)
				if p.Level == Error {
					continue
				}
			}
			if !slices.Contains(*f.dst, norm) {
				*f.dst = append(*f.dst, norm)
			}
		}
	}
	for k := range lists {
		if !slices.ContainsFunc(fields, func(f field) bool { return f.key == k }) {
			ps = append(ps, problem(Warning, "apps.csp", "_meta.ui.csp.%s is not a list the extension defines; it is ignored", k))
		}
	}
	return c, ps
}

// schemes a declared origin may have, each with whether it is encrypted.
var schemes = map[string]bool{"https": true, "wss": true, "http": false, "ws": false}

// checkDomain checks one declared domain: an origin (scheme://host[:port]),
// with a wildcard only as the host's first label (https://*.example.com).
// It returns the domain as it goes into the policy, and a problem: an
// error for what cannot go in (it would admit everything, or say more
// than an origin), a warning for an origin without encryption.
func checkDomain(list, d string) (string, *Problem) {
	bad := func(format string, args ...any) (string, *Problem) {
		p := problem(Error, "apps.csp", "_meta.ui.csp.%s: "+format, append([]any{list}, args...)...)
		return "", &p
	}
	if d == "" || strings.IndexFunc(d, func(r rune) bool { return r <= ' ' || r == 0x7f || strings.ContainsRune(";,'\"\\<>`", r) || r > 0x7e }) >= 0 {
		return bad("%q is not an origin: it holds characters a policy would read as more than one (a space, ';', ',', a quote)", d)
	}
	scheme, rest, ok := strings.Cut(d, "://")
	if !ok {
		if d == "*" || strings.HasSuffix(d, ":") {
			return bad("%q admits every origin (of a scheme); name the origins the app needs", d)
		}
		return bad("%q is not an origin (scheme://host[:port])", d)
	}
	scheme = strings.ToLower(scheme)
	secure, known := schemes[scheme]
	if !known {
		return bad("%q: the scheme %q is not one a declared origin may have (https, wss, http, ws)", d, scheme)
	}
	host, path, _ := strings.Cut(rest, "/")
	if path != "" {
		return bad("%q holds a path; the extension declares origins", d)
	}
	name, port := host, ""
	if h, p, err := net.SplitHostPort(host); err == nil {
		name, port = h, p
		if n, err := strconv.Atoi(p); p != "*" && (err != nil || n < 1 || n > 65535) {
			return bad("%q has the port %q", d, p)
		}
	}
	name = strings.ToLower(name)
	switch {
	case name == "" || name == "*":
		return bad("%q admits every host", d)
	case strings.Contains(strings.TrimPrefix(name, "*."), "*"):
		return bad("%q has a wildcard other than as its first label", d)
	case strings.HasPrefix(name, "*.") && !strings.Contains(strings.TrimPrefix(name, "*."), ".") && net.ParseIP(strings.Trim(name, "[]")) == nil:
		return bad("%q admits every host under %q", d, strings.TrimPrefix(name, "*."))
	}
	if net.ParseIP(strings.Trim(name, "[]")) == nil && !validHostName(strings.TrimPrefix(name, "*.")) {
		return bad("%q is not a host name", d)
	}
	norm := scheme + "://" + name
	if port != "" {
		norm += ":" + port
	}
	if !secure && !origin.Loopback(strings.Trim(name, "[]")) {
		p := problem(Warning, "apps.csp", "_meta.ui.csp.%s: %q is reached without encryption (%s)", list, d, scheme)
		return norm, &p
	}
	return norm, nil
}

func validHostName(h string) bool {
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := range len(label) {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

func parsePermissions(raw json.RawMessage, ps []Problem) ([]string, []Problem) {
	if raw == nil || string(raw) == "null" {
		return nil, ps
	}
	var asked map[string]json.RawMessage
	if json.Unmarshal(raw, &asked) != nil {
		return nil, append(ps, problem(Error, "apps.permissions", "_meta.ui.permissions is not an object"))
	}
	var out []string
	for _, p := range Permissions {
		v, ok := asked[p.Name]
		if !ok || string(v) == "null" {
			continue
		}
		if !strings.HasPrefix(strings.TrimSpace(string(v)), "{") {
			ps = append(ps, problem(Error, "apps.permissions", "_meta.ui.permissions.%s is not an object", p.Name))
			continue
		}
		out = append(out, p.Name)
	}
	for k := range asked {
		if !slices.ContainsFunc(Permissions, func(p struct{ Name, Feature string }) bool { return p.Name == k }) {
			ps = append(ps, problem(Warning, "apps.permissions", "_meta.ui.permissions.%s is not a permission the extension defines; no host grants it", k))
		}
	}
	return out, ps
}

// Policy is the content security policy a host applies to the app: the
// extension's restrictive default, opened only to the origins declared
// for each use, and never to plugins.
func (c CSP) Policy() string {
	list := func(fixed string, domains []string, none string) string {
		parts := []string{}
		if fixed != "" {
			parts = append(parts, fixed)
		}
		parts = append(parts, domains...)
		if len(parts) == 0 {
			return none
		}
		return strings.Join(parts, " ")
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src " + list("'self' 'unsafe-inline'", c.ResourceDomains, ""),
		"style-src " + list("'self' 'unsafe-inline'", c.ResourceDomains, ""),
		"img-src " + list("'self' data:", c.ResourceDomains, ""),
		"font-src " + list("'self'", c.ResourceDomains, ""),
		"media-src " + list("'self' data:", c.ResourceDomains, ""),
		"connect-src " + list("", c.ConnectDomains, "'none'"),
		"frame-src " + list("", c.FrameDomains, "'none'"),
		"object-src 'none'",
		"base-uri " + list("", c.BaseURIDomains, "'self'"),
	}, "; ")
}

// Allow is the iframe allow attribute that grants the permissions of
// asked that granted names ("camera; microphone").
func Allow(asked, granted []string) string {
	var features []string
	for _, p := range Permissions {
		if slices.Contains(asked, p.Name) && slices.Contains(granted, p.Name) {
			features = append(features, p.Feature)
		}
	}
	return strings.Join(features, "; ")
}
