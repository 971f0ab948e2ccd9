package serve

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/serve/servetest"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// TestTokensStayInside: a server that echoes the credentials it is sent
// (in results, errors, notifications, its server info) never shows them
// to a client of serve, on stdio or HTTP: a client that records all it
// receives finds them masked.
func TestTokensStayInside(t *testing.T) {
	t.Parallel()
	const token = "s3cr3t-t0ken-v4lue"
	const key = `k3y"with\quote`
	header := http.Header{"Authorization": {"Bearer " + token}, "X-Api-Key": {key}}
	srv := startServer(t, servetest.Settings(servetest.EchoHeaders(t), "legacy", header), nil, false)
	stdio, stdioRec := servetest.StdioClient(t, srv, "legacy")
	web, webRec := servetest.HTTPClient(t, serveHTTP(t, srv, ""), "legacy", "http")
	for name, c := range map[string]*mcp.Client{"stdio": stdio, "http": web} {
		servetest.Call(t, c, "tools/list", `{}`)
		if res := servetest.Call(t, c, "tools/call", `{"name":"headers","arguments":{}}`); !strings.Contains(string(res), "***") {
			t.Errorf("%s: the server's echo is not there, masked: %s", name, res)
		}
		if _, err := c.Call(t.Context(), "resources/list", nil); err == nil {
			t.Errorf("%s: resources/list: want the server's error", name)
		}
	}
	escaped, _ := json.Marshal(key)
	twice, _ := json.Marshal(string(escaped))
	for name, rec := range map[string]*servetest.Recorder{"stdio": stdioRec, "http": webRec} {
		got := rec.All()
		if len(got) < 5 {
			t.Fatalf("%s: the client received %d messages", name, len(got))
		}
		for _, m := range got {
			for _, secret := range []string{token, key, string(escaped[1 : len(escaped)-1]), string(twice[3 : len(twice)-3])} {
				if strings.Contains(string(m), secret) {
					t.Errorf("%s: a client received a secret: %s", name, m)
				}
			}
		}
	}
}

// envSecrets are secrets as a user's shell holds them.
var envSecrets = map[string]string{
	"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0nly",
	"AWS_SECRET_ACCESS_KEY":        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"MYSQL_PWD":                    "my-sql-pa55word",
	"DB_PASS":                      `db"pass\word`,
	"SMTP_PASS":                    "smtp+pass=word&more",
}

// TestEnvironmentSecretsStayInside: a server started with the user's
// environment (mcpv serve -- CMD hands it mcpv's own) that echoes it, as
// is, URL-encoded, base64-encoded at every offset, JSON-escaped once and
// twice, shows a client of serve none of the secrets in it, over stdio
// and HTTP; what is no secret still reaches the client.
func TestEnvironmentSecretsStayInside(t *testing.T) {
	t.Parallel()
	env := append(os.Environ(), mcptest.EnvVar+"=env-forms", "PLAIN_SETTING=plain-value-shown",
		"DATABASE_URL=postgres://app:Db-Url-S3cret@db.example/app")
	for k, v := range envSecrets {
		env = append(env, k+"="+v)
	}
	srv := startServer(t, &connect.Settings{Command: []string{os.Args[0]}, Env: env, ProtocolEra: "legacy", ConnectTimeout: 30 * time.Second}, nil, false)
	stdio, _ := servetest.StdioClient(t, srv, "legacy")
	web, _ := servetest.HTTPClient(t, serveHTTP(t, srv, ""), "legacy", "http")
	secrets := []string{"Db-Url-S3cret"}
	for _, v := range envSecrets {
		secrets = append(secrets, v)
	}
	for name, c := range map[string]*mcp.Client{"stdio": stdio, "http": web} {
		res := servetest.Call(t, c, "tools/call", `{"name":"env","arguments":{}}`)
		if !strings.Contains(string(res), "plain-value-shown") {
			t.Fatalf("%s: the server's echo is not there: %.300s", name, res)
		}
		var r struct {
			Content []struct{ Text string } `json:"content"`
		}
		if err := json.Unmarshal(res, &r); err != nil || len(r.Content) < 9 {
			t.Fatalf("%s: %v, %d blocks", name, err, len(r.Content))
		}
		for _, secret := range secrets {
			if leaks(string(res), secret) {
				t.Errorf("%s: the message holds %q", name, secret)
			}
			for i, b := range r.Content {
				if leaks(b.Text, secret) {
					t.Errorf("%s: block %d holds %q (as is or encoded): %.200s", name, i, secret, b.Text)
				}
			}
		}
	}
}

