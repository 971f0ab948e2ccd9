package servercard

// A card against the live server: "the values a client observes once
// connected (the serverInfo (name, version) and supportedVersions from
// server/discover, the transport served at each remotes[] endpoint, and
// descriptive fields (title, description, icons)) SHOULD NOT contradict
// the equivalent values declared in the Server Card", and clients "SHOULD
// verify a Server Card's claims against the live connection, preferring
// the runtime values". Cards of the extension's earlier drafts declared
// capabilities and tools too; where one does, they are held to what the
// server declares and lists.

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/mcpv/mcpv/internal/safetext"
)

// Live is what the server says once connected.
type Live struct {
	// Endpoint is the URL connected to, and Transport what it answered
	// over ("streamable-http" or "sse").
	Endpoint, Transport string
	// ServerInfo is the server's info (initialize's serverInfo, or
	// server/discover's).
	ServerInfo json.RawMessage
	// Version is the version negotiated; Supported the versions
	// server/discover lists (nil in the initialize era).
	Version   string
	Supported []string
	// Capabilities are the server's, by key.
	Capabilities map[string]json.RawMessage
	// Tools are the names of the tools it lists (nil when not listed).
	Tools []string
}

// Disagreement is one thing the card says that the server does not.
type Disagreement struct {
	Field  string `json:"field"`
	Card   string `json:"card"`
	Server string `json:"server"`
}

// Message is a disagreement in a line.
func (d Disagreement) Message() string {
	return safetext.Line(fmt.Sprintf("%s: the card says %s, the server %s", d.Field, d.Card, d.Server))
}

// Verify compares the card with the live server.
func Verify(c Card, live Live) []Disagreement {
	var out []Disagreement
	add := func(field, card, server string) { out = append(out, Disagreement{field, card, server}) }
	var info struct {
		Name, Version, Title, Description string
	}
	if live.ServerInfo != nil && json.Unmarshal(live.ServerInfo, &info) != nil {
		add("serverInfo", "who the server is", "sends a serverInfo that does not decode: "+safetext.Clip(string(live.ServerInfo), 120))
	}
	if c.Name != "" && info.Name != "" {
		_, short, _ := strings.Cut(c.Name, "/")
		// The server's name as a card can hold it (CardName) agrees too.
		if !strings.EqualFold(c.Name, info.Name) && !strings.EqualFold(short, info.Name) && c.Name != CardName(info.Name) {
			add("name", fmt.Sprintf("%q", c.Name), fmt.Sprintf("%q", info.Name))
		}
	}
	for _, f := range []struct{ name, card, server string }{
		{"version", c.Version, info.Version}, {"title", c.Title, info.Title}, {"description", c.Description, info.Description},
	} {
		if f.card != "" && f.server != "" && f.card != f.server {
			add(f.name, fmt.Sprintf("%q", f.card), fmt.Sprintf("%q", f.server))
		}
	}
	if live.Endpoint != "" && len(c.Remotes) > 0 {
		var r *Remote
		for i := range c.Remotes {
			if sameEndpoint(c.Remotes[i].URL, live.Endpoint) {
				r = &c.Remotes[i]
				break
			}
		}
		switch {
		case r == nil:
			var urls []string
			for _, r := range c.Remotes {
				urls = append(urls, r.URL)
			}
			add("remotes", "the server is reached at "+strings.Join(urls, ", "), "answers at "+live.Endpoint)
		case live.Transport != "" && r.Type != live.Transport:
			add("remotes.type", r.Type+" at "+r.URL, "answers over "+live.Transport)
		case len(r.SupportedVersions) > 0:
			if live.Version != "" && !slices.Contains(r.SupportedVersions, live.Version) {
				add("remotes.supportedProtocolVersions", strings.Join(r.SupportedVersions, ", "), "negotiated "+live.Version)
			}
			if live.Supported != nil {
				for _, v := range r.SupportedVersions {
					if !slices.Contains(live.Supported, v) {
						add("remotes.supportedProtocolVersions", v+" is supported", "lists "+strings.Join(live.Supported, ", ")+" (server/discover)")
					}
				}
			}
		}
	}
	if c.Capabilities != nil {
		var caps map[string]json.RawMessage
		if json.Unmarshal(c.Capabilities, &caps) != nil {
			add("capabilities", "no object", "")
		}
		for _, k := range slices.Sorted(maps.Keys(caps)) {
			declared := declaredValue(caps[k])
			_, has := live.Capabilities[k]
			has = has && declaredValue(live.Capabilities[k])
			if declared != has {
				add("capabilities."+k, yesNo(declared, "declared"), yesNo(has, "declared"))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(live.Capabilities)) {
			if _, named := caps[k]; !named && declaredValue(live.Capabilities[k]) && k != "experimental" {
				add("capabilities."+k, "not declared", "declared")
			}
		}
	}
	if c.Tools != nil && live.Tools != nil {
		for _, t := range c.Tools {
			if !slices.Contains(live.Tools, t) {
				add("tools", fmt.Sprintf("%q is listed", t), "does not list it")
			}
		}
		for _, t := range live.Tools {
			if !slices.Contains(c.Tools, t) {
				add("tools", fmt.Sprintf("%q is not listed", t), "lists it")
			}
		}
	}
	return out
}

func declaredValue(v json.RawMessage) bool {
	s := strings.TrimSpace(string(v))
	return s != "" && s != "null" && s != "false"
}

func yesNo(b bool, what string) string {
	if b {
		return what
	}
	return "not " + what
}

// sameEndpoint reports whether two URLs name one endpoint: the same
// scheme, host (in any case) and port, and path up to a trailing slash.
func sameEndpoint(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return false
	}
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		return map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Hostname(), ub.Hostname()) && port(ua) == port(ub) &&
		strings.TrimSuffix(ua.Path, "/") == strings.TrimSuffix(ub.Path, "/")
}
