package stringargs

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/mcp"
	"github.com/mcpv/mcpv/mcp/mcptest/pipeclient"
)

func TestParseAndObject(t *testing.T) {
	t.Parallel()
	ms, err := Parse([]string{"b=2", "a=x=y", "c=", `q="quoted"`}, "prompt arguments")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(Object(ms)), `{"b":"2","a":"x=y","c":"","q":"\"quoted\""}`; got != want {
		t.Errorf("Object = %s, want %s (strings, in the order given)", got, want)
	}
	if got := string(Object(nil)); got != "{}" {
		t.Errorf("Object(nil) = %s", got)
	}
	for words, want := range map[string]string{
		"novalue":  `argument "novalue": want key=value`,
		"=v":       `argument "=v": want key=value`,
		"n:=1":     `argument "n:=1": context values are strings; use n=VALUE`,
		"a=1 a=2":  `argument "a" given twice`,
		":=1":      `argument ":=1": want key=value`,
		"ok=1 x:=": `argument "x:=": context values are strings; use x=VALUE`,
	} {
		if _, err := Parse(strings.Fields(words), "context values"); err == nil || err.Error() != want {
			t.Errorf("Parse(%s) = %v, want %q", words, err, want)
		}
	}
}

// client is a client of a mcptest spec server on a pipe.
func client(t *testing.T, spec string) *mcp.Client {
	return pipeclient.Client(t, spec, mcp.ClientOptions{})
}

func TestCheckPrompt(t *testing.T) {
	t.Parallel()
	c := client(t, `{"prompts":[{"name":"greet","arguments":[{"name":"name","required":true},{"name":"tone"}]}]}`)
	check := func(name string, words ...string) error {
		ms, err := Parse(words, "prompt arguments")
		if err != nil {
			t.Fatal(err)
		}
		names, err := CheckListed(t.Context(), c, name, ms, func(format string, args ...any) { t.Errorf("warning: "+format, args...) })
		// The prompt found stops the walk (names nil: not all of them);
		// one not found walks every page, and names them all.
		if name == "greet" && names != nil || name != "greet" && (len(names) != 1 || names[0] != "greet") {
			t.Errorf("CheckPrompt(%s) listed %q", name, names)
		}
		return err
	}
	if err := check("greet", "name=Ada", "tone=warm"); err != nil {
		t.Errorf("declared arguments: %v", err)
	}
	if err := check("other", "x=1"); err != nil {
		t.Errorf("a prompt the server does not list: %v; the server will say", err)
	}
	var ue *errkind.UsageError
	if err := check("greet", "tone=warm"); !errors.As(err, &ue) || err.Error() != `prompt "greet" needs name; nothing sent` {
		t.Errorf("a required argument missing: %v", err)
	}
	if err := check("greet", "name=Ada", "mood=x"); !errors.As(err, &ue) || err.Error() != `prompt "greet" has no argument "mood" (it takes: name, tone); nothing sent (--no-validate sends anyway)` {
		t.Errorf("an undeclared argument: %v", err)
	}
}

func TestCheckPromptWarnsWhenThePromptsCannotBeListed(t *testing.T) {
	t.Parallel()
	c := client(t, `{"prompts":[{"name":"greet"}],"errors":{"prompts/list":{"code":-32603,"message":"down"}}}`)
	var warned []string
	names, err := CheckListed(t.Context(), c, "greet", []Member{{"x", []byte(`"1"`)}}, func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) })
	if err != nil || names != nil || len(warned) != 1 || !strings.HasPrefix(warned[0], "could not list the prompts (") || !strings.Contains(warned[0], "down") {
		t.Errorf("CheckPrompt = %v, warnings %q", err, warned)
	}
}

// A listed prompt whose arguments do not decode is a prompts/list the
// server broke: the check fails with mcp.DecodeResult's error (exit 4)
// rather than passing arguments unchecked.
func TestCheckAgainstMalformedPrompt(t *testing.T) {
	items := []json.RawMessage{json.RawMessage(`{"name":"greet","arguments":{"who":{"required":true}}}`)}
	_, err := CheckAgainst(items, "greet", nil)
	var te *mcp.TransportError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "prompts/list: malformed result") {
		t.Errorf("err %v", err)
	}
}
