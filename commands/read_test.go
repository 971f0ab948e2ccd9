package commands

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/mcp/mcptest"
)

// readContents is a resources/read result as mcpv prints it.
type readContents struct {
	Contents []struct {
		URI      string  `json:"uri"`
		MIMEType string  `json:"mimeType"`
		Text     *string `json:"text"`
		Blob     []byte  `json:"blob"` // base64 in the JSON
		Path     string  `json:"path"`
	} `json:"contents"`
}

// readJSON runs mcpv read URI against the demo server and decodes the result.
func readJSON(t *testing.T, uri string, flags ...string) readContents {
	t.Helper()
	r := mcpv(t, "", args([]string{"read", uri}, flags, demo())...)
	var res readContents
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &res) != nil || len(res.Contents) != 1 {
		t.Fatalf("read %s %q: exit %d, stdout %q, stderr %q", uri, flags, r.code, r.stdout, r.stderr)
	}
	return res
}

// read --text prints the text of the text contents, raw: exactly the text, with
// a newline added only when it does not end with one (as call --text).
func TestReadText(t *testing.T) {
	t.Parallel()
	readme := readJSON(t, "demo://readme").Contents[0]
	if readme.Text == nil || !strings.HasSuffix(*readme.Text, "\n") || !strings.Contains(*readme.Text, "# mcpv demo server") {
		t.Fatalf("demo://readme: %+v", readme)
	}
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"text ending in a newline", []string{"read", "demo://readme", "--text"}, *readme.Text},
		{"text without a newline", []string{"read", "demo://notes/42", "--text"}, "note 42\n"},
		// A blob has no text: skipped, as call --text skips image blocks.
		{"blob", []string{"read", "demo://logo.png", "--text"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, "", args(tt.args, demo())...)
			if r.code != 0 || r.stderr != "" {
				t.Errorf("exit %d, stderr %q", r.code, r.stderr)
			}
			if d := cmp.Diff(tt.want, r.stdout); d != "" {
				t.Errorf("stdout (-want +got):\n%s", d)
			}
		})
	}
}

// read --save-dir writes the blob to a file named after the URI and prints the
// result with its path in place of the blob.
func TestReadSaveDir(t *testing.T) {
	t.Parallel()
	logo := readJSON(t, "demo://logo.png").Contents[0]
	if !strings.HasPrefix(string(logo.Blob), "\x89PNG") {
		t.Fatalf("demo://logo.png: %+v", logo)
	}
	dir := filepath.Join(t.TempDir(), "images")
	saved := readJSON(t, "demo://logo.png", "--save-dir", dir).Contents[0]
	want := filepath.Join(dir, "logo.png")
	if saved.Path != want || saved.Blob != nil || saved.URI != "demo://logo.png" || saved.MIMEType != "image/png" {
		t.Errorf("saved item %+v, want path %q and no blob", saved, want)
	}
	if data, err := os.ReadFile(want); err != nil || string(data) != string(logo.Blob) {
		t.Errorf("%s: %v, same bytes as the blob: %v", want, err, string(data) == string(logo.Blob))
	}

	// Never overwritten; with --text, the path is the line.
	r := mcpv(t, "", args([]string{"read", "demo://logo.png", "--save-dir", dir, "--text"}, demo())...)
	if second := filepath.Join(dir, "logo-2.png"); r.code != 0 || r.stdout != second+"\n" {
		t.Errorf("--save-dir --text: exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, second)
	}

	// Text contents are left as they are, and nothing is written.
	empty := filepath.Join(t.TempDir(), "none")
	if text := readJSON(t, "demo://notes/7", "--save-dir", empty).Contents[0]; text.Text == nil || *text.Text != "note 7" || text.Path != "" {
		t.Errorf("text item %+v", text)
	}
	if _, err := os.Stat(empty); !os.IsNotExist(err) {
		t.Errorf("%s exists after reading a text resource: %v", empty, err)
	}
}

// A relative --save-dir is relative to mcpv's working directory, and so are
// the printed paths.
func TestReadSaveDirRelative(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.env.Cwd = t.TempDir()
	r := w.mcpv(t, "", args([]string{"read", "demo://logo.png", "--save-dir", "out", "-r", "-q", ".contents[0].path"}, demo())...)
	if want := filepath.Join("out", "logo.png") + "\n"; r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
	}
	if data, err := os.ReadFile(filepath.Join(w.env.Cwd, "out", "logo.png")); err != nil || !strings.HasPrefix(string(data), "\x89PNG") {
		t.Errorf("saved file: %v", err)
	}
}

