package mcp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// TestParamHeadersAnnotations: each constraint the transport sets on an
// x-mcp-header annotation, broken once, named with the property; the
// annotations that keep them all read.
func TestParamHeadersAnnotations(t *testing.T) {
	for _, tt := range []struct {
		schema, want, err string
	}{
		{`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer"}}}`, "region=Region", ""},
		{`{"properties":{"a":{"type":"object","properties":{"b":{"type":"boolean","x-mcp-header":"Flag"}}}}}`, "a.b=Flag", ""},
		{`{"properties":{"n":{"type":["integer","null"],"x-mcp-header":"N"},"s":{"type":"string","x-mcp-header":"S-1.~"}}}`, "n=N,s=S-1.~", ""},
		// A property named x-mcp-header, and the name in a value, are no annotation.
		{`{"properties":{"x-mcp-header":{"type":"number","default":{"x-mcp-header":"no"}},"e":{"enum":[{"x-mcp-header":""}]}}}`, "", ""},
		// Escaped, the key is the annotation all the same.
		{`{"properties":{"x":{"type":"number","x-mcp-\u0068eader":"X"}}}`, "", `property "x": x-mcp-header "X" is on a property of type "number": only string, integer and boolean may be mirrored`},
		{`{"type":"object"}`, "", ""},
		// MUST NOT be empty
		{`{"properties":{"x":{"type":"string","x-mcp-header":""}}}`, "", `property "x": x-mcp-header "" is empty`},
		// MUST match HTTP field-name token syntax
		{`{"properties":{"x":{"type":"string","x-mcp-header":"bad name"}}}`, "", `x-mcp-header "bad name" is not an HTTP header name`},
		{`{"properties":{"x":{"type":"string","x-mcp-header":"Region:Primary"}}}`, "", "is not an HTTP header name"},
		{`{"properties":{"x":{"type":"string","x-mcp-header":"Région"}}}`, "", "is not an HTTP header name"},
		{`{"properties":{"x":{"type":"string","x-mcp-header":7}}}`, "", `x-mcp-header 7 is not a string`},
		// MUST NOT contain control characters
		{`{"properties":{"x":{"type":"string","x-mcp-header":"Region\r\nX-Evil: 1"}}}`, "", `x-mcp-header "Region\r\nX-Evil: 1" holds a control character`},
		{`{"properties":{"x":{"type":"string","x-mcp-header":"Region\t1"}}}`, "", "holds a control character"},
		// MUST be case-insensitively unique
		{`{"properties":{"x":{"type":"string","x-mcp-header":"R"},"y":{"type":"string","x-mcp-header":"r"}}}`, "", `property "y": x-mcp-header "r" repeats the header name of property "x"`},
		{`{"properties":{"x":{"type":"string","x-mcp-header":"R"},"o":{"type":"object","properties":{"y":{"type":"string","x-mcp-header":"R"}}}}}`, "", `property "o.y": x-mcp-header "R" repeats`},
		// MUST only be applied to parameters with primitive types
		{`{"properties":{"x":{"type":"number","x-mcp-header":"X"}}}`, "", `property "x": x-mcp-header "X" is on a property of type "number"`},
		{`{"properties":{"x":{"type":"object","x-mcp-header":"X"}}}`, "", `of type "object"`},
		{`{"properties":{"x":{"type":"array","items":{"type":"string"},"x-mcp-header":"X"}}}`, "", `of type "array"`},
		{`{"properties":{"x":{"type":"null","x-mcp-header":"X"}}}`, "", `of type "null"`},
		{`{"properties":{"x":{"type":["string","integer"],"x-mcp-header":"X"}}}`, "", `of type ["string" "integer"]`},
		{`{"properties":{"x":{"$ref":"#/$defs/s","x-mcp-header":"X"}},"$defs":{"s":{"type":"string"}}}`, "", `property "x": x-mcp-header "X" is on a property with no type`},
		// MUST only be applied to properties statically reachable from the root
		{`{"properties":{"tags":{"type":"array","items":{"type":"string","x-mcp-header":"Tag"}}}}`, "", `property "tags": x-mcp-header "Tag" is under items`},
		{`{"anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`, "", `property "a": x-mcp-header "A" is under anyOf`},
		{`{"properties":{"a":{"oneOf":[{"type":"string","x-mcp-header":"A"}]}}}`, "", "is under oneOf"},
		{`{"if":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}`, "", "is under if"},
		{`{"$defs":{"r":{"type":"string","x-mcp-header":"R"}},"properties":{"r":{"$ref":"#/$defs/r"}}}`, "", "is under $defs"},
		{`{"additionalProperties":{"type":"string","x-mcp-header":"A"}}`, "", "the schema's root: x-mcp-header \"A\" is under additionalProperties"},
		{`{"type":"object","x-mcp-header":"Root"}`, "", `the schema's root: x-mcp-header "Root" is not on a property`},
	} {
		got, err := ParamHeaders(json.RawMessage(tt.schema))
		var names []string
		for _, h := range got {
			names = append(names, strings.Join(h.path, ".")+"="+h.name)
		}
		if tt.err != "" {
			var pe *ParamHeaderError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.schema, err, tt.err)
			}
			continue
		}
		if err != nil || strings.Join(names, ",") != tt.want {
			t.Errorf("%s: %v, %v; want %s", tt.schema, names, err, tt.want)
		}
	}
}

