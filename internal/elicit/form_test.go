package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/output"
)

// handle runs o.Handle on params and returns the result, what was logged
// (as mcpv shows it) and the error. Without Advice of its own, o gets one
// worded like mcpv's.
func handle(t *testing.T, o *Options, params string) (string, string, error) {
	t.Helper()
	var diag strings.Builder
	o.Log = output.NewLogger(&diag)
	if o.Advice == nil {
		o.Advice = testAdvice
	}
	got, err := o.Handle(context.Background(), json.RawMessage(params))
	if err == nil && !json.Valid(got) {
		t.Errorf("result is not JSON: %s", got)
	}
	return string(got), diag.String(), err
}

func testAdvice(u Unanswered) string {
	if len(u.Missing) > 0 {
		return "use --answer " + u.Missing[0] + "=VALUE"
	}
	return "use --answer KEY=VALUE, --answers FILE or --elicitation accept"
}

// The conformance suite's case: every field optional with a default; under
// accept, the content has all five with the right JSON types.
func TestConformanceDefaults(t *testing.T) {
	params := `{"message":"Please review your profile","requestedSchema":{"type":"object","properties":{
		"name":{"type":"string","default":"John Doe"},
		"age":{"type":"integer","default":30},
		"score":{"type":"number","default":95.5},
		"status":{"type":"string","enum":["active","inactive","pending"],"default":"active"},
		"verified":{"type":"boolean","default":true}}}}`
	o := &Options{Policy: PolicyAccept, ServerName: "conformance"}
	got, diag, err := handle(t, o, params)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"action":"accept","content":{"name":"John Doe","age":30,"score":95.5,"status":"active","verified":true}}`
	if got != want {
		t.Errorf("result\n got %s\nwant %s", got, want)
	}
	var res struct {
		Action  string
		Content map[string]any
	}
	if err := json.Unmarshal([]byte(got), &res); err != nil {
		t.Fatal(err)
	}
	wantContent := map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true}
	if diff := cmp.Diff(wantContent, res.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	wantDiag := `mcpv: server "conformance" asks: Please review your profile
