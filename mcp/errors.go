package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safetext"
)

// RPCError is a JSON-RPC error object, as received from the server or sent to it.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
	// Raw, when set, is written for the error instead of the members
	// above: a mock replaying what a server wrote that was no JSON-RPC
	// error object, so that its client fails as the server's did.
	Raw json.RawMessage `json:"-"`
}

// MarshalJSON writes Raw when it is set, else the error's members.
func (e *RPCError) MarshalJSON() ([]byte, error) {
	if e.Raw != nil {
		return e.Raw, nil
	}
	type members RPCError
	return json.Marshal((*members)(e))
}

// UnmarshalJSON reads an error object: its code an integer however it is
// written (-32601, -32601.0, -3.2601e4: JSON has one kind of number, and
// the schema's integer is any of them whose fraction is zero), its message
// a string. What breaks that is said in words, never in Go's types.
func (e *RPCError) UnmarshalJSON(data []byte) error {
	var m struct {
		Code    json.RawMessage `json:"code"`
		Message json.RawMessage `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return errors.New("it is not a JSON object")
	}
	code, err := integer(m.Code)
	if err != nil {
		return fmt.Errorf("its code %s is %v", safetext.Line(safetext.Clip(string(m.Code), 40)), err)
	}
	var msg string
	if m.Message != nil && json.Unmarshal(m.Message, &msg) != nil {
		return fmt.Errorf("its message %s is not a string", safetext.Line(safetext.Clip(string(m.Message), 40)))
	}
	*e = RPCError{Code: code, Message: msg, Data: m.Data}
	return nil
}

// integer reads a JSON number whose value is an integer an int holds; a
// member that is not there reads as 0, as it always has.
func integer(raw json.RawMessage) (int, error) {
	if raw == nil {
		return 0, nil
	}
	var f float64
	if json.Unmarshal(raw, &f) != nil {
		return 0, errors.New("not a number")
	}
	if n, err := strconv.ParseInt(string(raw), 10, 0); err == nil {
		return int(n), nil
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<53 { // past 2^53 a float64 is no exact integer
		return 0, errors.New("not an integer")
	}
	return int(f), nil
}

// Error shows the server's message and data escaped where they hold
// characters a terminal would act on (internal/safetext).
func (e *RPCError) Error() string {
	switch e.Code {
	case CodeMissingRequiredClientCapabilities:
		if caps := requiredCapabilities(e.Data); caps != "" {
			return fmt.Sprintf("server error %d: %s: the server needs client capabilities mcpv did not declare: %s", e.Code, safetext.Line(safetext.Clip(e.Message, maxQuoted)), caps)
		}
	case CodeHeaderMismatch:
		return fmt.Sprintf("server error %d: %s: the server found the request's HTTP headers missing or not matching its body", e.Code, safetext.Line(safetext.Clip(e.Message, maxQuoted)))
	}
	// Folded onto one line as an HTTP error's body is, whatever breaks its
	// lines (U+2028 too): a line of its own would read as mcpv's own
	// ("mcpv: ..."). --errors json keeps the message as the server wrote it.
	msg := strings.Join(strings.Fields(safetext.Clip(e.Message, maxQuoted)), " ")
	s := fmt.Sprintf("server error %d: %s", e.Code, safetext.Line(msg))
	if len(e.Data) > 0 && len(e.Data) <= 500 {
		s += " (data: " + safetext.Line(string(redact.JSON(e.Data))) + ")" // a password it holds is not shown
	}
	return s
}

// CallError says which request the server refused.
type CallError struct {
	Method string
	Err    *RPCError
}

func (e *CallError) Error() string { return e.Method + ": " + e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

// CapabilityError reports that the server did not declare a capability a
// command needs; nothing was sent.
type CapabilityError struct {
	Capability string // dotted path, e.g. "resources.subscribe"
	Method     string
	// Off: the capability is an extension the client itself was told
	// not to declare ("extensions.ID").
	Off bool
}

func (e *CapabilityError) Error() string {
	if e.Off {
		return fmt.Sprintf("the %s extension is turned off for this session, and %s needs it", strings.TrimPrefix(e.Capability, "extensions."), e.Method)
	}
	return fmt.Sprintf("server does not declare the %q capability needed for %s", e.Capability, e.Method)
}

// TransportError means the server could not be started or reached, went away,
// or broke the protocol.
type TransportError struct {
	Op  string // what mcpv was doing, e.g. "start server", "read"; empty when Err says it all
	Err error
	// Hint, if set, is what may be the cause, said before the stderr.
	Hint string
	// StderrTail holds the last lines the server wrote on stderr, if known.
	StderrTail []string
	// Signal is, for a stdio server that ended, the signal that killed
	// it; 0 when it exited.
	Signal syscall.Signal
}

// DecodeResult decodes raw, the result of method, into v: a result that
// does not decode is the server breaking the protocol, a TransportError
// naming method and the start of what was sent (exit 4).
func DecodeResult(method string, raw []byte, v any) error {
	if json.Unmarshal(raw, v) != nil {
		return malformed(method, raw)
	}
	return nil
}

func malformed(method string, raw []byte) error {
	return &TransportError{Op: method, Err: errors.New("malformed result: " + safetext.Line(safetext.Clip(string(raw), 200)))} // one line, whatever its spacing
}

func (e *TransportError) Error() string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Err != nil {
		if e.Op != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	if len(e.StderrTail) > 0 {
		b.WriteString("\nlast lines of the server's stderr:")
		for _, l := range e.StderrTail {
			b.WriteString("\n  | ")
			b.WriteString(safetext.Line(l))
		}
	}
	return b.String()
}

func (e *TransportError) Unwrap() error { return e.Err }

// VersionError means the server answered initialize with a protocol version
// mcpv does not accept, or refused ours listing only versions mcpv does not speak.
type VersionError struct {
	Offered, Answered string
	ServerSupports    []string // when the server refused with an error instead
	Accepted          []string
}

func (e *VersionError) Error() string {
	if e.ServerSupports != nil {
		return fmt.Sprintf("server refused protocol version %q and supports only %s; mcpv accepts %s",
			e.Offered, quotedList(e.ServerSupports), strings.Join(e.Accepted, ", "))
	}
	return fmt.Sprintf("server answered protocol version %s to our %q; mcpv accepts %s",
		strconv.Quote(safetext.Clip(e.Answered, 40)), e.Offered, strings.Join(e.Accepted, ", "))
}

// quotedList shows a list the server sent: its first items, each clipped,
// and the count of the rest.
func quotedList(items []string) string {
	shown := items[:min(len(items), maxListed)]
	parts := make([]string, len(shown))
	for i, v := range shown {
		parts[i] = safetext.Line(safetext.Clip(v, 40))
	}
	list := strings.Join(parts, ", ")
	if more := len(items) - len(shown); more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return list
}

// What a message quotes of the server's is bounded: so many bytes of one
// string, so many items of a list (safetext.Clip, quotedList).
const (
	maxQuoted = 1000
	maxListed = 10
)

// TimeoutError is the cause of a request's context when its timeout expires.
type TimeoutError struct {
	Method  string
	Timeout time.Duration
	Cap     bool // the absolute cap expired, though progress kept coming
	// Connect marks the connect timeout: the server did not get through
	// start-up and the handshake (whichever era's) in time. Setting names
	// what set the timeout; Hint, if set, is what may be the cause.
	Connect       bool
	Setting, Hint string
}

func (e *TimeoutError) Error() string {
	if e.Connect {
		msg := fmt.Sprintf("the server did not answer within %s of its start", e.Timeout)
		if e.Setting != "" {
			msg += " (" + e.Setting + ")"
		}
		if e.Hint != "" {
			msg += "; " + e.Hint
		}
		return msg
	}
	if e.Cap {
		return fmt.Sprintf("%s: not done within the %s cap", e.Method, e.Timeout)
	}
	return fmt.Sprintf("%s: no answer within %s", e.Method, e.Timeout)
}

// AuthError is an HTTP 401 or 403: the server wants credentials mcpv did not
// have. Challenge holds its WWW-Authenticate headers.
type AuthError struct {
	Status    int
	URL       string
	Challenge []string
	Reason    string // the start of the body, already made safe to show; "" if none
}

func (e *AuthError) Error() string {
	what := "requires authorization"
	if e.Status == 403 {
		what = "refused access"
	}
	s := fmt.Sprintf("the server %s (HTTP %d from %s)", what, e.Status, e.URL)
	if len(e.Challenge) == 0 {
		s += " and sent no WWW-Authenticate challenge"
	} else {
		s += "; it asks for: " + safetext.Line(safetext.Clip(strings.Join(e.Challenge, "; "), maxQuoted))
	}
	if e.Reason != "" {
		s += "; it says: " + e.Reason
	}
	return s
}

// StatusError is an HTTP answer with an unexpected status.
type StatusError struct {
	Status int
	Text   string // e.g. "405 Method Not Allowed"
	URL    string
	Detail string // the start of the body, if any, already made safe to show
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %s from %s%s", safetext.Line(e.Text), e.URL, e.Detail)
}

// requiredCapabilities names the capabilities in a -32021 error's
// data.requiredCapabilities, as dotted paths: "elicitation.url, sampling".
func requiredCapabilities(data json.RawMessage) string {
	var d struct {
		Required map[string]json.RawMessage `json:"requiredCapabilities"`
	}
	if json.Unmarshal(data, &d) != nil || len(d.Required) == 0 {
		return ""
	}
	var names []string
	for k, v := range d.Required {
		var sub map[string]json.RawMessage
		if json.Unmarshal(v, &sub) == nil && len(sub) > 0 {
			for sk := range sub {
				names = append(names, k+"."+sk)
			}
			continue
		}
		names = append(names, k)
	}
	slices.Sort(names)
	return safetext.Line(strings.Join(names, ", "))
}
