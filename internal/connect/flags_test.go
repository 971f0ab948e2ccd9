package connect

import (
	"fmt"
	"os"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/duration"
)

// The checks of the flags that need no I/O, each with its message.
func TestFlagsValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		flags func(*Flags)
		want  string
	}{
		{"the defaults", func(*Flags) {}, ""},
		{"a modern era with an old version", func(f *Flags) { f.ProtocolEra, f.ProtocolVersion = "modern", "2025-06-18" },
			"--protocol-era modern and --protocol-version 2025-06-18 (a version of the initialize era) exclude each other"},
		{"a modern era with its version", func(f *Flags) { f.ProtocolEra, f.ProtocolVersion = "modern", "2026-07-28" }, ""},
		{"an --env without =", func(f *Flags) { f.Env = []string{"A=1", "B"} }, `--env "B": want KEY=VALUE`},
		{"an --env without a name", func(f *Flags) { f.Env = []string{"=1"} }, `--env "=1": want KEY=VALUE`},
		{"a header without a name", func(f *Flags) { f.Header = []string{"@later.txt", ": x"} }, `--header ": …": want 'Name: value'`},
		{"an --answer without =", func(f *Flags) { f.Answer = []string{"k"} }, `--answer "k": want KEY=VALUE`},
	} {
		f := defaults()
		tt.flags(&f)
		err := f.ServerFlags.Validate()
		if err == nil {
			err = f.ClientFlags.Validate()
		}
		if got := fmt.Sprint(err); (err == nil) != (tt.want == "") || err != nil && got != tt.want {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// A group's SetDefaults gives each flag the default its tag gives kong,
// for a grammar that leaves the group out; every flag of a group has its
// help in the group's table, and its short name in the group's Shorts.
func TestFlagGroups(t *testing.T) {
	t.Parallel()
	var f Flags
	for _, g := range f.Groups() {
		g.Flags.SetDefaults()
		v := reflect.ValueOf(g.Flags).Elem()
		var shorts string
		for i := range v.NumField() {
			field := v.Type().Field(i)
			if field.Tag.Get("kong") == "-" {
				continue // no flag: what a flag's decoding keeps (TargetFlags.Servers)
			}
			name := field.Tag.Get("name")
			if !g.Has(name) {
				t.Errorf("%s: --%s has no help in its group's table", g.Heading, name)
			}
			shorts += field.Tag.Get("short")
			def, ok := field.Tag.Lookup("default")
			if !ok {
				if !v.Field(i).IsZero() {
					t.Errorf("--%s has no default, but SetDefaults gives it %v", name, v.Field(i))
				}
				continue
			}
			got := fmt.Sprint(v.Field(i).Interface())
			if d, ok := v.Field(i).Interface().(time.Duration); ok {
				want, _ := duration.Parse(def)
				if d != want {
					t.Errorf("--%s: SetDefaults gives %v, the tag %s", name, d, def)
				}
				continue
			}
			if got != def {
				t.Errorf("--%s: SetDefaults gives %q, the tag %q", name, got, def)
			}
		}
		if shorts != g.Shorts {
			t.Errorf("%s: short names %q, the group says %q", g.Heading, shorts, g.Shorts)
		}
		if g.Has("no-such-flag") {
			t.Errorf("%s has a flag it has not", g.Heading)
		}
	}
}

// Where a run keeps what it keeps: under the XDG state directory, session
// sockets under the runtime directory when it is set and absolute.
func TestStateDirectories(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths")
	}
	env := Env{Environ: []string{"HOME=/h", "XDG_STATE_HOME=/s"}, GOOS: "linux"}
	if dir, root := env.SessionLogDir(); dir != "/s/mcpv/sessions" || root != "/s" {
		t.Errorf("session logs: %s under %s", dir, root)
	}
	if dir, root := env.SessionDir(); dir != "/s/mcpv/sessions" || root != "/s" {
		t.Errorf("sessions without a runtime directory: %s under %s", dir, root)
	}
	if dir, root := with(env, "XDG_RUNTIME_DIR=/run/user/1").SessionDir(); dir != "/run/user/1/mcpv" || root != "/run/user/1" {
		t.Errorf("sessions: %s under %s", dir, root)
	}
	if dir, _ := with(env, "XDG_RUNTIME_DIR=relative").SessionDir(); dir != "/s/mcpv/sessions" {
		t.Errorf("a relative runtime directory was taken: %s", dir)
	}
	c := env.Config("c.json")
	if c.Flag != "c.json" || c.Home != "/h" || c.Getenv("XDG_STATE_HOME") != "/s" {
		t.Errorf("config env %+v", c)
	}
}

// The process's own world is the process's.
func TestSystem(t *testing.T) {
	t.Parallel()
	env, err := System()
	wd, _ := os.Getwd()
	if err != nil || env.Cwd != wd || env.GOOS != runtime.GOOS || len(env.Environ) != len(os.Environ()) {
		t.Errorf("System = %+v, %v", env, err)
	}
}