mcpv: answered "accept" (filled by default: name, age, score, status, verified)
`
	if diff := cmp.Diff(wantDiag, diag); diff != "" {
		t.Errorf("diag (-want +got):\n%s", diff)
	}
}

// profile has a required email without a default and two optional fields
// with defaults.
const profile = `{"message":"Who are you?","requestedSchema":{"type":"object","properties":{
	"email":{"type":"string","format":"email"},
	"name":{"type":"string","default":"John Doe"},
	"age":{"type":"integer","minimum":0,"maximum":120,"default":30},
	"status":{"type":"string","oneOf":[{"const":"on","title":"Active"},{"const":"off","title":"Inactive"}]},
	"tags":{"type":"array","items":{"type":"string","enum":["a","b","c"]},"maxItems":2},
	"code":{"type":"string","pattern":"^[A-Z]{3}$"}},
	"required":["email"]}}`

func TestFormDecisions(t *testing.T) {
	const asks = "mcpv: server \"srv\" asks: Who are you?\n"
	tests := []struct {
		name       string
		policy     Policy
		answers    map[string]string
		answerJSON map[string]string
		want       string
		wantDiag   string // after the "asks" line
	}{
		{name: "accept without answers misses the required field", policy: PolicyAccept,
			want:     `{"action":"decline"}`,
			wantDiag: `mcpv: answered "decline" (required field "email" has no answer and no default; use --answer email=VALUE)` + "\n"},
		{name: "accept fills defaults", policy: PolicyAccept, answers: map[string]string{"email": "jo@example.com"},
			want:     `{"action":"accept","content":{"email":"jo@example.com","name":"John Doe","age":30}}`,
			wantDiag: `mcpv: answered "accept" (filled by default: name, age)` + "\n"},
		{name: "answers count under decline", policy: PolicyDecline, answers: map[string]string{"email": "jo@example.com", "age": "007"},
			want:     `{"action":"accept","content":{"email":"jo@example.com","name":"John Doe","age":7}}`,
			wantDiag: `mcpv: answered "accept" (filled by default: name)` + "\n"},
		{name: "decline without answers", policy: PolicyDecline,
			want:     `{"action":"decline"}`,
			wantDiag: `mcpv: answered "decline" (policy "decline" and no answers given; use --answer KEY=VALUE, --answers FILE or --elicitation accept)` + "\n"},
		{name: "cancel without answers", policy: PolicyCancel,
			want:     `{"action":"cancel"}`,
			wantDiag: `mcpv: answered "cancel" (policy "cancel" and no answers given; use --answer KEY=VALUE, --answers FILE or --elicitation accept)` + "\n"},
		{name: "cancel with the required field missing", policy: PolicyCancel, answers: map[string]string{"name": "Jo"},
			want:     `{"action":"cancel"}`,
			wantDiag: `mcpv: answered "cancel" (required field "email" has no answer and no default; use --answer email=VALUE)` + "\n"},
		{name: "decline with the required field missing", policy: PolicyDecline, answers: map[string]string{"name": "Jo"},
			want:     `{"action":"decline"}`,
			wantDiag: `mcpv: answered "decline" (required field "email" has no answer and no default; use --answer email=VALUE)` + "\n"},
		{name: "prompt without a terminal declines", policy: PolicyPrompt,
			want:     `{"action":"decline"}`,
			wantDiag: `mcpv: answered "decline" (no terminal to ask on and no answers given)` + "\n"},
		{name: "prompt without a terminal takes complete answers", policy: PolicyPrompt, answers: map[string]string{"email": "jo@example.com"},
			want:     `{"action":"accept","content":{"email":"jo@example.com","name":"John Doe","age":30}}`,
			wantDiag: `mcpv: answered "accept" (filled by default: name, age)` + "\n"},
		{name: "above the maximum", policy: PolicyAccept, answers: map[string]string{"email": "jo@example.com", "age": "150"},
			want: `{"action":"decline"}`,
			wantDiag: `mcpv: field "age" must be at most 120 (got "150"); not sending invalid data` + "\n" +
				`mcpv: answered "decline" (an answer is invalid)` + "\n"},
		{name: "not an integer", policy: PolicyAccept, answers: map[string]string{"email": "jo@example.com", "age": "1.5"},
			want: `{"action":"decline"}`,
			wantDiag: `mcpv: field "age" must be an integer (got "1.5"); not sending invalid data` + "\n" +
				`mcpv: answered "decline" (an answer is invalid)` + "\n"},
		{name: "bad email, even under cancel", policy: PolicyCancel, answers: map[string]string{"email": "jo.example.com"},
			want: `{"action":"decline"}`,
			wantDiag: `mcpv: field "email" must be an email address (name@example.com) (got "jo.example.com"); not sending invalid data` + "\n" +
				`mcpv: answered "decline" (an answer is invalid)` + "\n"},
		{name: "not a choice", policy: PolicyAccept, answers: map[string]string{"email": "jo@example.com", "status": "paused"},
			want: `{"action":"decline"}`,
			wantDiag: `mcpv: field "status" must be one of "on" or "off" (got "paused"); not sending invalid data` + "\n" +
				`mcpv: answered "decline" (an answer is invalid)` + "\n"},
		{name: "pattern", policy: PolicyAccept, answers: map[string]string{"email": "jo@example.com", "code": "abc"},
			want: `{"action":"decline"}`,
			wantDiag: `mcpv: field "code" must match the pattern "^[A-Z]{3}$" (got "abc"); not sending invalid data` + "\n" +
				`mcpv: answered "decline" (an answer is invalid)` + "\n"},
		{name: "too many choices", policy: PolicyAccept, answers: map[string]string{"email": "jo@example.com", "tags": "a,b,c"},
			want: `{"action":"decline"}`,
			wantDiag: `mcpv: field "tags" must have at most 2 choices (got "a,b,c"); not sending invalid data` + "\n" +
				`mcpv: answered "decline" (an answer is invalid)` + "\n"},
		{name: "every invalid field is named, in schema order", policy: PolicyAccept, answers: map[string]string{"email": "x", "age": "-1"},
			want: `{"action":"decline"}`,
			wantDiag: `mcpv: field "email" must be an email address (name@example.com) (got "x"); not sending invalid data` + "\n" +
				`mcpv: field "age" must be at least 0 (got "-1"); not sending invalid data` + "\n" +
				`mcpv: answered "decline" (an answer is invalid)` + "\n"},
		{name: "titles and multi-select", policy: PolicyDecline,
			answers:  map[string]string{"email": "jo@example.com", "status": "Inactive", "tags": "c, a", "name": "0042"},
			want:     `{"action":"accept","content":{"email":"jo@example.com","name":"0042","age":30,"status":"off","tags":["c","a"]}}`,
			wantDiag: `mcpv: answered "accept" (filled by default: age)` + "\n"},
		{name: "typed JSON answers", policy: PolicyDecline,
			answerJSON: map[string]string{"email": `"jo@example.com"`, "age": ` 42 `, "tags": `[ "b" ]`},
			want:       `{"action":"accept","content":{"email":"jo@example.com","name":"John Doe","age":42,"tags":["b"]}}`,
			wantDiag:   `mcpv: answered "accept" (filled by default: name)` + "\n"},
		{name: "typed JSON answers are validated", policy: PolicyDecline,
			answerJSON: map[string]string{"email": `"jo@example.com"`, "age": `"42"`},
			want:       `{"action":"decline"}`,
			wantDiag: `mcpv: field "age" must be an integer (got "42"); not sending invalid data` + "\n" +
				`mcpv: answered "decline" (an answer is invalid)` + "\n"},
		{name: "--answer wins over --answers", policy: PolicyDecline,
			answers:    map[string]string{"email": "cli@example.com"},
			answerJSON: map[string]string{"email": `"file@example.com"`, "age": `1`},
			want:       `{"action":"accept","content":{"email":"cli@example.com","name":"John Doe","age":1}}`,
			wantDiag:   `mcpv: answered "accept" (filled by default: name)` + "\n"},
		{name: "unknown keys are ignored with a warning", policy: PolicyDecline,
			answers:    map[string]string{"email": "jo@example.com", "nick": "jj"},
			answerJSON: map[string]string{"colour": `"red"`},
			want:       `{"action":"accept","content":{"email":"jo@example.com","name":"John Doe","age":30}}`,
			wantDiag: `mcpv: warning: ignoring the answer for "colour": the form has no such field` + "\n" +
				`mcpv: warning: ignoring the answer for "nick": the form has no such field` + "\n" +
				`mcpv: answered "accept" (filled by default: name, age)` + "\n"},
		{name: "answers for another form do not count", policy: PolicyDecline, answers: map[string]string{"nick": "jj"},
			want: `{"action":"decline"}`,
			wantDiag: `mcpv: warning: ignoring the answer for "nick": the form has no such field` + "\n" +
				`mcpv: answered "decline" (policy "decline" and no answers given; use --answer KEY=VALUE, --answers FILE or --elicitation accept)` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &Options{Policy: tt.policy, Answers: tt.answers, ServerName: "srv"}
			if tt.answerJSON != nil {
				o.AnswerJSON = map[string]json.RawMessage{}
				for k, v := range tt.answerJSON {
					o.AnswerJSON[k] = json.RawMessage(v)
				}
			}
			got, diag, err := handle(t, o, profile)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("result\n got %s\nwant %s", got, tt.want)
			}
			if diff := cmp.Diff(asks+tt.wantDiag, diag); diff != "" {
				t.Errorf("diag (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFormEdgeCases(t *testing.T) {
	tests := []struct {
		name, params string
		policy       Policy
		want         string
		wantDiag     string
	}{
		{"an optional-only form is not accepted unasked", `{"message":"Delete?","requestedSchema":{"type":"object","properties":{"sure":{"type":"boolean"}}}}`,
			PolicyDecline, `{"action":"decline"}`,
			"mcpv: the server asks: Delete?\nmcpv: answered \"decline\" (policy \"decline\" and no answers given; use --answer KEY=VALUE, --answers FILE or --elicitation accept)\n"},
		{"an empty form under accept", `{"message":"OK?","requestedSchema":{"type":"object","properties":{}}}`,
			PolicyAccept, `{"action":"accept","content":{}}`,
			"mcpv: the server asks: OK?\nmcpv: answered \"accept\"\n"},
		{"an invalid default is skipped", `{"message":"m","requestedSchema":{"type":"object","properties":{"age":{"type":"integer","maximum":120,"default":200},"n":{"type":"integer","default":"5"}}}}`,
			PolicyAccept, `{"action":"accept","content":{"n":5}}`,
			"mcpv: the server asks: m\nmcpv: warning: field \"age\": the server's default \"200\" must be at most 120; not using it\nmcpv: answered \"accept\" (filled by default: n)\n"},
		{"a pattern Go cannot check", `{"message":"m","requestedSchema":{"type":"object","properties":{"p":{"type":"string","pattern":"(?!x)","default":"x"}}}}`,
			PolicyAccept, `{"action":"accept","content":{"p":"x"}}`,
			"mcpv: the server asks: m\nmcpv: warning: field \"p\": cannot check the pattern \"(?!x)\" (error parsing regexp: invalid or unsupported Perl syntax: `(?!`)\nmcpv: answered \"accept\" (filled by default: p)\n"},
		{"control characters in the message", "{\"message\":\"line1\\nline2\\u001b[31m\\u202e\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}",
			PolicyCancel, `{"action":"cancel"}`,
			"mcpv: the server asks: line1 line2\\x1b[31m\\u202e\nmcpv: answered \"cancel\" (policy \"cancel\" and no answers given; use --answer KEY=VALUE, --answers FILE or --elicitation accept)\n"},
		{"an unknown policy declines", `{"message":"m","requestedSchema":{"type":"object","properties":{}}}`,
			"", `{"action":"decline"}`,
			"mcpv: the server asks: m\nmcpv: answered \"decline\" (policy \"\" and no answers given; use --answer KEY=VALUE, --answers FILE or --elicitation accept)\n"},
		{"mode form, no properties, task ignored", `{"mode":"form","message":"m","task":{"ttl":1000},"requestedSchema":{"type":"object"}}`,
			PolicyAccept, `{"action":"accept","content":{}}`,
			"mcpv: the server asks: m\nmcpv: answered \"accept\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diag, err := handle(t, &Options{Policy: tt.policy}, tt.params)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("result\n got %s\nwant %s", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantDiag, diag); diff != "" {
				t.Errorf("diag (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParamsErrors(t *testing.T) {
	form := func(props string) string {
		return `{"message":"m","requestedSchema":{"type":"object","properties":` + props + `}}`
	}
	tests := []struct{ name, params, want string }{
		{"not an object", `[]`, "elicitation/create: params must be a JSON object"},
		{"null", `null`, "elicitation/create: params must be a JSON object"},
		{"undeclared url mode", `{"mode":"url","message":"m","elicitationId":"1","url":"https://example.com"}`,
			"elicitation/create: mcpv did not declare url-mode elicitation (it needs a terminal to ask on and a browser)"},
		{"unknown mode", `{"mode":"voice","message":"m"}`, `elicitation/create: unsupported mode "voice" (mcpv declared {"form":{}})`},
		{"no schema", `{"message":"m"}`, "elicitation/create: requestedSchema must be a JSON object"},
		{"schema not an object type", `{"message":"m","requestedSchema":{"type":"array"}}`,
			`elicitation/create: requestedSchema must have type "object", not "array"`},
		{"nested object", form(`{"addr":{"type":"object","properties":{}}}`),
			`elicitation/create: requestedSchema property "addr": type "object" is not allowed in an elicitation form (only string, number, integer, boolean and arrays of enum strings)`},
		{"no type", form(`{"x":{"title":"X"}}`), `elicitation/create: requestedSchema property "x": has no type`},
		{"array without choices", form(`{"x":{"type":"array","items":{"type":"string"}}}`),
			`elicitation/create: requestedSchema property "x": an array needs items with enum or anyOf`},
		{"property not an object", form(`{"x":true}`), `elicitation/create: requestedSchema property "x": must be a JSON object`},
		{"required unknown", `{"message":"m","requestedSchema":{"type":"object","properties":{},"required":["x"]}}`,
			`elicitation/create: requestedSchema requires "x", which is not among its properties`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, diag, err := handle(t, &Options{Policy: PolicyAccept}, tt.params)
			var pe *ParamsError
			if !errors.As(err, &pe) {
				t.Fatalf("got %s, %v; want a *ParamsError", got, err)
			}
			if pe.Msg != tt.want {
				t.Errorf("message\n got %s\nwant %s", pe.Msg, tt.want)
			}
			if got != "" || diag != "" {
				t.Errorf("got result %q and diag %q with the error", got, diag)
			}
		})
	}
}
