package elicit

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
)

// Policy says what to do with a request when no answer is given.
type Policy string

// The policies; the caller picks the default: PolicyPrompt on a terminal,
// PolicyDecline otherwise.
const (
	PolicyPrompt  Policy = "prompt"  // ask on the terminal
	PolicyAccept  Policy = "accept"  // take the defaults, ask nothing
	PolicyDecline Policy = "decline" // answer decline
	PolicyCancel  Policy = "cancel"  // answer cancel
)

// Options says how mcpv answers elicitation/create requests. The zero value
// declines every form; any other Policy than the four is treated as decline.
type Options struct {
	Answers    map[string]string          // from --answer KEY=VALUE; text, typed by the schema
	AnswerJSON map[string]json.RawMessage // from --answers FILE (a JSON object); typed already, validated by the schema
	Policy     Policy                     // what to do with what the answers leave open
	TTY        Terminal                   // nil when there is no terminal; prompting is then impossible
	Log        *slog.Logger               // which server asks, URLs, warnings, what mcpv answered; nil discards
	ServerName string                     // shown when asking
	OpenURL    func(url string) error     // opens a URL in the browser; nil means cannot open
	// Advice, when set, says how the user could answer a form that went
	// unanswered; it is added to the report of the answer.
	Advice func(Unanswered) string
}

// Unanswered describes a form answered without the user's answers, for Advice.
type Unanswered struct {
	// Missing are the required fields that had no answer and no default;
	// empty when no answers were given at all.
	Missing []string
}

// ParamsError is a request mcpv cannot serve as sent: malformed params, a
// schema outside the elicitation subset, or a mode mcpv did not declare. The
// caller answers it with JSON-RPC error -32602 and Msg as the message.
type ParamsError struct{ Msg string }

func (e *ParamsError) Error() string { return e.Msg }

func paramsErrorf(format string, a ...any) error {
	return &ParamsError{Msg: fmt.Sprintf(format, a...)}
}

// Capability reports the elicitation capability object mcpv should declare:
// {"form":{}} always, plus "url":{} when there is a terminal to ask for
// consent, OpenURL is set and Policy is prompt.
func (o *Options) Capability() json.RawMessage {
	if o.urlMode() {
		return json.RawMessage(`{"form":{},"url":{}}`)
	}
	return json.RawMessage(`{"form":{}}`)
}

func (o *Options) urlMode() bool {
	return o.TTY != nil && o.OpenURL != nil && o.Policy == PolicyPrompt
}

// Handle answers one elicitation/create request (params as raw JSON) and
// returns the ElicitResult JSON. A *ParamsError means the request is invalid
// params (-32602); ctx.Err() means ctx ended while the user was being asked and
// nothing should be sent. The package comment has the rules.
func (o *Options) Handle(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	return o.handle(ctx, params, true)
}

// HandleInput answers an elicitation that a server of MCP 2026-07-28 asks
// for as an input request: the same, but a URL elicitation there carries no
// elicitationId.
func (o *Options) HandleInput(ctx context.Context, params json.RawMessage) (json.RawMessage, error) {
	return o.handle(ctx, params, false)
}

func (o *Options) handle(ctx context.Context, params json.RawMessage, needID bool) (json.RawMessage, error) {
	var head struct {
		Mode *string `json:"mode"`
	}
	if err := json.Unmarshal(params, &head); err != nil || !rawjson.IsObject(params) {
		return nil, paramsErrorf("elicitation/create: params must be a JSON object")
	}
	mode := "form"
	if head.Mode != nil {
		mode = *head.Mode
	}
	switch mode {
	case "form":
		f, err := parseForm(params)
		if err != nil {
			return nil, err
		}
		return o.handleForm(ctx, f)
	case "url":
		if !o.urlMode() {
			return nil, paramsErrorf("elicitation/create: mcpv did not declare url-mode elicitation (it needs a terminal to ask on and a browser)")
		}
		var p urlParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, paramsErrorf("elicitation/create: %v", err)
		}
		if needID && p.ElicitationID == "" {
			return nil, paramsErrorf("elicitation/create: url mode needs an elicitationId")
		}
		return o.handleURL(ctx, p)
	}
	return nil, paramsErrorf("elicitation/create: unsupported mode %q (mcpv declared %s)", mode, o.Capability())
}

// Actions of an ElicitResult.
const (
	actAccept  = "accept"
	actDecline = "decline"
	actCancel  = "cancel"
)

func (o *Options) log() *slog.Logger { return cmp.Or(o.Log, slog.New(slog.DiscardHandler)) }

// notef reports what happens to the user.
func (o *Options) notef(format string, a ...any) { o.log().Info(fmt.Sprintf(format, a...)) }

// warnf reports something the user should look at.
func (o *Options) warnf(format string, a ...any) { o.log().Warn(fmt.Sprintf(format, a...)) }

// advice is Advice's text for u, if any.
func (o *Options) advice(u Unanswered) string {
	if o.Advice == nil {
		return ""
	}
	if a := o.Advice(u); a != "" {
		return "; " + a
	}
	return ""
}

// asker names who asks: `server "NAME"` or "the server".
func (o *Options) asker() string {
	if o.ServerName == "" {
		return "the server"
	}
	return fmt.Sprintf("server %q", safetext.Prose(o.ServerName))
}

// answered reports the outcome, `answered "decline" (why)`, and returns
// the ElicitResult of an action without content.
func (o *Options) answered(action, why string) json.RawMessage {
	if why != "" {
		why = " (" + why + ")"
	}
	o.notef("answered %q%s", action, why)
	return json.RawMessage(`{"action":"` + action + `"}`)
}
