package otel

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
	"time"
)

// TraceID and SpanID are W3C Trace Context's ids.
type (
	TraceID [16]byte
	SpanID  [8]byte
)

// NewTraceID and NewSpanID are random ids.
func NewTraceID() (t TraceID) { rand.Read(t[:]); return t }
func NewSpanID() (s SpanID)   { rand.Read(s[:]); return s }

func (t TraceID) String() string { return hex.EncodeToString(t[:]) }
func (s SpanID) String() string  { return hex.EncodeToString(s[:]) }

// IsZero says whether s is the zero id, which no span has.
func (s SpanID) IsZero() bool { return s == SpanID{} }

// Context is a span's place in a trace, as traceparent carries it.
type Context struct {
	Trace   TraceID
	Span    SpanID
	Sampled bool
}

// Traceparent is c as the traceparent header writes it (version 00).
func (c Context) Traceparent() string {
	flags := "00"
	if c.Sampled {
		flags = "01"
	}
	return "00-" + c.Trace.String() + "-" + c.Span.String() + "-" + flags
}

// ParseTraceparent reads a traceparent value; ok is false for one that
// is not a valid one of version 00 (or a later version, read as 00
// reads it), whose ids are not all zeros.
func ParseTraceparent(v string) (c Context, ok bool) {
	v = strings.TrimSpace(v)
	parts := strings.Split(v, "-")
	if len(parts) < 4 || len(parts[0]) != 2 || parts[0] == "ff" || (parts[0] == "00" && len(parts) != 4) ||
		len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 {
		return c, false
	}
	if _, err := hex.Decode(c.Trace[:], []byte(parts[1])); err != nil || c.Trace == (TraceID{}) {
		return Context{}, false
	}
	if _, err := hex.Decode(c.Span[:], []byte(parts[2])); err != nil || c.Span.IsZero() {
		return Context{}, false
	}
	var flags [1]byte
	if _, err := hex.Decode(flags[:], []byte(parts[3])); err != nil || strings.ToLower(v) != v {
		return Context{}, false
	}
	c.Sampled = flags[0]&1 == 1
	return c, true
}

// Kinds of span, as OTLP numbers them.
const (
	KindInternal = 1
	KindServer   = 2
	KindClient   = 3
)

// Span is one finished span.
type Span struct {
	Context
	Parent     SpanID
	Name       string
	Kind       int
	Start, End time.Time
	Attrs      []Attr
	// Error, when not "", sets the span's status to ERROR with it as
	// its description.
	Error string
	// Links are other spans this one relates to (a transport's).
	Links []Context
}

// Attr is one attribute: its value a string or an int64 (String, Int).
type Attr struct {
	Key   string
	Value any
}

// String and Int are attributes.
func String(k, v string) Attr    { return Attr{k, v} }
func Int(k string, v int64) Attr { return Attr{k, v} }
