package connect

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/elicit"
	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/mcp"
)

// answerer answers the server's requests: roots/list from --root,
// sampling/createMessage through --sampling-cmd, elicitation/create from
// the answers, the policy or the terminal. It declares exactly those
// capabilities
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation).
type answerer struct {
	roots    json.RawMessage // the answer to roots/list; nil without --root
	sampling string          // --sampling-cmd
	dir      string          // where it runs
	elicit   *elicit.Options
	hooks    Hooks
}

func newAnswerer(s *Settings, env Env, h Hooks) (*answerer, error) {
	a := &answerer{sampling: s.Answers.SamplingCmd, dir: cmp.Or(s.Answers.SamplingDir, env.Cwd), hooks: h}
	var err error
	if len(s.Answers.Roots) > 0 {
		if a.roots, err = rootList(s.Answers.Roots, env); err != nil {
			return nil, err
		}
	}
	if a.elicit, err = elicitation(s, env, h); err != nil {
		return nil, err
	}
	return a, nil
}

// capabilities is the ClientCapabilities object for initialize.
func (a *answerer) capabilities() json.RawMessage {
	if a.hooks.Capabilities != nil {
		return a.hooks.Capabilities
	}
	var b bytes.Buffer
	b.WriteByte('{')
	if a.roots != nil {
		b.WriteString(`"roots":{"listChanged":false},`)
	}
	if a.sampling != "" {
		b.WriteString(`"sampling":{},`)
	}
	b.WriteString(`"elicitation":`)
	b.Write(a.elicit.Capability())
	b.WriteByte('}')
	return b.Bytes()
}

// rootList turns --root paths into the answer to roots/list.
func rootList(paths []string, env Env) (json.RawMessage, error) {
	type root struct {
		URI  string `json:"uri"`
		Name string `json:"name"`
	}
	var roots []root
	for _, p := range paths {
		abs := env.Path(p)
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, errkind.Usagef("--root %s: not a directory", p)
		}
		roots = append(roots, root{URI: fileURI(filepath.Clean(abs), env.GOOS), Name: filepath.Base(abs)})
	}
	return json.Marshal(struct {
		Roots []root `json:"roots"`
	}{roots})
}

// fileURI is the file: URI of an absolute, clean path: file:///home/me,
// and on Windows file:///C:/tools for C:\tools and file://server/share for
// \\server\share (RFC 8089).
func fileURI(path, goos string) string {
	u := url.URL{Scheme: "file", Path: path}
	if goos == "windows" {
		p := strings.ReplaceAll(path, `\`, "/")
		if host, rest, unc := strings.Cut(strings.TrimPrefix(p, "//"), "/"); strings.HasPrefix(p, "//") && unc {
			u.Host, u.Path = host, "/"+rest
		} else {
			u.Path = "/" + strings.TrimPrefix(p, "/")
		}
	}
	return u.String()
}

// elicitation prepares the answers to elicitation/create.
func elicitation(s *Settings, env Env, h Hooks) (*elicit.Options, error) {
	o := &elicit.Options{Log: h.Log, Answers: map[string]string{}, OpenURL: h.OpenURL, ServerName: s.Name, Advice: ElicitAdvice}
	for _, kv := range s.Answers.Answer {
		k, v, _ := strings.Cut(kv, "=")
		o.Answers[k] = v
	}
	if f := s.Answers.AnswersFile; f != "" {
		data, err := env.readFile(env.Path(f))
		if err != nil {
			return nil, errkind.Usagef("--answers: %v", err)
		}
		if err := json.Unmarshal(data, &o.AnswerJSON); err != nil {
			return nil, errkind.Usagef("--answers %s: want a JSON object: %v", f, err)
		}
	}
	policy := s.Answers.Elicitation
	if policy == "" || policy == "prompt" {
		policy = "decline"
		if h.Terminal != nil {
			if o.TTY = h.Terminal(); o.TTY != nil {
				policy = "prompt"
			}
		}
	}
	o.Policy = elicit.Policy(policy)
	return o, nil
}

// ElicitAdvice says which flags answer a form that went unanswered.
func ElicitAdvice(u elicit.Unanswered) string {
	if len(u.Missing) > 0 {
		return "use --answer " + u.Missing[0] + "=VALUE"
	}
	return "use --answer KEY=VALUE, --answers FILE or --elicitation accept"
}

// serve answers one server request; everything not declared is
// method-not-found.
// handler answers the server's requests: the Route hook first, if any.
func (a *answerer) handler() mcp.RequestHandler {
	if a.hooks.Route == nil {
		return a.serve
	}
	return func(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
		if res, handled, err := a.hooks.Route(ctx, method, params); handled {
			return res, err
		}
		return a.serve(ctx, method, params)
	}
}

func (a *answerer) serve(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	res, err := a.answer(ctx, method, params)
	if err != nil || res == nil {
		return res, err
	}
	return echoRelatedTask(params, res)
}

// echoRelatedTask copies the related-task _meta of a request made for a
// task into the answer
// (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks).
func echoRelatedTask(params, res json.RawMessage) (json.RawMessage, error) {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta[mcp.RelatedTaskKey] == nil {
		return res, nil
	}
	return mcp.WithMeta(res, mcp.RelatedTaskKey, p.Meta[mcp.RelatedTaskKey])
}

func (a *answerer) answer(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	switch {
	case method == "roots/list" && a.roots != nil:
		return a.roots, nil
	case method == "sampling/createMessage" && a.sampling != "":
		return a.sample(ctx, params)
	case method == "elicitation/create" && a.elicit != nil:
		if a.hooks.Status != nil {
			a.hooks.Status.Clear()
		}
		handle := a.elicit.Handle
		if mcp.IsInputRequest(ctx) {
			handle = a.elicit.HandleInput
		}
		res, err := handle(ctx, params)
		if pe, ok := errors.AsType[*elicit.ParamsError](err); ok {
			return nil, &mcp.RPCError{Code: mcp.CodeInvalidParams, Message: pe.Error()}
		}
		return res, err
	}
	return nil, mcp.MethodNotFound(method)
}

// sample runs --sampling-cmd with the request's params on stdin and returns
// its stdout, once it is checked to be a CreateMessageResult.
func (a *answerer) sample(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	cmd := shellCommand(ctx, a.sampling)
	cmd.Dir = a.dir
	cmd.Stdin = bytes.NewReader(params)
	cmd.Stderr = a.hooks.Stderr
	cmd.WaitDelay = time.Second // a background child must not hold its stdout open for ever
	out, err := cmd.Output()
	fail := func(why string) (json.RawMessage, error) {
		a.hooks.Log.Warn(fmt.Sprintf("--sampling-cmd %s; the server gets an error", why))
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
