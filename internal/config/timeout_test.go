package config

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A config entry's timeout takes what --timeout takes (duration.Parse):
// a Go duration or a number of seconds, as a number or a string.
func TestTimeout(t *testing.T) {
	ok := []struct {
		value string // as written after "timeout: " or "\"timeout\": "
		want  time.Duration
	}{
		{`"30"`, 30 * time.Second},
		{`30`, 30 * time.Second},
		{`"1m"`, time.Minute},
		{`1.5`, 1500 * time.Millisecond},
		{`"1.5"`, 1500 * time.Millisecond},
		{`0`, 0},
		{`"0"`, 0},
		{`1e3`, 1000 * time.Second},
		{`"500ms"`, 500 * time.Millisecond},
	}
	bad := []struct{ value, want string }{
		{`-1`, `server "s": timeout "-1" is negative`},
		{`"abc"`, `server "s": timeout "abc" is not a duration: want e.g. 30s, 1m30s or a number of seconds`},
		{`"-5s"`, `server "s": timeout "-5s" is negative`},
		{`"-1"`, `server "s": timeout "-1" is negative`},
		{`1e10`, `server "s": timeout "1e10" is too long`},
		{`"30 s"`, `server "s": timeout "30 s" is not a duration`},
		{`true`, `server "s": timeout must be a duration such as "30s" or a number of seconds, not a boolean`},
		{`null`, `not null`},
		{`[30]`, `not an array`},
	}
	yamlOnly := []struct{ value, want string }{
		{`30`, ""}, {`1m`, ""}, {`.5`, ""}, {`+30`, ""},
		{`.inf`, `timeout ".inf" is not a duration`},
		{`-.inf`, `timeout "-.inf" is not a duration`},
		{`.nan`, `timeout ".nan" is not a duration`},
		{`0x1F`, `timeout "0x1F" is not a duration`},
		{`-5s`, `timeout "-5s" is negative`},
	}
	load := func(t *testing.T, format, value string) (*Server, error) {
		t.Helper()
		var file, content string
		if format == "json" {
			file, content = "a.json", `{"mcpServers": {"s": {"command": "x", "timeout": `+value+`}}}`
		} else {
			file, content = "a.yaml", "servers:\n  s:\n    command: x\n    timeout: "+value+"\n"
		}
		path := filepath.Join(t.TempDir(), file)
		put(t, path, content)
		f, err := Load(Source{Path: path, Required: true, YAML: format == "yaml"})
		if err != nil {
			return nil, err
		}
		return f.Servers[0], nil
	}
	for _, format := range []string{"json", "yaml"} {
		for _, c := range ok {
			s, err := load(t, format, c.value)
			if err != nil || s.Timeout != c.want {
				t.Errorf("%s timeout %s: %v, %v; want %v", format, c.value, s, err, c.want)
			}
		}
		for _, c := range bad {
			_, err := load(t, format, c.value)
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s timeout %s: got %v, want one line with %q", format, c.value, err, c.want)
			}
		}
	}
	for _, c := range yamlOnly {
		_, err := load(t, "yaml", c.value)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("yaml timeout %s: %v", c.value, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("yaml timeout %s: got %v, want %q", c.value, err, c.want)
		}
	}
}
