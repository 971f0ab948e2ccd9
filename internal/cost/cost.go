// Package cost counts what a server's surface costs a model: the tokens
// of each tool, prompt and resource template and of the instructions, as
// the text a host sends, under a named tokenizer.
//
// A tool reaches a model as a function-calling definition. Two forms are
// documented by the providers that publish them:
//
//   - OpenAI's Chat Completions "tools": {"type":"function","function":
//     {"name","description","parameters"}}, parameters the tool's
//     inputSchema;
//   - Anthropic's Messages "tools": {"name","description","input_schema"}.
//
// "mcp" counts the tool as the server listed it (title, annotations,
// outputSchema, _meta and all), which no host sends whole but a host that
// puts the listing in its context does. Prompts and resource templates
// are counted as their listing's name, title, description and arguments
// (or uriTemplate and mimeType); the instructions as their text, as a
// host puts them in its system prompt.
package cost

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/table"
)

// Forms are the shapes a tool can be counted in (--as).
var Forms = []string{"openai", "anthropic", "mcp"}

// Kinds of item.
const (
	Tool         = "tool"
	Prompt       = "prompt"
	Template     = "resource-template"
	Instructions = "instructions"
)

// Item is one thing a server shows a model and what it costs.
type Item struct {
	Server string `json:"server,omitempty"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	// Description is the tokens of its description alone (of the text,
	// for the instructions).
	Description int `json:"description"`
}

// Counter counts items with one encoding, in one form.
type Counter struct {
	Encoding *Encoding
	As       string
	buf      bytes.Buffer
	// desc is where in buf the last tool's description stands as a
	// string literal (0, 0: nowhere), so that it is counted there rather
	// than decoded again.
	desc [2]int
}

// Server counts every item of s: its tools, prompts, resource templates
// and instructions, in that order. Items carry server as their Server.
func (c *Counter) Server(server string, s surface.Server) ([]Item, error) {
	var items []Item
	add := func(kind string, raws []json.RawMessage) error {
		for _, raw := range raws {
			it, err := c.item(kind, raw)
			if err != nil {
				return err
			}
			it.Server = server
			items = append(items, it)
		}
		return nil
	}
	for _, l := range []struct {
		kind string
		raws []json.RawMessage
	}{{Tool, s.Tools}, {Prompt, s.Prompts}, {Template, s.ResourceTemplates}} {
		if err := add(l.kind, l.raws); err != nil {
			return nil, err
		}
	}
	if s.Instructions != nil && *s.Instructions != "" {
		n, err := c.Encoding.Count(*s.Instructions)
		if err != nil {
			return nil, err
		}
		items = append(items, Item{Server: server, Kind: Instructions, Name: "instructions", Tokens: n, Description: n})
	}
	return items, nil
}

// Text is the text an item of kind (Tool, Prompt or Template) is counted
// on; it is the counter's until its next call.
func (c *Counter) Text(kind string, raw json.RawMessage) ([]byte, error) {
	switch kind {
	case Tool:
		return c.tool(raw)
	case Prompt:
		return c.listed(raw, "name", "title", "description", "arguments")
	}
	return c.listed(raw, "uriTemplate", "name", "title", "description", "mimeType")
}

func (c *Counter) item(kind string, raw json.RawMessage) (Item, error) {
	it := Item{Kind: kind, Name: str(raw, "name")}
	if kind == Template && it.Name == "" {
		it.Name = str(raw, "uriTemplate")
	}
	b, err := c.Text(kind, raw)
	if err != nil {
		return it, fmt.Errorf("%s %q: %w", kind, it.Name, err)
	}
	// Counted in place: Count keeps nothing of its text, and the buffer
	// is the counter's until its next call.
	if it.Tokens, err = c.Encoding.Count(unsafe.String(unsafe.SliceData(b), len(b))); err != nil {
		return it, err
	}
	it.Description, err = c.Encoding.Count(c.description(raw))
	return it, err
}

// description is the text of raw's description, for Count, which keeps
// nothing of it: where it can be, the bytes of the literal the counter's
// buffer holds (decoded there: the buffer has been counted), or raw's
// own, so that a description of megabytes is not copied to be counted.
func (c *Counter) description(raw json.RawMessage) string {
	if s, e := c.desc[0], c.desc[1]; e > s {
		d := rawjson.UnquoteInPlace(c.buf.Bytes()[s:e])
		c.desc = [2]int{}
		return unsafe.String(unsafe.SliceData(d), len(d))
	}
	if lit := rawjson.Member(raw, "description"); literal(lit) {
		if _, escapes, nonASCII := rawjson.ScanString(lit, 0); !escapes && (!nonASCII || utf8.Valid(lit)) {
			body := lit[1 : len(lit)-1]
			return unsafe.String(unsafe.SliceData(body), len(body))
		}
	}
	return str(raw, "description")
}

// literal reports whether v (a member's value) is one string literal.
func literal(v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	end, _, _ := rawjson.ScanString(v, 0)
	return end == len(v)
}

// str is the string member key of obj, or "": as JSON decoders read it,
// a byte that is not UTF-8 read as U+FFFD.
func str(obj json.RawMessage, key string) string {
	raw := rawjson.Member(obj, key)
	s, err := rawjson.String(raw)
	if err != nil {
		rawjson.DecodeLoose(raw, &s) // a string of bytes not UTF-8, read as U+FFFD; a value of another type is no text to count
	}
	return s
}

// tool is the text of a tool in the counter's form.
func (c *Counter) tool(raw json.RawMessage) ([]byte, error) {
	if c.As == "mcp" {
		return c.compact(raw)
	}
	schema := rawjson.Member(raw, "inputSchema")
	if schema == nil {
		schema = []byte(`{"type":"object"}`)
	}
	c.reset(raw)
	o := &object{c: c}
	if c.As == "openai" {
		o.buf().WriteString(`{"type":"function","function":`)
	}
	o.open()
	o.key("name")
	o.quote(str(raw, "name"))
	if d := rawjson.Member(raw, "description"); d != nil {
		o.key("description")
		start := o.buf().Len()
		if literal(d) && rawjson.Encoded(d) {
			o.buf().Write(d) // as quote would write it: no copy of the text made to write it
		} else {
			o.quote(str(raw, "description"))
		}
		c.desc = [2]int{start, o.buf().Len()}
	}
	key := "input_schema"
	if c.As == "openai" {
		key = "parameters"
	}
	o.raw(key, schema)
	o.close()
	if c.As == "openai" {
		o.buf().WriteByte('}')
	}
	return o.buf().Bytes(), o.err
}

// listed is the text of a listing entry: the members keys, those it has,
// in that order.
func (c *Counter) listed(raw json.RawMessage, keys ...string) ([]byte, error) {
	if c.As == "mcp" {
		return c.compact(raw)
	}
	c.reset(raw)
	o := &object{c: c}
	o.open()
	for _, k := range keys {
		if v := rawjson.Member(raw, k); v != nil {
			o.raw(k, v)
		}
	}
	o.close()
	return o.buf().Bytes(), o.err
}

// reset empties the counter's buffer, grown at once to hold raw's text
// (which its form never makes much longer): no copy on the way up.
func (c *Counter) reset(raw json.RawMessage) {
	c.buf.Reset()
	c.desc = [2]int{}
	c.buf.Grow(len(raw) + 64)
}

func (c *Counter) compact(raw json.RawMessage) ([]byte, error) {
	c.reset(raw)
	err := rawjson.WriteCompact(&c.buf, raw)
	return c.buf.Bytes(), err
}

// object writes a JSON object into the counter's buffer.
type object struct {
	c     *Counter
	first bool
	err   error
}

func (o *object) buf() *bytes.Buffer { return &o.c.buf }

func (o *object) open() {
	o.buf().WriteByte('{')
	o.first = true
}

func (o *object) close() { o.buf().WriteByte('}') }

func (o *object) key(k string) {
	if !o.first {
		o.buf().WriteByte(',')
	}
	o.first = false
	o.quote(k)
	o.buf().WriteByte(':')
}

// quote writes s as JSON.stringify writes it: UTF-8 as is, only what
// must be escaped escaped. A long s is encoded a run at a time (cut
// between characters, which encode one by one), into a buffer of the
// run's size: the encoder's own buffer would hold the whole of it twice.
func (o *object) quote(s string) {
	var run bytes.Buffer
	enc := json.NewEncoder(&run)
	enc.SetEscapeHTML(false)
	o.buf().WriteByte('"')
	for len(s) > 0 {
		n := min(len(s), quoteRun)
		for n < len(s) && !utf8.RuneStart(s[n]) {
			n++
		}
		run.Reset()
		if err := enc.Encode(s[:n]); err != nil && o.err == nil {
			o.err = err
		}
		o.buf().Write(run.Bytes()[1 : run.Len()-2]) // without the quotes and Encode's newline
		s = s[n:]
	}
	o.buf().WriteByte('"')
}

// quoteRun is how much of a string quote encodes at a time.
const quoteRun = 64 << 10

func (o *object) raw(k string, v []byte) {
	o.key(k)
	if err := rawjson.WriteCompact(o.buf(), v); err != nil && o.err == nil {
		o.err = err
	}
}

// Report is what cost prints: the tokenizer and form, the total, each
// server's total when there are several, and every item.
type Report struct {
	Tokenizer string        `json:"tokenizer"`
	As        string        `json:"as"`
	Total     int           `json:"total"`
	Servers   []ServerTotal `json:"servers,omitempty"`
	Items     []Item        `json:"items"`
}

// ServerTotal is one server's share of a report.
type ServerTotal struct {
	Name  string `json:"name"`
	Total int    `json:"total"`
	Items int    `json:"items"`
}

// NewReport totals items; with servers true, each server's too, in the
// order they first appear.
func NewReport(tokenizer, as string, items []Item, servers bool) Report {
	r := Report{Tokenizer: tokenizer, As: as, Items: items}
	if r.Items == nil {
		r.Items = []Item{}
	}
	for _, it := range items {
		r.Total += it.Tokens
		if !servers {
			continue
		}
		i := slices.IndexFunc(r.Servers, func(s ServerTotal) bool { return s.Name == it.Server })
		if i < 0 {
			r.Servers = append(r.Servers, ServerTotal{Name: it.Server})
			i = len(r.Servers) - 1
		}
		r.Servers[i].Total += it.Tokens
		r.Servers[i].Items++
	}
	return r
}

// ByCost is items, the costliest first (then by kind and name).
func ByCost(items []Item) []Item {
	s := slices.Clone(items)
	slices.SortStableFunc(s, func(a, b Item) int {
		return cmp.Or(cmp.Compare(b.Tokens, a.Tokens), cmp.Compare(a.Server, b.Server), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Name, b.Name))
	})
	return s
}

// Summary is the report in one line.
func (r Report) Summary() string {
	counts := map[string]int{}
	for _, it := range r.Items {
		counts[it.Kind]++
	}
	line := fmt.Sprintf("%d tokens (%s, as %s): %s, %s, %s", r.Total, r.Tokenizer, r.As,
		plural(counts[Tool], "tool"), plural(counts[Prompt], "prompt"), plural(counts[Template], "resource template"))
	if counts[Instructions] > 0 {
		line += ", instructions"
	}
	if len(r.Servers) > 1 {
		line += fmt.Sprintf(" on %d servers", len(r.Servers))
	}
	return line
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// ByPrefix gives each item of a gateway's listing named PREFIX+sep+NAME
// to the server PREFIX (mcpv serve's gateway names each server's tools
// and prompts so, and no prefix holds sep), and the rest (the gateway's
// instructions, what it lists unprefixed) to the gateway, "".
func ByPrefix(items []Item, sep string) {
	for i, it := range items {
		it.Server = ""
		if prefix, _, ok := strings.Cut(it.Name, sep); ok && it.Kind != Instructions && it.Kind != Template {
			it.Server = prefix
		}
		items[i] = it
	}
}

// Table is the report for people: a row per item, the costliest first,
// with its share of the total.
func (r Report) Table() *table.Table {
	cols := []table.Column{{Title: "tokens"}, {Title: "share"}, {Title: "kind"}, {Title: "name"}}
	if len(r.Servers) > 0 {
		cols = slices.Insert(cols, 2, table.Column{Title: "server"})
	}
	t := table.New(cols...)
	for _, it := range ByCost(r.Items) {
		share := "-"
		if r.Total > 0 {
			share = fmt.Sprintf("%.1f%%", 100*float64(it.Tokens)/float64(r.Total))
		}
		cells := []string{strconv.Itoa(it.Tokens), share, it.Kind, it.Name}
		if len(r.Servers) > 0 {
			cells = slices.Insert(cells, 2, it.Server)
		}
		t.Add(cells...)
	}
	return t
}
