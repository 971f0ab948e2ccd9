package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

func TestParamHeadersAnnotations(t *testing.T) {
	for _, tt := range []struct {
		schema, want, err string
	}{
		{`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer"}}}`, "region=Region", ""},
		{`{"properties":{"a":{"type":"object","properties":{"b":{"type":"boolean","x-mcp-header":"Flag"}}}}}`, "a.b=Flag", ""},
		{`{"properties":{"x":{"type":"number","x-mcp-header":"X"}}}`, "", `property "x": x-mcp-header on a property of type "number"`},
		{`{"properties":{"x":{"type":"string","x-mcp-header":"bad name"}}}`, "", `x-mcp-header "bad name" is not a header name`},
		{`{"properties":{"x":{"type":"string","x-mcp-header":""}}}`, "", "is not a header name"},
		{`{"properties":{"x":{"type":"string","x-mcp-header":"R"},"y":{"type":"string","x-mcp-header":"r"}}}`, "", `x-mcp-header "r" is used twice`},
		{`{"type":"object"}`, "", ""},
	} {
		got, err := ParamHeaders(json.RawMessage(tt.schema))
		var names []string
		for _, h := range got {
			names = append(names, strings.Join(h.path, ".")+"="+h.name)
		}
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.schema, err, tt.err)
			}
			continue
		}
		if err != nil || strings.Join(names, ",") != tt.want {
			t.Errorf("%s: %v, %v; want %s", tt.schema, names, err, tt.want)
		}
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
