package check

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/mcp"
)

// asksEvery are the asks checks of MUST of either era.
var asksEvery = []string{"asks.elicitation", "asks.elicitation-sensitive", "asks.elicitation-mode", "asks.elicitation-url", "asks.sampling-messages", "asks.sampling-tools", "asks.elicitation-url-private"}

// addAsksEdgeServers adds the servers that ask a client that declared
// it at the edge: a form without its mode, a URL of plain HTTP to
// loopback, a sampling message's content an array, a tool's result of its
// outputSchema in a sampling request, progressTokens 1 and "1", a
// cancellation of a request not run as a task.
func addAsksEdgeServers() {
	for _, transport := range []string{"stdio", "http"} {
		edgeServers = append(edgeServers, edgeServer{name: transport + " 2025-11-25 asking at the edge",
			fake:  edgeFake(transport, "", merge(faults("asks"), map[string]string{"edges": `["asks-edge"]`})),
			holds: append(slices.Clone(asksEvery), "asks.elicitation-complete", "asks.url-required", "asks.sampling-tool-output", "asks.elicitation-links", "utilities.ping-rate", "asks.progress-token-unique", "utilities.cancel-task")})
	}
}

// What a connection that declares elicitation, sampling and roots answers
// the server is a result its revision's schema has: an elicitation
// declined, a sampled message, a list of roots.
func TestAnswersAreResults(t *testing.T) {
	for _, version := range schemaRevisions {
		sc := schemaOf(version)
		for _, method := range []string{"elicitation/create", "sampling/createMessage", "roots/list", "ping"} {
			def := sc.resultDef(method)
			if def == "" && method == "ping" && version == mcp.ModernVersion {
				continue // 2026-07-28 has no ping
			}
			if def == "" {
				t.Errorf("%s: the schema has no result of %s", version, method)
				continue
			}
			if why := sc.validate(def, clientAnswer(method)); why != "" {
				t.Errorf("%s: the answer to %s is no %s: %s", version, method, def, why)
			}
		}
	}
}

// A server that asks without end is answered a bounded number of times,
// and the report says how many were left; one whose form is 20,000
// properties and one of them 5,000 objects deep is judged, and fails
// (and holds no web address, which is read to its depth).
func TestHostileAsks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fault, id string
		want      Status
		said      string
	}{
		{"asks-loop", "asks.elicitation", Passed, "left unanswered"},
		{"asks-huge-schema", "asks.elicitation", Failed, `property "deep"`},
		{"asks-js-url", "asks.elicitation-url", Passed, ""},
		{"asks-huge-schema", "asks.elicitation-links", Passed, ""},
		{"asks-loop", "asks.elicitation-url-private", Passed, "left unanswered"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			t.Parallel()
			r := runChecks(t, fake{transport: "stdio", change: faults("asks", tc.fault)}, tc.id)[tc.id]
			if r.Status != tc.want || !strings.Contains(describeResult(r), tc.said) {
				t.Errorf("want %s saying %q: %s", tc.want, tc.said, describeResult(r))
			}
		})
	}
}

// A URL elicitation's url: valid or not (a MUST), HTTPS or not (a
// SHOULD, plain HTTP to loopback aside), whatever scheme it names.
func TestElicitationURLs(t *testing.T) {
	for _, tc := range []struct {
		url          string
		valid, https bool
	}{
		{"https://example.com/consent?x=1", true, true},
		{"http://localhost:8080/consent", true, true},
		{"http://[::1]/consent", true, true},
		{"http://example.com/consent", true, false},
		{"javascript:alert(1)", true, false},
		{"file:///etc/passwd", true, false},
		{"https://exa mple.com/", false, true},
		{"/relative/path", false, true},
		{"https://", false, true},
	} {
		p, _ := json.Marshal(map[string]string{"mode": "url", "message": "m", "url": tc.url, "elicitationId": "e"})
		if got := urlProblem(false)(p, nil, "") == ""; got != tc.valid {
			t.Errorf("%s: valid %t, want %t", tc.url, got, tc.valid)
		}
		if got := urlProblem(true)(p, nil, "") == ""; got != tc.https {
			t.Errorf("%s: https (or not judged) %t, want %t", tc.url, got, tc.https)
		}
	}
}

