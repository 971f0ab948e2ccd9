package mcp

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// batchView is what becomes of a command line that runs a batch file
// through cmd.exe /s /c: what cmd could expand or act on, and the argument
// vector the program behind the shim gets.
type batchView struct {
	// expanded lists the %NAME% (or %NAME:...%) cmd could replace, were
	// NAME defined.
	expanded []string
	// unquoted is what cmd reads outside quotes, the spaces between words
	// aside: metacharacters (& | < > ^ ( ) , ; = % !) it acts on, or bare
	// text of an argument.
	unquoted string
	// argv is the batch file and its arguments as the C runtime (since
	// 2008) splits them.
	argv []string
}

// viewBatchLine simulates the two parsers a CreateProcess line for cmd.exe
// meets: cmd.exe's (its switches, the /s /c quote stripping, %
// expansion, then its quote state), then the C runtime's argv split.
func viewBatchLine(line string) (batchView, error) {
	if !strings.HasPrefix(line, `"`) {
		return batchView{}, fmt.Errorf("cmd.exe's path is not quoted")
	}
	end := strings.IndexByte(line[1:], '"')
	if end < 0 {
		return batchView{}, fmt.Errorf("cmd.exe's path has no closing quote")
	}
	rest := line[end+2:]
	i := strings.Index(strings.ToLower(rest), " /c ")
	if i < 0 {
		return batchView{}, fmt.Errorf("no /c")
	}
	switches := strings.Fields(strings.ToLower(rest[:i]))
	for _, want := range []string{"/d", "/e:on", "/v:off", "/s"} {
		if !slices.Contains(switches, want) {
			return batchView{}, fmt.Errorf("switches %q lack %s", switches, want)
		}
	}
	command := strings.TrimLeft(rest[i+len(" /c "):], " ")
	if len(command) < 2 || command[0] != '"' || command[len(command)-1] != '"' {
		return batchView{}, fmt.Errorf("the command after /s /c is not in a pair of quotes")
	}
	command, expanded := cmdExpand(command[1 : len(command)-1])
	return batchView{expanded: expanded, unquoted: cmdUnquoted(command), argv: crtSplit(command)}, nil
}

// cmdExpand does what cmd.exe does to a /c command before it looks at
// quotes: replace %NAME% (or %NAME:~1,2%, %NAME:a=b%). It assumes every
// name defined, except that %cd:~,% is the empty string, and a % that
// starts no name (%%, or one with no closing %) stays.
func cmdExpand(s string) (out string, expanded []string) {
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '%' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := strings.IndexByte(s[i+1:], '%')
		if j <= 0 { // no closing %, or %%
			b.WriteByte('%')
			i++ // an undefined or empty name: the closing % may open the next
			continue
		}
		name := s[i+1 : i+1+j]
		if name != "cd:~," {
			expanded = append(expanded, name)
		}
		i += j + 2
	}
	return b.String(), expanded
}

// cmdUnquoted returns what cmd reads outside quotes in command, without
// the spaces that separate words. Every " toggles cmd's quote state; a
// backslash is an ordinary character to it.
func cmdUnquoted(command string) string {
	var out []byte
	quoted := false
	for i := 0; i < len(command); i++ {
		switch c := command[i]; {
		case c == '"':
			quoted = !quoted
		case !quoted && c != ' ':
			out = append(out, c)
		}
	}
	return string(out)
}

// crtSplit splits a command line as the Microsoft C runtime has since 2008
// (node and Python read their arguments so): spaces and tabs outside
// quotes separate; 2n backslashes before a " are n backslashes and the "
// toggles quoting, 2n+1 are n and a literal "; "" inside quotes is one "
// and quoting goes on; other backslashes are literal.
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
				cur.WriteByte('"')
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

const testComspec = `C:\Windows\System32\cmd.exe`

// checkBatchLine builds the line for bat and args and checks that cmd
// could expand nothing, sees nothing outside quotes, and leaves the
// program exactly bat and args.
func checkBatchLine(t *testing.T, bat string, args []string) {
	t.Helper()
	line, err := batchCommandLine(testComspec, bat, args)
	if err != nil {
		t.Fatalf("args %q: %v", args, err)
	}
	v, err := viewBatchLine(line)
	if err != nil {
		t.Fatalf("args %q: %v in %s", args, err, line)
	}
	if len(v.expanded) > 0 {
		t.Errorf("args %q: cmd could expand %q in %s", args, v.expanded, line)
	}
	if v.unquoted != "" {
		t.Errorf("args %q: cmd reads %q outside quotes in %s", args, v.unquoted, line)
	}
	if diff := cmp.Diff(append([]string{bat}, args...), v.argv); diff != "" {
		t.Errorf("args %q: the program's argv differs (-want +got) in %s:\n%s", args, line, diff)
	}
}