// --text prints text and --jq filters JSON: refused together (exit 2), before
// any server is started.
func TestReadTextRefusesJq(t *testing.T) {
	t.Parallel()
	missing := []string{"--", filepath.Join(t.TempDir(), "no-such-server")}
	for _, server := range [][]string{missing, demo()} {
		r := mcpv(t, "", args([]string{"read", "demo://readme", "--text", "-q", "."}, server)...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "--text prints text and --jq filters JSON: give one of them") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", server, r.code, r.stdout, r.stderr)
		}
	}
}

// In a batch, a read --text line has the text as its result string, exactly
// (no newline added); a line that printed nothing has a null result, as for
// call --text.
func TestReadTextInBatch(t *testing.T) {
	t.Parallel()
	in := "read demo://notes/1 --text\nread demo://notes/2 -q .contents[0].text\nread demo://logo.png --text\nread demo://readme --text\n"
	r := mcpv(t, in, args([]string{"batch", "-c"}, demo())...)
	readme := readJSON(t, "demo://readme").Contents[0].Text
	want := `{"line":1,"result":"note 1"}` + "\n" +
		`{"line":2,"result":"note 2"}` + "\n" +
		`{"line":3,"result":null}` + "\n" +
		`{"line":4,"result":` + string(mustJSON(*readme)) + `}` + "\n"
	if d := cmp.Diff(want, r.stdout); d != "" || r.code != 0 {
		t.Errorf("exit %d, stderr %q; stdout (-want +got):\n%s", r.code, r.stderr, d)
	}
}

// scriptedServer is an HTTP MCP server (stateless, with tools and resources)
// that answers tools/call and resources/read with the given results.
func scriptedServer(t *testing.T, callResult, readResult string) string {
	t.Helper()
	f := mcptest.NewHTTPServer(t, mcptest.HTTPOptions{Stateless: true, Post: func(x *mcptest.Exchange) bool {
		switch x.RPCMethod {
		case "initialize":
			x.Reply(x.Result(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"scripted","version":"0"}}`))
		case "tools/call":
			x.Reply(x.Result(callResult))
		case "resources/read":
			x.Reply(x.Result(readResult))
		default:
			return false
		}
		return true
	}})
	return f.URL
}

// call --text prints a resource_link block as its URI, in its place among the
// other blocks' text; read --text prints every text item in order, skipping
// blobs (their paths with --save-dir).
func TestTextOfLinksAndMixedContents(t *testing.T) {
	t.Parallel()
	const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
	url := scriptedServer(t,
		`{"content":[
			{"type":"text","text":"found 2 files:"},
			{"type":"resource_link","uri":"file:///project/a.go","name":"a.go","mimeType":"text/x-go"},
			{"type":"image","data":"`+png+`","mimeType":"image/png"},
			{"type":"resource_link","uri":"file:///project/b%20c.md","name":"b c.md","description":"not printed"},
			{"type":"text","text":"done"}
		]}`,
		`{"contents":[
			{"uri":"demo://a","mimeType":"text/plain","text":"first"},
			{"uri":"demo://dot.png","mimeType":"image/png","blob":"`+png+`"},
			{"uri":"demo://b","text":"second\n"}
		]}`)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"call --text", []string{"call", "find", "--no-validate", "--validate-output", "off", "--text"},
			"found 2 files:\nfile:///project/a.go\nfile:///project/b%20c.md\ndone\n"},
		{"read --text", []string{"read", "demo://mixed", "--text"}, "first\nsecond\n"},
	}
	for _, tt := range cases {
		r := mcpv(t, "", args([]string{"-u", url}, tt.args)...)
		if d := cmp.Diff(tt.want, r.stdout); d != "" || r.code != 0 || r.stderr != "" {
			t.Errorf("%s: exit %d, stderr %q; stdout (-want +got):\n%s", tt.name, r.code, r.stderr, d)
		}
	}
	dir := filepath.Join(t.TempDir(), "out")
	r := mcpv(t, "", "-u", url, "read", "demo://mixed", "--text", "--save-dir", dir)
	if want := "first\n" + filepath.Join(dir, "dot.png") + "\nsecond\n"; r.code != 0 || r.stdout != want {
		t.Errorf("read --text --save-dir: exit %d, stdout %q, stderr %q; want %q", r.code, r.stdout, r.stderr, want)
	}
}