// A form's property is read as words, its name and title apart: what
// names a password, an API key, an access token or a payment credential
// fails; a flag, a choice and words near those pass.
// An argument mirrored in a header is personal data by the last word of
// its name or title: an email, not an email's subject.
func TestSensitiveHeaderArguments(t *testing.T) {
	for prop, want := range map[string]bool{
		`"email":{"type":"string"}`:                                true,
		`"userEmail":{"type":"string"}`:                            true,
		`"email_address":{"type":"string"}`:                        true,
		`"to":{"type":"string","title":"Recipient email"}`:         true,
		`"phoneNumber":{"type":"string"}`:                          true,
		`"passport_no":{"type":"string"}`:                          true,
		`"ssn":{"type":"string"}`:                                  true,
		`"emailAddresses":{"type":"string"}`:                       true,
		`"phoneNumbers":{"type":"string"}`:                         true,
		`"emailTo":{"type":"string"}`:                              true,
		`"phoneE164":{"type":"string"}`:                            true,
		`"mobilePhoneNr":{"type":"string"}`:                        true,
		`"apiKey":{"type":"string"}`:                               true,
		`"emailSubject":{"type":"string"}`:                         false,
		`"email_template":{"type":"string"}`:                       false,
		`"phoneModel":{"type":"string"}`:                           false,
		`"passportCountry":{"type":"string"}`:                      false,
		`"subject":{"type":"string","title":"Email subject line"}`: false,
		`"provider":{"type":"string","title":"Phone carrier"}`:     false,
		`"max_tokens":{"type":"string","title":"Token budget"}`:    false,
	} {
		name, raw, _ := strings.Cut(prop, ":")
		if got := sensitiveField(strings.Trim(name, `"`), json.RawMessage(raw), headerSecrets); (got != "") != want {
			t.Errorf("%s: %q", prop, got)
		}
	}
}

func TestSensitiveFormProperties(t *testing.T) {
	for prop, want := range map[string]bool{
		`"password":{"type":"string","title":"Account password"}`:            true,
		`"api_key":{"type":"string"}`:                                        true,
		`"apiKey":{"type":"string"}`:                                         true,
		`"token":{"type":"string","title":"Your access token"}`:              true,
		`"clientSecret":{"type":"string"}`:                                   true,
		`"cvv2":{"type":"string"}`:                                           true,
		`"has_api_key":{"type":"boolean","title":"Do you have an API key?"}`: false,
		`"secret":{"type":"string","enum":["yes","no"]}`:                     false,
		`"card":{"type":"string","title":"Number of cards"}`:                 false,
		`"api":{"type":"string","title":"Key features"}`:                     false,
		`"secretary":{"type":"string"}`:                                      false,
		`"max_tokens":{"type":"string","title":"Token budget"}`:              false,
		`"passportCountry":{"type":"string"}`:                                false,
		`"githubToken":{"type":"string"}`:                                    true,
		`"pwd":{"type":"string","title":"Login"}`:                            true,
		`"token":{"type":"string"}`:                                          true,
		`"password_hint":{"type":"string"}`:                                  false,
		`"privateKeyPath":{"type":"string","title":"Key file"}`:              false,
		`"secret_name":{"type":"string","title":"Vault entry"}`:              false,
		`"tokenizer":{"type":"string"}`:                                      false,
		`"token_count":{"type":"string"}`:                                    false,
		`"fromToken":{"type":"string","title":"Token to swap"}`:              false,
		`"githubToken":{"type":"string","title":"Token from your settings"}`: true,
		`"pageToken":{"type":"string"}`:                                      false,
		`"token":{"type":"string","title":"Token symbol"}`:                   false,
		`"pwd":{"type":"string","title":"Working directory"}`:                false,
	} {
		got := sensitiveProblem(json.RawMessage(`{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{`+prop+`}}}`), nil, "")
		if (got != "") != want {
			t.Errorf("%s: %q", prop, got)
		}
	}
}

