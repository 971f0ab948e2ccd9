package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpv/mcpv/elicit"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/output"
)

// capabilities builds the ClientCapabilities for this run: only what mcpv
// can serve with the flags it was given
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation).
func (a *app) capabilities() (json.RawMessage, error) {
	f := &a.flags.clientFlags
	var ms []member
	if len(f.Root) > 0 {
		roots, err := rootList(f.Root)
		if err != nil {
			return nil, err
		}
		a.roots = roots
		ms = append(ms, member{"roots", json.RawMessage(`{"listChanged":false}`)})
	}
	if f.SamplingCmd != "" {
		ms = append(ms, member{"sampling", json.RawMessage(`{}`)})
	}
	el, err := a.elicitation()
	if err != nil {
		return nil, err
	}
	a.elicit = el
	ms = append(ms, member{"elicitation", el.Capability()})
	return encodeObject(ms), nil
}

// rootList turns --root paths into the answer to roots/list.
func rootList(paths []string) (json.RawMessage, error) {
	type root struct {
		URI  string `json:"uri"`
		Name string `json:"name"`
	}
	var roots []root
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, usageErrorf("--root %s: %v", p, err)
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, usageErrorf("--root %s: not a directory", p)
		}
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
		roots = append(roots, root{URI: u.String(), Name: filepath.Base(abs)})
	}
	b, err := json.Marshal(struct {
		Roots []root `json:"roots"`
	}{roots})
	return b, err
}

// elicitation prepares the answers to elicitation/create from the flags.
func (a *app) elicitation() (*elicit.Options, error) {
	f := &a.flags.clientFlags
	o := &elicit.Options{Log: output.NewLogger(a.ios.Err), Answers: map[string]string{}, OpenURL: a.openBrowser,
		ServerName: a.serverName(), Advice: elicitAdvice}
	for _, kv := range f.Answer {
		k, v, _ := strings.Cut(kv, "=")
		o.Answers[k] = v
	}
	if f.Answers != "" {
		data, err := os.ReadFile(f.Answers)
		if err != nil {
			return nil, usageErrorf("--answers: %v", err)
		}
		if err := json.Unmarshal(data, &o.AnswerJSON); err != nil {
			return nil, usageErrorf("--answers %s: want a JSON object: %v", f.Answers, err)
		}
	}
	policy := f.Elicitation
	if policy == "" || policy == "prompt" {
		if tty := a.terminal(); tty != nil {
			o.TTY, policy = tty, "prompt"
		} else {
			policy = "decline"
		}
	}
	o.Policy = elicit.Policy(policy)
	return o, nil
}

// elicitAdvice says which flags answer a form that went unanswered.
func elicitAdvice(u elicit.Unanswered) string {
	if len(u.Missing) > 0 {
		return "use --answer " + u.Missing[0] + "=VALUE"
	}
	return "use --answer KEY=VALUE, --answers FILE or --elicitation accept"
}

// terminal opens /dev/tty for questions when stderr is a terminal; nil otherwise.
func (a *app) terminal() elicit.Terminal {
	if !a.ios.ErrTTY {
		return nil
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	a.closers = append(a.closers, f.Close)
	return elicit.NewTerminal(f, f)
}

// serverName names the server in questions to the user.
func (a *app) serverName() string {
	switch t := a.target; {
	case a.flags.Server != "":
		return a.flags.Server
	case t.url != "":
		if parsed, err := url.Parse(t.url); err == nil {
			return parsed.Host
		}
	case len(t.command) > 0:
		return filepath.Base(t.command[0])
	}
	return "?"
}

// serveRequest answers the server's requests: roots, sampling,
// elicitation when declared; everything else is method-not-found.
func (a *app) serveRequest(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	res, err := a.answer(ctx, method, params)
	if err != nil || res == nil {
		return res, err
	}
	return echoRelatedTask(params, res)
}

// echoRelatedTask copies the related-task _meta of a request made for a task
// into the answer (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).
func echoRelatedTask(params, res json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta[mcp.RelatedTaskKey] == nil {
		return res, nil
	}
	return mcp.WithMeta(res, mcp.RelatedTaskKey, p.Meta[mcp.RelatedTaskKey])
}

func (a *app) answer(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	switch {
	case method == "roots/list" && a.roots != nil:
		return a.roots, nil
	case method == "sampling/createMessage" && a.flags.SamplingCmd != "":
		return a.sample(ctx, params)
	case method == "elicitation/create" && a.elicit != nil:
		a.ios.Status.Clear()
		res, err := a.elicit.Handle(ctx, params)
		var pe *elicit.ParamsError
		if errors.As(err, &pe) {
			return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: pe.Error()}
		}
		return res, err
	}
	return nil, mcp.MethodNotFound(method)
}

// sample runs --sampling-cmd with the request's params on stdin and returns
// its stdout, once it is checked to be a CreateMessageResult.
func (a *app) sample(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	cmd := exec.CommandContext(ctx, "sh", "-c", a.flags.SamplingCmd)
	cmd.Stdin = bytes.NewReader(params)
	cmd.Stderr = a.ios.Err
	cmd.WaitDelay = time.Second // a background child must not hold its stdout open for ever
	out, err := cmd.Output()
	fail := func(why string) (json.RawMessage, error) {
		fmt.Fprintf(a.ios.Err, "mcpv: warning: --sampling-cmd %s; the server gets an error\n", why)
		return nil, &mcp.RPCError{Code: mcp.CodeInternalError, Message: "sampling failed: " + why}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return fail(err.Error())
	}
	var res struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Model   *string         `json:"model"`
	}
	out = bytes.TrimSpace(out)
	if err := json.Unmarshal(out, &res); err != nil || !json.Valid(out) {
		return fail(fmt.Sprintf("printed no JSON object (%.100q)", out))
	}
	if res.Role == "" || len(res.Content) == 0 || res.Model == nil {
		return fail("printed JSON without role, content and model (a CreateMessageResult needs them)")
	}
	return out, nil
}
