package serve

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest"
)

// echoHeaders is an MCP server of the initialize era that puts the
// headers of each request everywhere it can: its server info, a tool's
// description, a result, an error, a log message.
func echoHeaders(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		json.Unmarshal(body, &m)
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		all, _ := json.Marshal(r.Header)
		quoted, _ := json.Marshal(string(all))
		text := string(quoted)
		var result, rpcErr string
		switch {
		case m.Method == "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"logging":{}},"serverInfo":{"name":"echo","version":` + text + `},"instructions":` + text + `}`
		case m.Method == "tools/list":
			result = `{"tools":[{"name":"headers","description":` + text + `,"inputSchema":{"type":"object"}}]}`
		case m.Method == "tools/call" && m.Params.Name == "headers":
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: "+`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":`+text+`}}`+"\n\n")
			result = `{"content":[{"type":"text","text":` + text + `}]}`
			io.WriteString(w, "data: "+`{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`+"\n\n")
			return
		default:
			rpcErr = `{"code":-32603,"message":` + text + `,"data":{"headers":` + string(all) + `}}`
		}
		w.Header().Set("Content-Type", "application/json")
		if rpcErr != "" {
			io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"error":`+rpcErr+`}`)
			return
		}
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

// TestTokensStayInside: a server that echoes the credentials it is sent
// (in results, errors, notifications, its server info) never shows them
// to a client of serve, on stdio or HTTP: a client that records all it
// receives finds them masked.
func TestTokensStayInside(t *testing.T) {
	t.Parallel()
	const token = "s3cr3t-t0ken-v4lue"
	const key = `k3y"with\quote`
	header := http.Header{"Authorization": {"Bearer " + token}, "X-Api-Key": {key}}
	srv := startServer(t, settingsFor(echoHeaders(t), "legacy", header), nil, false)
	stdio, stdioRec := stdioClient(t, srv, "legacy")
	web, webRec := httpClient(t, serveHTTP(t, srv, ""), "legacy", "http")
	for name, c := range map[string]*mcp.Client{"stdio": stdio, "http": web} {
		call(t, c, "tools/list", `{}`)
		if res := call(t, c, "tools/call", `{"name":"headers","arguments":{}}`); !strings.Contains(string(res), "***") {
			t.Errorf("%s: the server's echo is not there, masked: %s", name, res)
		}
		if _, err := c.Call(t.Context(), "resources/list", nil); err == nil {
			t.Errorf("%s: resources/list: want the server's error", name)
		}
	}
	escaped, _ := json.Marshal(key)
	twice, _ := json.Marshal(string(escaped))
	for name, rec := range map[string]*recorder{"stdio": stdioRec, "http": webRec} {
		got := rec.all()
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
	stdio, _ := stdioClient(t, srv, "legacy")
	web, _ := httpClient(t, serveHTTP(t, srv, ""), "legacy", "http")
	secrets := []string{"Db-Url-S3cret"}
	for _, v := range envSecrets {
		secrets = append(secrets, v)
	}
	for name, c := range map[string]*mcp.Client{"stdio": stdio, "http": web} {
		res := call(t, c, "tools/call", `{"name":"env","arguments":{}}`)
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
	stdio, stdioRec := stdioClient(t, srv, "modern")
	web, webRec := httpClient(t, serveHTTP(t, srv, ""), "modern", "http")
	for name, side := range map[string]struct {
		c   *mcp.Client
		rec *recorder
	}{"stdio": {stdio, stdioRec}, "http": {web, webRec}} {
		if res := call(t, side.c, "tools/call", `{"name":"env","arguments":{}}`); !strings.Contains(string(res), "plain-value-shown") {
			t.Fatalf("%s: the server's echo is not there: %.300s", name, res)
		}
		asked := false
		for _, m := range side.rec.all() {
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

// TestGatewaySecretsStayInside: behind one endpoint, two servers each
// echoing the credentials they are sent: a client of the endpoint, on
// stdio and HTTP, and a client of each server's own path, find neither
// server's credentials in anything they receive (server info and
// instructions merged, descriptions, results, errors, log messages).
func TestGatewaySecretsStayInside(t *testing.T) {
	t.Parallel()
	tokens := map[string]string{"alpha": "alpha-s3cr3t-t0ken", "beta": "beta-s3cr3t-t0ken"}
	var members []testMember
	for _, name := range []string{"alpha", "beta"} {
		header := http.Header{"Authorization": {"Bearer " + tokens[name]}}
		members = append(members, testMember{name: name, settings: settingsFor(echoHeaders(t), "legacy", header)})
	}
	g, _ := startGateway(t, members...)
	_, base := gatewayHTTP(t, g, nil)
	stdio, stdioRec := stdioClient(t, g.Server(), "legacy")
	web, webRec := httpClient(t, base, "legacy", "http")
	modern, modernRec := httpClient(t, base, "modern", "modern")
	alone, aloneRec := httpClient(t, base+"/beta", "legacy", "alone")
	for name, c := range map[string]*mcp.Client{"stdio": stdio, "http": web, "modern": modern} {
		listAll(t, c, "tools/list", "tools")
		for _, m := range []string{"alpha", "beta"} {
			if res := call(t, c, "tools/call", `{"name":"`+m+`__headers","arguments":{}}`); !strings.Contains(string(res), "***") {
				t.Errorf("%s: %s's echo is not there, masked: %s", name, m, res)
			}
		}
		if _, err := c.Call(t.Context(), "prompts/get", json.RawMessage(`{"name":"alpha__x"}`)); err == nil {
			t.Errorf("%s: prompts/get: want the server's error", name)
		}
	}
	if res := call(t, alone, "tools/call", `{"name":"headers","arguments":{}}`); !strings.Contains(string(res), "***") {
		t.Errorf("beta alone: its echo is not there, masked: %s", res)
	}
	for name, rec := range map[string]*recorder{"stdio": stdioRec, "http": webRec, "modern": modernRec, "alone": aloneRec} {
		got := rec.all()
		if len(got) < 3 {
			t.Fatalf("%s: the client received %d messages", name, len(got))
		}
		for _, m := range got {
			for _, secret := range tokens {
				if strings.Contains(string(m), secret) {
					t.Errorf("%s: a client received a secret: %.300s", name, m)
				}
			}
		}
	}
}