// A URL elicitation's url that carries the user's credentials or
// personal data is named by what it carries, never by its value: the
// report would otherwise repeat the secret it found.
func TestPrivateURLSaidWithoutItsSecret(t *testing.T) {
	for _, tc := range []struct{ url, says, never string }{
		{"https://ada:hunter2-secret@example.com/consent", "credentials before its host", "hunter2-secret"},
		{"https://example.com/consent?api_key=sk-live-123456", `parameter "api_key"`, "sk-live-123456"},
		{"https://example.com/consent#access_token=tok-987654", `parameter "access_token"`, "tok-987654"},
		{"https://example.com/consent?to=ada%40example.com", "an email address", "ada@example.com"},
		{"https://ghp_abcdefSECRET123@github.com/login", "credentials before its host", "ghp_abcdefSECRET123"},
		{"https://example.com/consent?page_token=p2&step=2", "", ""},
		{"https://example.com/consent?email=&step=2", "", ""},
	} {
		params, _ := json.Marshal(map[string]string{"mode": "url", "message": "m", "url": tc.url, "elicitationId": "e"})
		got := privateURLProblem(params, nil, "")
		if !strings.Contains(got, tc.says) || tc.says == "" && got != "" || tc.never != "" && strings.Contains(got, tc.never) {
			t.Errorf("%s: %q, want it to say %q and never %q", tc.url, got, tc.says, tc.never)
		}
	}
	// Nor does the report show the message that carried it.
	for _, tc := range []struct{ fault, id string }{{"asks-url-private", "asks.elicitation-url-private"}, {"asks-form-link", "asks.elicitation-links"}} {
		r := runChecks(t, fake{transport: "stdio", change: faults("asks", tc.fault)}, tc.id)[tc.id]
		if said := describeResult(r); r.Status != Failed || strings.Contains(said, "ada%40example.com") || strings.Contains(said, "example.com/signup") {
			t.Errorf("%s: want a failure that shows nothing of the url: %s", tc.id, said)
		}
	}
}

// A connection that declares tasks runs the server's sampling made as a
// task as its revision's schema has it: made working, completed once
// polled, its result the sampled message that names the task; a task
// completed is not cancelled, one working is; a task no one made, or a
// ttl that is no integer, is no trouble.
func TestTasksRunForTheServer(t *testing.T) {
	sc := schemaOf("2025-11-25")
	valid := func(def string, raw json.RawMessage) {
		t.Helper()
		if why := sc.validate(def, raw); why != "" {
			t.Errorf("%s is no %s: %s", raw, def, why)
		}
	}
	var ts clientTasks
	ask := func(method, params string) (json.RawMessage, *mcp.RPCError) {
		return ts.asked(mcp.Message{Method: method, ID: json.RawMessage(`1`), Params: json.RawMessage(params)})
	}
	sampling := mcp.Message{Method: "sampling/createMessage", ID: json.RawMessage(`"s"`), Params: json.RawMessage(`{"task":{"ttl":60000}}`)}
	made := ts.make(sampling, clientAnswer("sampling/createMessage"))
	valid("CreateTaskResult", made)
	if st, _ := str(member(member(made, "task"), "status")); st != "working" {
		t.Errorf("made %s, not working", made)
	}
	got, _ := ask("tasks/get", `{"taskId":"mcpv-check-task-1"}`)
	valid("GetTaskResult", got)
	if st, _ := str(member(got, "status")); st != "completed" {
		t.Errorf("polled: %s, not completed", got)
	}
	res, _ := ask("tasks/result", `{"taskId":"mcpv-check-task-1"}`)
	valid("CreateMessageResult", res)
	if id, _ := str(member(member(member(res, "_meta"), "io.modelcontextprotocol/related-task"), "taskId")); id != "mcpv-check-task-1" {
		t.Errorf("the result %s names no task", res)
	}
	if _, rerr := ask("tasks/cancel", `{"taskId":"mcpv-check-task-1"}`); rerr == nil || rerr.Code != mcp.CodeInvalidParams {
		t.Errorf("a completed task cancelled: %v", rerr)
	}
	ts.make(mcp.Message{Method: "elicitation/create", ID: json.RawMessage(`2`), Params: json.RawMessage(`{"task":{"ttl":"soon"}}`)}, clientAnswer("elicitation/create"))
	cancelled, _ := ask("tasks/cancel", `{"taskId":"mcpv-check-task-2"}`)
	valid("CancelTaskResult", cancelled)
	if st, _ := str(member(cancelled, "status")); st != "cancelled" || string(member(cancelled, "ttl")) != "null" {
		t.Errorf("cancelled: %s", cancelled)
	}
	if _, rerr := ask("tasks/result", `{"taskId":"mcpv-check-task-2"}`); rerr == nil {
		t.Error("a cancelled task's result given")
	}
	if _, rerr := ask("tasks/get", `{"taskId":"no-such-task"}`); rerr == nil || rerr.Code != mcp.CodeInvalidParams {
		t.Errorf("an unknown task: %v", rerr)
	}
}
