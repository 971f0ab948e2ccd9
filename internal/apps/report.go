package apps

import (
	"encoding/json"
	"strings"
)

// Sandbox is the sandbox a host gives an app's frame: scripts, and
// nothing else (no same origin, so no storage or cookies of any origin,
// no forms, popups, top navigation or downloads).
const Sandbox = "allow-scripts"

// Report is what mcpv app prints: the app a tool carries, whether it is
// valid, and what a host does with it.
type Report struct {
	Tool        string     `json:"tool"`
	ResourceURI string     `json:"resourceUri"`
	Visibility  []string   `json:"visibility"`
	Valid       bool       `json:"valid"`
	Resource    *Resource  `json:"resource,omitempty"`
	Host        *HostPlan  `json:"host,omitempty"`
	AppTools    []string   `json:"appTools"`
	Problems    []Problem  `json:"problems"`
	Call        *CallShown `json:"call,omitempty"`
}

// HostPlan is what a host does with a valid app.
type HostPlan struct {
	// Sandbox is the frame's sandbox attribute.
	Sandbox string `json:"sandbox"`
	// CSP is the policy the frame is confined by.
	CSP string `json:"csp"`
	// Declared is the policy's origins as the app declared them (those
	// that passed).
	Declared CSP `json:"declared"`
	// Permissions are those asked for; none is granted unless the user
	// grants it (mcpv app --open --permission).
	Permissions   []string `json:"permissions"`
	PrefersBorder *bool    `json:"prefersBorder,omitempty"`
	Domain        string   `json:"domain,omitempty"`
}

// CallShown is the call a host makes for the tool and what the app is
// given of it: the arguments (ui/notifications/tool-input) and the result
// (ui/notifications/tool-result).
type CallShown struct {
	Arguments json.RawMessage `json:"arguments"`
	Result    json.RawMessage `json:"result"`
}

// Check puts together the report of a tool's app: a the tool's app (from
// OfTool), tools all the tools listed (for those the app may call), res
// the resources/read result (nil when it could not be read: readErr says
// why), listing the resource's entry in resources/list (or nil), max the
// bound on its HTML.
func Check(a ToolApp, tools []json.RawMessage, res json.RawMessage, readErr string, listing json.RawMessage, max int) (Report, Resource) {
	r := Report{Tool: a.Tool, ResourceURI: a.ResourceURI, Visibility: a.Visibility, AppTools: []string{}}
	r.Problems = append(r.Problems, a.Problems...)
	for _, t := range tools {
		if ta, _ := OfTool(t); ta.Tool != "" && ta.Visible(App) {
			r.AppTools = append(r.AppTools, ta.Tool)
		}
	}
	var rs Resource
	if readErr != "" {
		r.Problems = append(r.Problems, problem(Error, "apps.resource-exists", "the app's resource %s cannot be read: %s", a.ResourceURI, readErr))
	} else {
		var ps []Problem
		rs, ps = ReadResource(a.ResourceURI, res, listing, max)
		r.Problems = append(r.Problems, ps...)
		r.Resource = &rs
		r.Host = &HostPlan{Sandbox: Sandbox, CSP: rs.Meta.CSP.Policy(), Declared: rs.Meta.CSP, Permissions: rs.Meta.Permissions,
			PrefersBorder: rs.Meta.PrefersBorder, Domain: rs.Meta.Domain}
		if r.Host.Permissions == nil {
			r.Host.Permissions = []string{}
		}
	}
	r.Valid = !Invalid(r.Problems)
	if r.Problems == nil {
		r.Problems = []Problem{}
	}
	return r, rs
}

// AddCall adds to the report the call made for the tool and checks its
// result as the extension asks of a tool with an app: "Tools MUST return
// meaningful content array even when UI is available", for the hosts that
// show text.
func (r *Report) AddCall(args, result json.RawMessage) {
	r.Call = &CallShown{Arguments: args, Result: result}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	malformed := json.Unmarshal(result, &res) != nil // content of the wrong types: none a host can be sure to show
	meaningful := false
	for _, c := range res.Content {
		if c.Type != "text" || strings.TrimSpace(c.Text) != "" {
			meaningful = true
		}
	}
	if !meaningful || malformed {
		r.Problems = append(r.Problems, problem(Error, "apps.text-fallback", "the tool's result has no content a host without apps can show; a tool with an app must still return meaningful content"))
		r.Valid = false
	}
}