// leaks reports whether text shows secret: as is, URL-decoded, or in
// six bytes or more of what any run of it between masks decodes to as
// base64, at any offset, in either alphabet (a mask leaves at most two
// bytes' worth of a secret's encoding on either side).
func leaks(text, secret string) bool {
	pieces := func(s string) []string {
		var out []string
		for i := 0; i+6 <= len(secret); i++ {
			out = append(out, secret[i:i+6])
		}
		return out
	}(secret)
	if strings.Contains(text, secret) {
		return true
	}
	for _, unescape := range []func(string) (string, error){url.QueryUnescape, url.PathUnescape} {
		if u, err := unescape(text); err == nil && strings.Contains(u, secret) {
			return true
		}
	}
	for _, chunk := range strings.FieldsFunc(text, func(r rune) bool { return r == '*' || r == '\n' || r == ' ' || r == '=' }) {
		for off := range 4 {
			if off >= len(chunk) {
				break
			}
			c := chunk[off:]
			c = c[:len(c)/4*4]
			for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
				if d, err := enc.DecodeString(c); err == nil && slices.ContainsFunc(pieces, func(p string) bool { return strings.Contains(string(d), p) }) {
					return true
				}
			}
		}
	}
	return false
}

// TestBridgedQuestionKeepsSecrets: a server of the initialize era that
// asks a 2026-07-28 client a question mid-call, echoing the user's
// environment in it, and then in its result: the input_required result
// that carries the question to the client, and the result after the
// retry, show none of the secrets, over stdio and HTTP.
func TestBridgedQuestionKeepsSecrets(t *testing.T) {
	t.Parallel()
	env := append(os.Environ(), mcptest.EnvVar+"=env-forms,ask=elicitation/create", "PLAIN_SETTING=plain-value-shown")
	for k, v := range envSecrets {
		env = append(env, k+"="+v)
	}
	srv := startServer(t, &connect.Settings{Command: []string{os.Args[0]}, Env: env, ProtocolEra: "legacy", ConnectTimeout: 30 * time.Second}, nil, false)
	stdio, stdioRec := servetest.StdioClient(t, srv, "modern")
	web, webRec := servetest.HTTPClient(t, serveHTTP(t, srv, ""), "modern", "http")
	for name, side := range map[string]struct {
		c   *mcp.Client
		rec *servetest.Recorder
	}{"stdio": {stdio, stdioRec}, "http": {web, webRec}} {
		if res := servetest.Call(t, side.c, "tools/call", `{"name":"env","arguments":{}}`); !strings.Contains(string(res), "plain-value-shown") {
			t.Fatalf("%s: the server's echo is not there: %.300s", name, res)
		}
		asked := false
		for _, m := range side.rec.All() {
			msg := string(m)
			if strings.Contains(msg, `"input_required"`) {
				asked = true
				if !strings.Contains(msg, "plain-value-shown") {
					t.Errorf("%s: the question does not carry the server's echo: %.300s", name, msg)
				}
			}
			for _, secret := range envSecrets {
				if leaks(msg, secret) {
					t.Errorf("%s: a message the client got holds %q: %.300s", name, secret, msg)
				}
			}
		}
		if !asked {
			t.Errorf("%s: the client got no input_required result: the call was not bridged", name)
		}
	}
}