func TestBatchCommandLine(t *testing.T) {
	tests := []struct {
		name string
		bat  string
		args []string
	}{
		{"npx", `C:\Program Files\nodejs\npx.cmd`, []string{"-y", "@modelcontextprotocol/server-everything"}},
		{"URL with a query", `C:\Program Files\nodejs\npx.cmd`, []string{"mcp-remote", "https://x/mcp?a=1&b=2"}},
		{"metacharacters", `C:\x\s.cmd`, []string{"a&b", "x|y", "<in>", "c^d", "(p)", "a,b;c", "k=v", "&&", "||", "^"}},
		{"percent", `C:\x\s.cmd`, []string{"%OS%", "50%", "%", "%%", "%cd:~,%", "%PATH", "%PATH:~0,3%", "a%b%c", "%%OS%%", "%~dp0", "%*", "%1"}},
		{"spaces and empty", `C:\x\s.cmd`, []string{"has space", "", "tab\there", " ", ""}},
		{"quotes", `C:\x\s.cmd`, []string{`say "hi"`, `"`, `""`, `a"&b`, `"&calc&"`, `a"b c`, `" "`, `"%OS%"`}},
		{"backslashes", `C:\x\s.cmd`, []string{`trail\`, `C:\dir\`, `a\"b`, `a\\"&b`, `\\server\share`, `\`, `\\`, `\"`, `x\\\"y`}},
		{"delayed expansion and text", `C:\x\s.cmd`, []string{"!USERNAME!", "!", "héllo wörld", "日本"}},
		{"no arguments", `C:\x\s.cmd`, nil},
		{"a path with & and %", `C:\a&b 100%\run.BAT`, []string{"a&b"}},
		{"a relative path", `node_modules\.bin\server.cmd`, []string{"--port", "8080"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { checkBatchLine(t, tt.bat, tt.args) })
	}
}

func TestBatchCommandLineText(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-y", "a&b"}, `"C:\Windows\System32\cmd.exe" /d /e:on /v:off /s /c ""C:\Program Files\nodejs\npx.cmd" "-y" "a&b""`},
		{[]string{"", `say "hi"`}, `"C:\Windows\System32\cmd.exe" /d /e:on /v:off /s /c ""C:\Program Files\nodejs\npx.cmd" "" "say ""hi""""`},
		{[]string{`a\"b`, `dir\`}, `"C:\Windows\System32\cmd.exe" /d /e:on /v:off /s /c ""C:\Program Files\nodejs\npx.cmd" "a\\""b" "dir\\""`},
		{[]string{"%OS%"}, `"C:\Windows\System32\cmd.exe" /d /e:on /v:off /s /c ""C:\Program Files\nodejs\npx.cmd" "%%cd:~,%OS%%cd:~,%""`},
	}
	for _, tt := range tests {
		got, err := batchCommandLine(testComspec, `C:\Program Files\nodejs\npx.cmd`, tt.args)
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if got != tt.want {
			t.Errorf("%q:\ngot  %s\nwant %s", tt.args, got, tt.want)
		}
	}
}

func TestBatchCommandLineRefuses(t *testing.T) {
	tests := []struct {
		arg, why string
	}{
		{"two\nlines", "a line feed"},
		{"cr\r", "a carriage return"},
		{"nul\x00", "a NUL character"},
		{"a&b\r\n", "a carriage return"},
	}
	for _, tt := range tests {
		_, err := batchCommandLine(testComspec, `C:\x\s.cmd`, []string{"ok", tt.arg, "ok"})
		if err == nil {
			t.Errorf("%q: no error", tt.arg)
			continue
		}
		msg := err.Error()
		if !strings.Contains(msg, "argument 2 (") || !strings.Contains(msg, tt.why) || strings.ContainsAny(msg, "\r\n\x00") {
			t.Errorf("%q: %q, want one line naming argument 2 and %s", tt.arg, msg, tt.why)
		}
	}
	if _, err := batchCommandLine(testComspec, "C:\\x\n\\s.cmd", nil); err == nil || !strings.Contains(err.Error(), "the batch file's path") {
		t.Errorf("a path with a line feed: %v", err)
	}
}

// The simulator must be able to fail: lines quoted the way os/exec quotes
// for ordinary programs, or missing a switch, are caught.
func TestViewBatchLineCatchesUnsafeLines(t *testing.T) {
	const pre = `"C:\Windows\System32\cmd.exe" /d /e:on /v:off /s /c `
	tests := []struct {
		line     string
		expanded []string
		unquoted string
		argv     []string
	}{
		{line: pre + `""C:\x.cmd" a&b"`, unquoted: "a&b", argv: []string{`C:\x.cmd`, "a&b"}},
		{line: pre + `""C:\x.cmd" "%OS%""`, expanded: []string{"OS"}, argv: []string{`C:\x.cmd`, ""}},
		{line: pre + `""C:\x.cmd" "%PATH:~0,3%""`, expanded: []string{"PATH:~0,3"}, argv: []string{`C:\x.cmd`, ""}},
		{line: pre + `""C:\x.cmd" "a\"&calc&\"b""`, unquoted: `&calc&\`, argv: []string{`C:\x.cmd`, `a"&calc&"b`}},
		{line: pre + `""C:\x.cmd" "C:\dir\" "x""`, argv: []string{`C:\x.cmd`, `C:\dir" x`}},
		{line: pre + `""C:\x.cmd" "50%%cd:~,%""`, argv: []string{`C:\x.cmd`, `50%`}},
	}
	for _, tt := range tests {
		v, err := viewBatchLine(tt.line)
		if err != nil {
			t.Fatalf("%s: %v", tt.line, err)
		}
		if diff := cmp.Diff(batchView{expanded: tt.expanded, unquoted: tt.unquoted, argv: tt.argv}, v, cmp.AllowUnexported(batchView{})); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.line, diff)
		}
	}
	for _, bad := range []string{
		`"C:\Windows\System32\cmd.exe" /d /e:on /s /c ""C:\x.cmd" "!x!""`,
		`"C:\Windows\System32\cmd.exe" /d /e:on /v:off /c ""C:\x.cmd" "x""`,
		`C:\Windows\System32\cmd.exe /d /e:on /v:off /s /c ""C:\x.cmd" "x""`,
		`"C:\Windows\System32\cmd.exe" /d /e:on /v:off /s /c "C:\x.cmd" "x`,
	} {
		if _, err := viewBatchLine(bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func FuzzBatchCommandLine(f *testing.F) {
	for _, s := range []string{"a&b", `"`, `\`, `a\"`, "%OS%", "%%cd:~,%", `"&calc&"`, `x\\"y`, "^", "", "%", `\\"%"\`, "a b", "!x!"} {
		f.Add(s, "plain", `"`)
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		const bat = `C:\p q&r 100%\s.cmd`
		args := []string{a, b, c}
		if strings.ContainsAny(a+b+c, "\r\n\x00") {
			if _, err := batchCommandLine(testComspec, bat, args); err == nil {
				t.Fatalf("%q: a line break or NUL was not refused", args)
			}
			return
		}
		checkBatchLine(t, bat, args)
	})
}

func TestBatchFile(t *testing.T) {
	tests := []struct {
		path, name string
		ok         bool
	}{
		{`C:\Program Files\nodejs\npx.cmd`, `C:\Program Files\nodejs\npx.cmd`, true},
		{`C:\x\RUN.BAT`, `C:\x\RUN.BAT`, true},
		{`C:\x\run.Cmd. .`, `C:\x\run.Cmd`, true},
		{`C:\x\run.bat `, `C:\x\run.bat`, true},
		{`node_modules/.bin/server.cmd`, `node_modules/.bin/server.cmd`, true},
		{`C:\x\node.exe`, `C:\x\node.exe`, false},
		{`C:\x\run.cmdx`, `C:\x\run.cmdx`, false},
		{`C:\x.cmd\node`, `C:\x.cmd\node`, false},
		{`server`, `server`, false},
		{`/usr/bin/npx`, `/usr/bin/npx`, false},
		{`.cmd`, `.cmd`, true},
	}
	for _, tt := range tests {
		name, ok := batchFile(tt.path)
		if ok != tt.ok || (ok && name != tt.name) {
			t.Errorf("batchFile(%q) = %q, %v; want %q, %v", tt.path, name, ok, tt.name, tt.ok)
		}
	}
}
