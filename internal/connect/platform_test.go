package connect

import "testing"

func TestComSpec(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"ComSpec": `C:\Windows\system32\cmd.exe`}, `C:\Windows\system32\cmd.exe`},
		{map[string]string{"SystemRoot": `D:\WINNT`}, `D:\WINNT\System32\cmd.exe`},
		{map[string]string{"ComSpec": `cmd.exe`, "SystemRoot": `C:\Windows`}, `C:\Windows\System32\cmd.exe`}, // a relative ComSpec is not trusted
		{nil, `C:\Windows\System32\cmd.exe`},
	}
	for _, tt := range tests {
		if got := comSpec(env(tt.env)); got != tt.want {
			t.Errorf("comSpec(%v) = %s, want %s", tt.env, got, tt.want)
		}
	}
	if got, want := cmdLine(`C:\Windows\System32\cmd.exe`, `"C:\Program Files\llm\llm.exe" --json & echo done`),
		`"C:\Windows\System32\cmd.exe" /d /s /c ""C:\Program Files\llm\llm.exe" --json & echo done"`; got != want {
		t.Errorf("cmdLine:\n got %s\nwant %s", got, want)
	}
}

func TestFileURI(t *testing.T) {
	tests := []struct{ path, goos, want string }{
		{"/home/me/project", "linux", "file:///home/me/project"},
		{"/Users/me/My Project", "darwin", "file:///Users/me/My%20Project"},
		{"/tmp/a#b?c", "linux", "file:///tmp/a%23b%3Fc"},
		{`C:\tools`, "windows", "file:///C:/tools"},
		{`C:\Users\me\My Project`, "windows", "file:///C:/Users/me/My%20Project"},
		{`\\fileserver\share\docs`, "windows", "file://fileserver/share/docs"},
	}
	for _, tt := range tests {
		if got := fileURI(tt.path, tt.goos); got != tt.want {
			t.Errorf("fileURI(%q, %s) = %s, want %s", tt.path, tt.goos, got, tt.want)
		}
	}
}
