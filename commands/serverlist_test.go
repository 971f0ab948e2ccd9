package commands

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/config"
)

// trusts trusts the files it names.
type trusts map[string]bool

func (t trusts) Trusted(path string, _ []byte) (bool, error) { return t[path], nil }

func TestDescribeServerMasksSecrets(t *testing.T) {
	t.Parallel()
	f := &config.File{Source: config.Source{Path: "/home/u/.config/mcpv/servers.yaml", Label: "mcpv catalog", Kind: config.User}}
	s := &config.Server{Name: "gh", File: f, Line: 3, Transport: "auto", URL: "https://user:pw@example.com/mcp",
		Headers:  []config.Var{{Name: "Authorization", Value: "Bearer abc123"}, {Name: "X-Trace", Value: "on"}, {Name: "A-Token", Value: "${TOKEN}"}},
		Env:      []config.Var{{Name: "Z_API_KEY", Value: "k"}, {Name: "A", Value: "1"}},
		Args:     []string{"--token=sekrit", "plain"},
		Timeout:  90 * time.Second,
		Pin:      "pins.json",
		OAuth:    config.OAuth{ClientID: "id", ClientSecret: "shh", Assertion: "${JWT}"},
		Warnings: []string{"w"}}
	b, err := json.Marshal(describeServer(s, trusts{}, true))
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, secret := range []string{"pw@", "abc123", `"k"`, "sekrit", "shh"} {
		if strings.Contains(got, secret) {
			t.Errorf("%s shows %s", got, secret)
		}
	}
	for _, want := range []string{
		`"name":"gh","transport":"auto",`,
		`"env":{"Z_API_KEY":`, `"A":"1"}`, // file order, not sorted
		`"headers":{"Authorization":"Bearer `, `"X-Trace":"on","A-Token":"${TOKEN}"}`,
		`"timeout":"1m30s"`, `"pin":"pins.json"`, `"source":"/home/u/.config/mcpv/servers.yaml","line":3,"from":"mcpv catalog"`,
		`"oauth":{"client_id":"id","client_secret":`, `"assertion":"${JWT}"`,
		`"shadowed":true`, `"warnings":["w"]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("%s lacks %s", got, want)
		}
	}
	if strings.Contains(got, `"trusted"`) {
		t.Errorf("%s: a user file's entry says whether it is trusted", got)
	}
}

func TestListServers(t *testing.T) {
	t.Parallel()
	project := &config.File{Source: config.Source{Path: "/p/.mcp.json", Label: "project", Kind: config.Project}}
	project.Servers = []*config.Server{{Name: "a", File: project, Command: "./a"}, {Name: "b", File: project, Command: "./b"}}
	user := &config.File{Source: config.Source{Path: "/u/servers.yaml", Kind: config.User}}
	user.Servers = []*config.Server{{Name: "a", File: user, URL: "https://a.example"}}
	list := listServers([]*config.File{project, user}, trusts{"/p/.mcp.json": true})
	if len(list) != 3 || list[0].Shadowed || list[1].Shadowed || !list[2].Shadowed {
		t.Fatalf("All = %+v; want the second a shadowed", list)
	}
	if list[0].Trusted == nil || !*list[0].Trusted || list[2].Trusted != nil {
		t.Errorf("trust: %v, %v", list[0].Trusted, list[2].Trusted)
	}
	if b, _ := json.Marshal(listServers(nil, trusts{})); string(b) != "[]" {
		t.Errorf("no servers: %s, want []", b)
	}
}
