package connect

import (
	"errors"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/internal/config"
	"github.com/mcpv/mcpv/internal/errkind"
	"github.com/mcpv/mcpv/mcp"
)

// defaults are the flags as kong fills them when none is given.
func defaults() Flags {
	var f Flags
	f.Transport = "auto"
	f.Timeout = 10 * time.Minute
	f.ConnectTimeout = time.Minute
	f.MaxTimeout = time.Hour
	f.Grant = "authorization-code"
	return f
}

// entry is a config entry as Expand returns it.
func entry(kind config.Kind, mutate func(*config.Expanded)) *config.Expanded {
	s := &config.Server{Name: "demo", File: &config.File{Source: config.Source{Path: "/proj/.mcp.json", Kind: kind, Folder: "/proj"}}}
	x := &config.Expanded{Server: s}
	mutate(x)
	return x
}

func stdioEntry(kind config.Kind) *config.Expanded {
	return entry(kind, func(x *config.Expanded) {
		x.Transport = "stdio"
		x.Command, x.Args = "server", []string{"--fast"}
		x.Env = []config.Var{{Name: "ENTRY", Value: "1"}}
	})
}

func httpEntry() *config.Expanded {
	return entry(config.User, func(x *config.Expanded) {
		x.Transport = "streamable-http"
		x.URL = "https://mcp.example.com/mcp"
		x.Headers = []config.Var{{Name: "X-Team", Value: "blue"}, {Name: "Authorization", Value: "Bearer entry-tok"}}
		x.Server.Timeout = 5 * time.Second
		x.Server.ProtocolVersion = "2025-06-18"
		x.OAuth = config.OAuth{ClientID: "entry-client", ClientSecret: "entry-secret", Grant: "client_credentials"}
		x.Secrets = []string{"entry-tok", "entry-secret"}
	})
}

