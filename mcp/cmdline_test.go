package mcp

import (
	"slices"
	"strings"
	"testing"
)

// cmdExpand does what cmd.exe does to a /c command line before it looks
// for & | < > ^: expand %NAME% from env (names in any case). It is
// stricter than cmd: after a % that starts no expansion it looks again
// from the next character, so it finds every expansion cmd could make.
func cmdExpand(s string, env map[string]string) (out string, expanded []string) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '%' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j < 0 {
			b.WriteString(s[i:])
			break
		}
		name := s[i+1 : i+1+j]
		if name == "cd:~," { // an empty substring of the current directory
			i += j + 2
			continue
		}
		if v, ok := env[strings.ToUpper(name)]; ok && name != "" {
			b.WriteString(v)
			expanded = append(expanded, name)
			i += j + 2
			continue
		}
		b.WriteByte('%')
		i++
	}
	return b.String(), expanded
}

// cmdMeta lists the characters cmd.exe acts on outside quotes in the
// command it runs (after /s /c strips the outer pair of quotes).
func cmdMeta(command string) []byte {
	var out []byte
	quoted := false
	for i := 0; i < len(command); i++ {
		switch c := command[i]; {
		case c == '"':
			quoted = !quoted
		case !quoted && strings.IndexByte("&|<>^", c) >= 0:
			out = append(out, c)
		}
	}
	return out
}

// crtSplit splits a command line as the Microsoft C runtime (and
// CommandLineToArgvW after the program name) does.
func crtSplit(s string) []string {
	var args []string
	var cur strings.Builder
	inArg, quoted := false, false
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case !quoted && (c == ' ' || c == '\t'):
			if inArg {
				args = append(args, cur.String())
				cur.Reset()
				inArg = false
			}
			i++
		case c == '\\':
			inArg = true
			n := 0
			for i+n < len(s) && s[i+n] == '\\' {
				n++
			}
			if i+n < len(s) && s[i+n] == '"' {
				cur.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					cur.WriteByte('"')
					i += n + 1
				} else {
					i += n
				}
				continue
			}
			cur.WriteString(strings.Repeat(`\`, n))
			i += n
		case c == '"':
			inArg = true
			if quoted && i+1 < len(s) && s[i+1] == '"' {
				cur.WriteByte('"') // "" inside quotes
				i += 2
				continue
			}
			quoted = !quoted
			i++
		default:
			inArg = true
			cur.WriteByte(c)
			i++
		}
	}
	if inArg {
		args = append(args, cur.String())
	}
	return args
}

var testEnv = map[string]string{"OS": "Windows_NT", "PATH": `C:\Windows`, "CD": `C:\here`, "USERNAME": "me"}

// checkBatchLine runs a line through both parsers and checks that cmd
// acts on nothing and the program gets exactly bat and args.
func checkBatchLine(t *testing.T, line, bat string, args []string) {
	t.Helper()
	const prefix = `"C:\Windows\System32\cmd.exe" /d /e:on /v:off /s /c "`
	if !strings.HasPrefix(line, prefix) || !strings.HasSuffix(line, `"`) {
		t.Fatalf("line %s: not a /s /c line", line)
	}
	command, expanded := cmdExpand(line[len(prefix):len(line)-1], testEnv)
	if len(expanded) > 0 {
		t.Errorf("args %q: cmd expands %q in %s", args, expanded, line)
	}
	if meta := cmdMeta(command); len(meta) > 0 {
		t.Errorf("args %q: cmd acts on %q in %s", args, meta, command)
	}
	if got := crtSplit(command); !slices.Equal(got, append([]string{bat}, args...)) {
		t.Errorf("args %q: the program gets %q from %s", args, got, command)
	}
}

func TestBatchCommandLine(t *testing.T) {
	const comspec = `C:\Windows\System32\cmd.exe`
	bat := `C:\Program Files\nodejs\npx.cmd`
	tests := [][]string{
		{"-y", "@modelcontextprotocol/server-everything"},
		{"https://x/mcp?a=1&b=2"},
		{"a&b", "x|y", "<in>", "c^d", "(p)", "a,b;c"},
		{"%OS%", "50%", "%", "%%", "%cd:~,%", "%PATH"},
		{"has space", "", "tab\there"},
		{`say "hi"`, `"`, `""`, `a"&b`, `"&calc&"`},
		{`trail\`, `C:\dir\`, `a\"b`, `a\\"&b`, `\\server\share`},
		{"!USERNAME!", "héllo wörld", "日本"},
	}
	for _, args := range tests {
		line, err := batchCommandLine(comspec, bat, args)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		checkBatchLine(t, line, bat, args)
	}
	line, _ := batchCommandLine(comspec, bat, []string{"a&b"})
	if want := `"C:\Windows\System32\cmd.exe" /d /e:on /v:off /s /c ""C:\Program Files\nodejs\npx.cmd" "a&b""`; line != want {
		t.Errorf("line %s\nwant %s", line, want)
	}
	for _, bad := range []string{"two\nlines", "cr\r", "nul\x00"} {
		if _, err := batchCommandLine(comspec, bat, []string{"ok", bad}); err == nil || !strings.Contains(err.Error(), "argument 2") {
			t.Errorf("%q: %v, want a refusal naming argument 2", bad, err)
		}
	}
}

// The checks above must be able to fail: a line built the way os/exec
// quotes for ordinary programs lets cmd act.
func TestBatchCheckCatchesNaiveQuoting(t *testing.T) {
	naive := `"C:\Windows\System32\cmd.exe" /d /e:on /v:off /s /c ""C:\x.cmd" a&b "%OS%""`
	command, expanded := cmdExpand(naive[len(`"C:\Windows\System32\cmd.exe" /d /e:on /v:off /s /c "`):len(naive)-1], testEnv)
	if len(expanded) == 0 || len(cmdMeta(command)) == 0 {
		t.Errorf("the simulators miss %%OS%% or & in %s", naive)
	}
}

func FuzzBatchCommandLine(f *testing.F) {
	for _, s := range []string{"a&b", `"`, `\`, `a\"`, "%OS%", "%%cd:~,%", `"&calc&"`, `x\\"y`, "^", ""} {
		f.Add(s, "plain")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		args := []string{a, b}
		line, err := batchCommandLine(`C:\Windows\System32\cmd.exe`, `C:\p q\s.cmd`, args)
		if strings.ContainsAny(a+b, "\r\n\x00") {
			if err == nil {
				t.Fatalf("%q: a line break or NUL was not refused", args)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkBatchLine(t, line, `C:\p q\s.cmd`, args)
	})
}

func TestIsBatch(t *testing.T) {
	for path, want := range map[string]bool{
		`C:\Program Files\nodejs\npx.cmd`: true, `C:\x\RUN.BAT`: true, `C:\x\node.exe`: false,
		`C:\x.cmd\node`: false, `server`: false, `/usr/bin/npx`: false,
	} {
		if got := isBatch(path); got != want {
			t.Errorf("isBatch(%s) = %v", path, got)
		}
	}
}
