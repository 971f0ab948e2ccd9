package connect

import "testing"

func TestCmdLine(t *testing.T) {
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