func TestMerge(t *testing.T) {
	env := Env{Environ: []string{"PATH=/bin", "HOME=/home/u", "GITHUB_TOKEN=t0k", "LC_ALL=C"}, Cwd: "/work", GOOS: "linux"}
	tests := []struct {
		name     string
		flags    func(*Flags)
		explicit []string
		src      Source
		want     func(*Settings) // applied to the settings of the defaults
		wantErr  string
	}{
		{
			name: "a command inherits the whole environment, with --env added",
			flags: func(f *Flags) {
				f.Env = []string{"API_KEY=k3y", "X=1"}
				f.Cwd = "sub"
			},
			src: Source{Command: []string{"/usr/bin/srv", "a"}},
			want: func(s *Settings) {
				s.Name = "srv"
				s.Command = []string{"/usr/bin/srv", "a"}
				s.Env = append(append([]string(nil), env.Environ...), "API_KEY=k3y", "X=1")
				s.Dir = "/work/sub"
				s.Secrets = []string{"k3y"}
			},
		},
		{
			name:  "a URL with -H and credentials in it",
			flags: func(f *Flags) { f.Transport = "sse" },
			src:   Source{URL: "https://bob:pw@h.example/mcp?api_key=q", Headers: [][2]string{{"Authorization", "Bearer abc"}}},
			want: func(s *Settings) {
				s.Name = "h.example"
				s.URL, s.Mode = "https://bob:pw@h.example/mcp?api_key=q", "sse"
				s.Header = http.Header{"Authorization": {"Bearer abc"}}
				s.Secrets = []string{"Bearer abc", "abc", "pw", "Ym9iOnB3", "q"}
			},
		},
		{
			name: "a stdio entry gets a minimal environment and runs in its project",
			src:  Source{Entry: stdioEntry(config.Project)},
			want: func(s *Settings) {
				s.Name = "demo"
				s.Command = []string{"server", "--fast"}
				s.Env = []string{"PATH=/bin", "HOME=/home/u", "LC_ALL=C", "ENTRY=1"}
				s.Dir = "/proj"
			},
		},
		{
			name:  "--inherit-env, --env and --cwd over a user entry",
			flags: func(f *Flags) { f.InheritEnv, f.Env, f.Cwd = true, []string{"MORE=2"}, "/elsewhere" },
			src:   Source{Entry: stdioEntry(config.User)},
			want: func(s *Settings) {
				s.Name = "demo"
				s.Command = []string{"server", "--fast"}
				s.Env = append(append([]string(nil), env.Environ...), "ENTRY=1", "MORE=2")
				s.Dir = "/elsewhere"
			},
		},
		{
			name: "an HTTP entry's timeout, version, headers and OAuth",
			src:  Source{Entry: httpEntry()},
			want: func(s *Settings) {
				s.Name = "demo"
				s.URL, s.Mode = "https://mcp.example.com/mcp", "streamable-http"
				s.Header = http.Header{"X-Team": {"blue"}, "Authorization": {"Bearer entry-tok"}}
				s.Timeout, s.ProtocolVersion = 5*time.Second, "2025-06-18"
				s.Auth.ClientID, s.Auth.ClientSecret, s.Auth.Grant = "entry-client", "entry-secret", "client_credentials"
				s.Secrets = []string{"entry-tok", "entry-secret"}
			},
		},
		{
			name: "explicit flags beat the entry; -H replaces a header of the same name",
			flags: func(f *Flags) {
				f.Timeout, f.ProtocolVersion, f.Transport, f.Grant = time.Second, "2025-11-25", "sse", "authorization-code"
				f.ClientID = "flag-client"
			},
			explicit: []string{"timeout", "protocol-version", "transport", "grant"},
			src:      Source{Entry: httpEntry(), Headers: [][2]string{{"x-team", "red"}}, ClientSecret: "flag-secret"},
			want: func(s *Settings) {
				s.Name = "demo"
				s.URL, s.Mode = "https://mcp.example.com/mcp", "sse"
				s.Header = http.Header{"X-Team": {"red"}, "Authorization": {"Bearer entry-tok"}}
				s.Timeout, s.ProtocolVersion = time.Second, "2025-11-25"
				s.Auth.ClientID, s.Auth.ClientSecret, s.Auth.Grant = "flag-client", "flag-secret", "authorization_code"
				s.Secrets = []string{"entry-tok", "entry-secret", "flag-secret"}
			},
		},
		{
			name:  "an untrusted entry gets none of the user's secrets",
			flags: func(f *Flags) { f.Auth = "none" },
			src: Source{Untrusted: true, ClientSecret: "env-secret", IDToken: "id-tok", Entry: entry(config.Project, func(x *config.Expanded) {
				x.Transport, x.URL = "auto", "https://h.example/mcp"
			})},
			want: func(s *Settings) {
				s.Name = "demo"
				s.URL, s.Mode, s.Header = "https://h.example/mcp", "auto", http.Header{}
				s.Untrusted = true
				s.Auth.Mode = "none"
				s.Secrets = []string{"env-secret", "id-tok"}
			},
		},
		{
			name: "server-request settings pass through",
			flags: func(f *Flags) {
				f.Root, f.Answer, f.Elicitation, f.LogLevel, f.Events = []string{"/r"}, []string{"a=1"}, "accept", "debug", "ev.ndjson"
			},
			src: Source{Command: []string{"srv"}},
			want: func(s *Settings) {
				s.Name, s.Command, s.Env = "srv", []string{"srv"}, env.Environ
				s.Answers = Answers{Roots: []string{"/r"}, Answer: []string{"a=1"}, Elicitation: "accept", LogLevel: "debug", Events: "ev.ndjson"}
			},
		},
		{name: "no server", src: Source{}, wantErr: "no server given"},
		{name: "--header for a command", flags: func(f *Flags) { f.Header = []string{"A: b"} }, src: Source{Command: []string{"srv"}},
			wantErr: "--header and --cacert are for HTTP servers"},
		{name: "--cacert for a stdio entry", flags: func(f *Flags) { f.CACert = "ca.pem" }, src: Source{Entry: stdioEntry(config.User)},
			wantErr: "--header and --cacert are for HTTP servers"},
		{name: "--cwd for a URL", flags: func(f *Flags) { f.Cwd = "/x" }, src: Source{URL: "http://h/mcp"},
			wantErr: "--env and --cwd are for stdio servers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := defaults()
			if tt.flags != nil {
				tt.flags(&f)
			}
			explicit := map[string]bool{}
			for _, e := range tt.explicit {
				explicit[e] = true
			}
			got, err := Merge(f, explicit, tt.src, env)
			if tt.wantErr != "" {
				var ue *errkind.UsageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Merge = %v, want a usage error %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := &Settings{
				Timeout: f.Timeout, ConnectTimeout: f.ConnectTimeout, MaxTimeout: f.MaxTimeout,
				Auth: Auth{Mode: f.Auth, Grant: "authorization_code", ClientID: f.ClientID}, Framing: mcp.FramingAuto,
				ListTTL: DefaultListTTL,
			}
			if x := tt.src.Entry; x != nil { // where the entry is, and the name a pin knows it by
				want.ConfigFile, want.ConfigLine, want.PinEntry = x.File.Path, x.Line, x.Name
			}
			tt.want(want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// TestListTTL: MCPV_LIST_TTL sets how long a list without hints is kept
// between runs (0: not at all); a value that is no duration is refused,
// not passed over; --fresh is carried as given.
func TestListTTL(t *testing.T) {
	for v, want := range map[string]time.Duration{"": DefaultListTTL, "30s": 30 * time.Second, "0": 0, "2h": 2 * time.Hour} {
		env := Env{Environ: []string{"PATH=/bin", "MCPV_LIST_TTL=" + v}, Cwd: "/work", GOOS: "linux"}
		if v == "" {
			env.Environ = env.Environ[:1]
		}
		f := defaults()
		f.Fresh = v == "0"
		s, err := Merge(f, nil, Source{Command: []string{"srv"}}, env)
		if err != nil || s.ListTTL != want || s.Fresh != (v == "0") {
			t.Errorf("MCPV_LIST_TTL=%q: %v, %v (fresh %v), want %v", v, s, err, s != nil && s.Fresh, want)
		}
	}
	for _, v := range []string{"soon", "-1m", "30 s"} {
		env := Env{Environ: []string{"MCPV_LIST_TTL=" + v}, Cwd: "/work", GOOS: "linux"}
		_, err := Merge(defaults(), nil, Source{Command: []string{"srv"}}, env)
		if ue := (*errkind.UsageError)(nil); !errors.As(err, &ue) || !strings.Contains(err.Error(), "MCPV_LIST_TTL") {
			t.Errorf("MCPV_LIST_TTL=%q: %v, want a usage error naming it", v, err)
		}
	}
}

// An entry's env and --env replace an inherited variable of the same name
// instead of standing beside it; on Windows names match in any case.
func TestServerEnvOverrides(t *testing.T) {
	winEnv := []string{`Path=C:\Windows`, `SystemRoot=C:\Windows`, "GITHUB_TOKEN=t0k", `=C:=C:\w`}
	tests := []struct {
		name    string
		goos    string
		environ []string
		inherit bool
		entry   []config.Var // nil: a command after --
		flags   []string
		want    []string
	}{
		{name: "windows: an entry's PATH replaces Path", goos: "windows", environ: winEnv,
			entry: []config.Var{{Name: "PATH", Value: `C:\node;C:\Windows`}},
			want:  []string{`SystemRoot=C:\Windows`, `PATH=C:\node;C:\Windows`}},
		{name: "windows: --env path over the entry's PATH", goos: "windows", environ: winEnv,
			entry: []config.Var{{Name: "PATH", Value: `C:\node`}, {Name: "DEBUG", Value: "1"}}, flags: []string{`path=C:\py`},
			want: []string{`SystemRoot=C:\Windows`, "DEBUG=1", `path=C:\py`}},
		{name: "windows: --inherit-env keeps the rest, drive entries too", goos: "windows", environ: winEnv, inherit: true,
			entry: []config.Var{{Name: "systemroot", Value: `D:\Win`}},
			want:  []string{`Path=C:\Windows`, "GITHUB_TOKEN=t0k", `=C:=C:\w`, `systemroot=D:\Win`}},
		{name: "windows: --env PATH for a command", goos: "windows", environ: winEnv, flags: []string{`PATH=C:\bin`},
			want: []string{`SystemRoot=C:\Windows`, "GITHUB_TOKEN=t0k", `=C:=C:\w`, `PATH=C:\bin`}},
		{name: "linux: Path is another variable than PATH", goos: "linux", environ: []string{"PATH=/bin", "HOME=/h"},
			entry: []config.Var{{Name: "Path", Value: "/x"}},
			want:  []string{"PATH=/bin", "HOME=/h", "Path=/x"}},
		{name: "linux: an entry's PATH replaces PATH", goos: "linux", environ: []string{"PATH=/bin", "HOME=/h"},
			entry: []config.Var{{Name: "PATH", Value: "/opt/bin:/bin"}}, flags: []string{"HOME=/other"},
			want: []string{"PATH=/opt/bin:/bin", "HOME=/other"}},
		{name: "darwin: case matters", goos: "darwin", environ: []string{"PATH=/bin", "TMPDIR=/t"}, flags: []string{"tmpdir=/u"},
			want: []string{"PATH=/bin", "TMPDIR=/t", "tmpdir=/u"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := defaults()
			f.InheritEnv, f.Env = tt.inherit, tt.flags
			src := Source{Command: []string{"srv"}}
			if tt.entry != nil {
				src = Source{Entry: entry(config.User, func(x *config.Expanded) {
					x.Transport, x.Command, x.Env = "stdio", "srv", tt.entry
				})}
			}
			environ := slices.Clone(tt.environ)
			got, err := Merge(f, map[string]bool{}, src, Env{Environ: environ, Cwd: "/w", GOOS: tt.goos})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got.Env); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
			if !slices.Equal(environ, tt.environ) {
				t.Errorf("the process environment was changed: %q", environ)
			}
		})
	}
}

func TestMinimalEnv(t *testing.T) {
	environ := []string{"PATH=/bin", "Path=x", "AWS_SECRET=s", "LC_TIME=C", "__CF_USER_TEXT_ENCODING=0x1F5", "TMPDIR=/t"}
	if d := cmp.Diff([]string{"PATH=/bin", "LC_TIME=C", "TMPDIR=/t"}, MinimalEnv(environ, "linux")); d != "" {
		t.Errorf("linux (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"PATH=/bin", "LC_TIME=C", "__CF_USER_TEXT_ENCODING=0x1F5", "TMPDIR=/t"}, MinimalEnv(environ, "darwin")); d != "" {
		t.Errorf("darwin (-want +got):\n%s", d)
	}
	// Windows: names in any case, the variables Windows programs need kept
	// as they are spelled, the user's secrets dropped.
	windows := []string{`Path=C:\Windows\system32`, `SystemRoot=C:\Windows`, `ComSpec=C:\Windows\system32\cmd.exe`,
		"PATHEXT=.COM;.EXE;.BAT;.CMD", `APPDATA=C:\Users\me\AppData\Roaming`, `LOCALAPPDATA=C:\Users\me\AppData\Local`,
		`USERPROFILE=C:\Users\me`, `TEMP=C:\Users\me\AppData\Local\Temp`, `TMP=C:\Users\me\AppData\Local\Temp`,
		`ProgramFiles=C:\Program Files`, `ProgramFiles(x86)=C:\Program Files (x86)`, "USERNAME=me", "OS=Windows_NT",
		"GITHUB_TOKEN=ghp_x", "AWS_SECRET_ACCESS_KEY=s", "OneDrive=C:\\Users\\me\\OneDrive"}
	want := windows[:len(windows)-3]
	if d := cmp.Diff(want, MinimalEnv(windows, "windows")); d != "" {
		t.Errorf("windows (-want +got):\n%s", d)
	}
	if got := MinimalEnv(windows, "linux"); len(got) != 0 {
		t.Errorf("linux keeps Windows' spellings: %q", got)
	}
}

func TestEnv(t *testing.T) {
	win := Env{Environ: []string{`Path=C:\bin`, `LocalAppData=C:\L`}, GOOS: "windows"}
	if v, ok := win.Lookup("PATH"); v != `C:\bin` || !ok || win.Getenv("LOCALAPPDATA") != `C:\L` {
		t.Errorf("windows: Lookup(PATH) = %q, %v: names are compared without regard to case there", v, ok)
	}
	if _, ok := (Env{Environ: []string{"Path=x"}, GOOS: "linux"}).Lookup("PATH"); ok {
		t.Error("linux: Path is not PATH")
	}
	if runtime.GOOS == "windows" {
		return // what follows is Unix paths
	}
	env := Env{Environ: []string{"A=1", "EMPTY=", "A=2", "HOME=/h"}, Cwd: "/c"}
	if v, ok := env.Lookup("A"); v != "2" || !ok {
		t.Errorf("Lookup(A) = %q, %v; a later entry wins", v, ok)
	}
	if v, ok := env.Lookup("EMPTY"); v != "" || !ok {
		t.Errorf("Lookup(EMPTY) = %q, %v", v, ok)
	}
	if _, ok := env.Lookup("NONE"); ok {
		t.Error("Lookup(NONE) found it")
	}
	// A value holds '=' after the first; a name holds none, so that no
	// name with one is found; an entry without one names nothing.
	odd := Env{Environ: []string{"K=a=b", "NOEQ", "=C:=C:\\", "KE=y"}}
	for key, want := range map[string]string{"K": "a=b", "K=a": "", "NOEQ": "", "KE": "y", "": "C:=C:\\", "KEY": ""} {
		if v, ok := odd.Lookup(key); v != want || ok != (want != "") {
			t.Errorf("Lookup(%q) = %q, %v, want %q", key, v, ok, want)
		}
	}
	if env.Home() != "/h" || env.Path("x/y") != "/c/x/y" || env.Path("/abs") != "/abs" || env.Path("") != "" {
		t.Errorf("Home %q, Path %q", env.Home(), env.Path("x/y"))
	}
	if got := env.TrustStore().Dir; got != "/h/.local/state/mcpv/trusted" {
		t.Errorf("trust store in %s", got)
	}
	if got := with(env, "XDG_STATE_HOME=/s").OAuthStore().Dir; got != "/s/mcpv/oauth" {
		t.Errorf("oauth store in %s", got)
	}
}

func with(env Env, kv ...string) Env {
	env.Environ = append(append([]string(nil), env.Environ...), kv...)
	return env
}

// A progress's share is shown when there is one: a total so small that
// the share is past any float64 has none, not +Inf%.
func TestProgressShare(t *testing.T) {
	for params, want := range map[string]string{
		`{"progress":5,"total":10}`:      "mcpv: progress 5/10 (50%)",
		`{"progress":5,"total":1e-320}`:  "mcpv: progress 5/1e-320",
		`{"progress":1e308,"total":0.1}`: "mcpv: progress 1e308/0.1",
	} {
		if got := progressText([]byte(params)); got != want {
			t.Errorf("progressText(%s) = %q, want %q", params, got, want)
		}
	}
}

// What a server writes is shown with what a terminal would act on escaped,
// and a log message of several lines cannot pass for lines of mcpv's own.
func TestServerTextIsSafe(t *testing.T) {
	got := logLine([]byte(`{"level":"info\u001b[2J","logger":"db\u202e","data":"one\ntwo\u001b]0;pwned\u0007"}`))
	want := "server[info\\x1b[2J] db\\u202e: one\n  two\\x1b]0;pwned\\x07\n"
	if got != want {
		t.Errorf("logLine = %q, want %q", got, want)
	}
	if got := progressText([]byte(`{"progress":1,"total":2,"message":"half\u009b31m"}`)); got != `mcpv: progress 1/2 (50%) half\u009b31m` {
		t.Errorf("progressText = %q", got)
	}
	if got := TaskStatus(mcp.Task{TaskID: "t\u001b", Status: "working", StatusMessage: "a\nb"}); got != `mcpv: task t\x1b: working a\nb` {
		t.Errorf("TaskStatus = %q", got)
	}
}

func TestMergePin(t *testing.T) {
	env := Env{Environ: []string{"PATH=/bin", "HOME=/home/u"}, Cwd: "/work", GOOS: "linux"}
	withPin := func(kind config.Kind, pin string) *config.Expanded {
		x := stdioEntry(kind)
		x.Server.Pin = pin
		return x
	}
	tests := []struct {
		name                   string
		flag, environ          string
		entry                  *config.Expanded
		path, label, entryName string
		tree                   string
	}{
		{name: "none"},
		{name: "the flag, relative to the working directory", flag: "pins.json", path: "/work/pins.json", label: "pins.json"},
		{name: "MCPV_PIN", environ: "ci/pins.json", path: "/work/ci/pins.json", label: "ci/pins.json"},
		{name: "a project entry's pin stays in its tree", entry: withPin(config.Project, "mcp/pins.json"),
			path: "/proj/mcp/pins.json", label: "mcp/pins.json", entryName: "demo", tree: "/proj"},
		{name: "a user entry's pin goes anywhere", entry: withPin(config.User, "/home/u/pins.json"),
			path: "/home/u/pins.json", label: "/home/u/pins.json", entryName: "demo"},
		{name: "the flag beats the entry", flag: "mine.json", entry: withPin(config.Project, "theirs.json"),
			path: "/work/mine.json", label: "mine.json", entryName: "demo"},
		{name: "MCPV_PIN beats the entry", environ: "/ci/pins.json", entry: withPin(config.Project, "theirs.json"),
			path: "/ci/pins.json", label: "/ci/pins.json", entryName: "demo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := defaults()
			f.Pin = tt.flag
			e := env
			if tt.environ != "" {
				e.Environ = append(slices.Clone(e.Environ), "MCPV_PIN="+tt.environ)
			}
			src := Source{Command: []string{"server"}}
			if tt.entry != nil {
				src = Source{Entry: tt.entry}
			}
			s, err := Merge(f, nil, src, e)
			if err != nil {
				t.Fatal(err)
			}
			got := [4]string{s.Pin, s.PinLabel, s.PinEntry, s.PinTree}
			if want := [4]string{tt.path, tt.label, tt.entryName, tt.tree}; got != want {
				t.Errorf("pin, label, entry, tree = %q, want %q", got, want)
			}
		})
	}
}
