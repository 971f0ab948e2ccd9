package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// The replicas' examples hold to what serve does: the guide's HAProxy
// lines are the file's (which scripts/replicas.sh runs), the checks ask
// /healthz, and the Kubernetes manifest's probes, port and grace are
// serve's.
func TestReplicaExamples(t *testing.T) {
	cfg, err := os.ReadFile("../../examples/replicas/haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	guide, err := os.ReadFile("../../docs/guide/serve.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := func(b []byte) []string {
		var out []string
		for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); {
			if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
		return out
	}
	_, block, ok := strings.Cut(string(guide), "```\nbackend replicas\n")
	block, _, _ = strings.Cut(block, "```")
	if !ok {
		t.Fatal("the guide gives no HAProxy backend")
	}
	have := lines(cfg)
	at := slices.Index(have, "backend replicas")
	for _, l := range lines([]byte(block)) {
		i := slices.Index(have[at+1:], l)
		if i < 0 {
			t.Errorf("the guide's line %q is not the file's, in its order", l)
			continue
		}
		at += i + 1
	}
	for _, want := range []string{"uri " + HealthPath, "stick on req.hdr(Mcp-Session-Id)", "retry-on conn-failure 503", "option http-server-close"} {
		if !bytes.Contains(cfg, []byte(want)) {
			t.Errorf("haproxy.cfg lacks %q", want)
		}
	}
	// HAProxy retries only what no replica read: a connection refused,
	// and serve's 503, which it answers before it acts. Any other cause
	// (empty-response, junk-response, response-timeout, a 502 or 504)
	// replays a request that a replica read and may have acted on.
	for _, l := range have {
		if words := strings.Fields(l); len(words) > 0 && words[0] == "retry-on" {
			for _, cause := range words[1:] {
				if cause != "conn-failure" && cause != "503" && cause != "none" {
					t.Errorf("haproxy.cfg: %q sends again a request a replica may have acted on (%s)", l, cause)
				}
			}
		}
	}

	manifest, err := os.ReadFile("../../examples/replicas/kubernetes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	type probe struct {
		HTTPGet struct {
			Path string `yaml:"path"`
			Port string `yaml:"port"`
		} `yaml:"httpGet"`
	}
	var deploy struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Template struct {
				Spec struct {
					Grace      int `yaml:"terminationGracePeriodSeconds"`
					Containers []struct {
						Args  []string `yaml:"args"`
						Ports []struct {
							Name string `yaml:"name"`
							Port int    `yaml:"containerPort"`
						} `yaml:"ports"`
						Readiness probe `yaml:"readinessProbe"`
						Liveness  probe `yaml:"livenessProbe"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.NewDecoder(bytes.NewReader(manifest)).Decode(&deploy); err != nil || deploy.Kind != "Deployment" || len(deploy.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("the manifest's Deployment: %v %+v", err, deploy)
	}
	// A Deployment and a Service send no request again; an ingress or a
	// mesh route added here would need its retries looked at.
	for dec := yaml.NewDecoder(bytes.NewReader(manifest)); ; {
		var obj struct {
			Kind string `yaml:"kind"`
		}
		if err := dec.Decode(&obj); err != nil {
			break
		}
		if obj.Kind != "Deployment" && obj.Kind != "Service" {
			t.Errorf("the manifest holds a %s: whether it sends a request again is not known here", obj.Kind)
		}
	}
	pod := deploy.Spec.Template.Spec
	c := pod.Containers[0]
	for _, p := range []probe{c.Readiness, c.Liveness} {
		if p.HTTPGet.Path != HealthPath || len(c.Ports) != 1 || p.HTTPGet.Port != c.Ports[0].Name {
			t.Errorf("a probe asks %+v, not %s on the container's port %+v", p.HTTPGet, HealthPath, c.Ports)
		}
	}
	if i := slices.Index(c.Args, "--http"); i < 0 || i+1 == len(c.Args) || !strings.HasSuffix(c.Args[i+1], ":"+strconv.Itoa(c.Ports[0].Port)) {
		t.Errorf("serve's --http is not the container's port: %q %+v", c.Args, c.Ports)
	}
	// The pod is given the drain, and the rest of serve's shutdown, before
	// it is killed.
	if time.Duration(pod.Grace)*time.Second < DrainGrace+5*time.Second {
		t.Errorf("terminationGracePeriodSeconds %d leaves the drain (%s) no time", pod.Grace, DrainGrace)
	}
}

// A server behind serve that dies once it has read a tools/call is not
// sent the call again: the client is told that the tool may or may not
// have run, as serve's own client was.
func TestUpstreamDiesMidCallRunsOnce(t *testing.T) {
	t.Parallel()
	fake := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Post: func(x *mcptest.Exchange) bool {
		if x.RPCMethod == "tools/call" {
			x.Drop()
		}
		return false
	}})
	srv := startServer(t, servetest.Settings(fake.URL, "legacy", nil), nil, false)
	for _, era := range []string{"modern", "legacy"} {
		c, _ := servetest.HTTPClient(t, serveHTTP(t, srv, ""), era, "x")
		before := len(fake.Requests())
		_, err := c.Call(t.Context(), "tools/call", json.RawMessage(`{"name":"pay","arguments":{}}`))
		if !errors.As(err, new(*mcp.CallError)) || !strings.Contains(err.Error(), "the tool may or may not have run") {
			t.Errorf("%s client: %v, want the relay's error saying the tool may have run", era, err)
		}
		calls := 0
		for _, r := range fake.Requests()[before:] {
			if r.RPCMethod == "tools/call" {
				calls++
			}
		}
		if calls != 1 {
			t.Errorf("%s client: the server was sent the call %d times, want once", era, calls)
		}
	}
}