// Every annotation that breaks a constraint is named, in the schema's
// order; the ones that keep them are read.
func TestParamHeaderProblemsAll(t *testing.T) {
	schema := json.RawMessage(`{"properties":{"a":{"type":"number","x-mcp-header":"A"},"b":{"type":"string","x-mcp-header":"B"},` +
		`"c":{"type":"string","x-mcp-header":"b"},"d":{"type":"array","items":{"type":"string","x-mcp-header":"D"}}}}`)
	var got []string
	for _, p := range ParamHeaderProblems(schema) {
		got = append(got, p.Property+" "+p.Header)
	}
	if want := []string{`a "A"`, `c "b"`, `d "D"`}; !cmp.Equal(got, want) {
		t.Errorf("problems %q, want %q", got, want)
	}
	if headers, _ := ParamHeaders(schema); len(headers) != 1 || headers[0].name != "B" {
		t.Errorf("headers %v, want B alone", headers)
	}
}

// A modern tools/call over HTTP carries Mcp-Method, Mcp-Name and an
// Mcp-Param header for each annotated argument present.
func TestParamHeadersOnTheWire(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: answerTo("tools/call", func(x *mcptest.Exchange) {
		x.Reply(x.Result(`{"content":[]}`))
	})})
	tr := newHTTPTransport(t, HTTPOptions{URL: srv.URL})
	defer tr.Close(testCtx(t))
	tr.SetProtocolVersion(ModernVersion)
	headers, err := ParamHeaders(json.RawMessage(`{"properties":{"region":{"type":"string","x-mcp-header":"Region"},` +
		`"dry":{"type":"boolean","x-mcp-header":"Dry"},"n":{"type":"integer","x-mcp-header":"N"},"big":{"type":"integer","x-mcp-header":"Big"},` +
		`"none":{"type":"string","x-mcp-header":"None"},"gone":{"type":"string","x-mcp-header":"Gone"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	msg := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":{"region":"eu west ","dry":true,"n":42,"big":9007199254740993,"none":null}}}`
	if err := tr.Write(WithParamHeaders(testCtx(t), headers), []byte(msg)); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Read(); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	got := map[string]string{}
	for k := range h {
		if strings.HasPrefix(k, "Mcp-") {
			got[k] = h.Get(k)
		}
	}
	want := map[string]string{
		"Mcp-Method": "tools/call", "Mcp-Name": "deploy", "Mcp-Protocol-Version": ModernVersion,
		"Mcp-Param-Region": "=?base64?ZXUgd2VzdCA=?=", "Mcp-Param-Dry": "true", "Mcp-Param-N": "42",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("headers (-want +got):\n%s", d)
	}
}

// FuzzParamHeaders: whatever schema a server lists, reading its
// annotations ends without a panic, each problem is one line, and every
// header read is a token whose name no other repeats.
func FuzzParamHeaders(f *testing.F) {
	for _, s := range []string{
		`{"properties":{"a":{"type":"string","x-mcp-header":"A"},"b":{"type":"number","x-mcp-header":"a"}}}`,
		`{"anyOf":[{"properties":{"a":{"x-mcp-header":"A"}}}],"items":[{"x-mcp-header":""}]}`,
		`{"properties":{"x":{"type":["integer","null"],"x-mcp-\u0068eader":"X\r\n"}}}`,
		`{"x-mcp-header":{"x-mcp-header":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		headers, _ := ParamHeaders(b)
		for _, p := range ParamHeaderProblems(b) {
			if strings.ContainsAny(p.Error(), "\r\n\x1b") {
				t.Fatalf("problem on more than one line: %q", p.Error())
			}
		}
		seen := map[string]bool{}
		for _, h := range headers {
			if !isToken(h.name) || seen[strings.ToLower(h.name)] {
				t.Fatalf("header %q read", h.name)
			}
			seen[strings.ToLower(h.name)] = true
		}
	})
}

// A schema nested past maxHeaderDepth is not read further (each level
// costs a read of what it holds): one that holds an annotation down there
// is refused, saying why; one that holds none is kept.
func TestParamHeadersDeep(t *testing.T) {
	deep := func(n int, leaf string) []byte {
		return []byte(strings.Repeat(`{"properties":{"a":`, n) + leaf + strings.Repeat(`}}`, n))
	}
	if h, err := ParamHeaders(deep(maxHeaderDepth, `{"type":"string","x-mcp-header":"A"}`)); err != nil || len(h) != 1 {
		t.Errorf("%d deep: %v, %v", maxHeaderDepth, h, err)
	}
	_, err := ParamHeaders(deep(9000, `{"type":"string","x-mcp-header":"A"}`))
	if err == nil || !strings.Contains(err.Error(), "nests deeper than 64 levels") || len(err.Error()) > 400 {
		t.Errorf("9000 deep: %v", err)
	}
	if h, err := ParamHeaders(deep(9000, `{"type":"string","description":"caf\u00e9"}`)); err != nil || h != nil {
		t.Errorf("9000 deep, no annotation: %v, %v", h, err)
	}
}
