package content

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const (
	// A real 1x1 PNG.
	pngB64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
	// A real 8 kHz mono 8-bit WAV with 4 samples.
	wavB64 = "UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQQAAACAgICA"
	// "hello, blob"
	blobB64 = "aGVsbG8sIGJsb2I="
)

func mustB64(t *testing.T, s string) string {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{
			name: "tool result with mixed blocks",
			in: `{"content":[
				{"type":"text","text":"hello"},
				{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"},
				{"type":"resource","resource":{"uri":"demo://r","mimeType":"text/plain","text":"resource text"}},
				{"type":"resource","resource":{"uri":"demo://b","blob":"` + blobB64 + `"}},
				{"type":"resource_link","uri":"demo://l","name":"link","description":"not text"},
				{"type":"hologram","text":"unknown types are skipped","depth":3},
				{"type":"audio","data":"` + wavB64 + `","mimeType":"audio/wav"},
				{"type":"text","text":"bye\nsecond line, \"quoted\", caf\u00e9"}
			],"isError":false,"structuredContent":{"text":"not this"}}`,
			want: "hello\nresource text\ndemo://l\nbye\nsecond line, \"quoted\", café",
		},
		{
			name: "non-object and odd blocks are skipped",
			in:   `{"content":[1,"text",null,[],{"text":"no type"},{"type":"text","text":42},{"type":"text","text":"ok"}]}`,
			want: "ok",
		},
		{
			name: "empty content",
			in:   `{"content":[],"isError":true}`,
			want: "",
		},
		{
			name: "empty text block is a line",
			in:   `{"content":[{"type":"text","text":"a"},{"type":"text","text":""},{"type":"text","text":"b"}]}`,
			want: "a\n\nb",
		},
		{
			name: "resources/read result",
			in: `{"contents":[
				{"uri":"demo://one","mimeType":"text/markdown","text":"# one"},
				{"uri":"demo://bin","mimeType":"image/png","blob":"` + pngB64 + `"},
				{"uri":"demo://two","text":"two"}
			]}`,
			want: "# one\ntwo",
		},
		{
			name: "prompts/get result",
			in: `{"description":"a prompt","messages":[
				{"role":"user","content":{"type":"text","text":"question"}},
				{"role":"assistant","content":{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"}},
				{"role":"assistant","content":{"type":"resource","resource":{"uri":"demo://r","text":"embedded"}}},
				{"role":"user","content":[{"type":"text","text":"from an array"}]}
			]}`,
			want: "question\nembedded\nfrom an array",
		},
		{
			name: "saved blocks show their paths",
			in: `{"content":[
				{"type":"text","text":"see"},
				{"type":"image","path":"out/content-2.png","mimeType":"image/png"},
				{"type":"resource","resource":{"uri":"demo://r","path":"out/r.bin"}},
				{"type":"hologram","path":"out/h.bin"}
			]}`,
			want: "see\nout/content-2.png\nout/r.bin\nout/h.bin",
		},
		{
			name: "saved resources/read items show their paths",
			in:   `{"contents":[{"uri":"demo://a","path":"a.png"},{"uri":"demo://b","text":"b"}]}`,
			want: "a.png\nb",
		},
		// A resource_link block is printed as its URI, in its place among the
		// other blocks' lines.
		{
			name: "links among text blocks",
			in: `{"content":[
				{"type":"text","text":"found 2 files:"},
				{"type":"resource_link","uri":"file:///a.txt","name":"a.txt","mimeType":"text/plain"},
				{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"},
				{"name":"b","uri":"file:///dir/b%20c.md","type":"resource_link","description":"the text is not printed"},
				{"type":"text","text":"done"}
			]}`,
			want: "found 2 files:\nfile:///a.txt\nfile:///dir/b%20c.md\ndone",
		},
		{
			name: "only links",
			in:   `{"content":[{"type":"resource_link","uri":"demo://one","name":"one"},{"type":"resource_link","uri":"demo://two","name":"two"}]}`,
			want: "demo://one\ndemo://two",
		},
		{
			name: "links without a string uri are skipped",
			in:   `{"content":[{"type":"resource_link","name":"no uri"},{"type":"resource_link","uri":7},{"type":"resource_link","uri":null},{"type":"resource_link","uri":"demo://ok"}]}`,
			want: "demo://ok",
		},
		{
			name: "a uri on another block type is not printed",
			in:   `{"content":[{"type":"image","uri":"demo://img","data":"` + pngB64 + `"},{"type":"text","text":"t","uri":"demo://t"}]}`,
			want: "t",
		},
		{
			name: "escaped uri is decoded",
			in:   `{"content":[{"type":"resource_link","uri":"demo://caf\u00e9?q=\"x\"","name":"n"}]}`,
			want: `demo://café?q="x"`,
		},
		{
			name: "prompts/get messages with links",
			in:   `{"messages":[{"role":"user","content":{"type":"text","text":"read this"}},{"role":"user","content":{"type":"resource_link","uri":"demo://readme","name":"readme"}}]}`,
			want: "read this\ndemo://readme",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Text([]byte(tt.in))
			if err != nil {
				t.Fatalf("Text: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Text (-want +got):\n%s", diff)
			}
		})
	}
}

// A resources/read result, as mcpv read --text and --save-dir see it: the
// text items are the text, raw and in order; blobs are skipped by Text until
// Save has written them, and then their paths take their places.
func TestReadResult(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "saved")
	in := `{"contents":[
		{"uri":"demo://readme","mimeType":"text/markdown","text":"# title\n\nbody\n"},
		{"uri":"demo://logo.png","mimeType":"image/png","blob":"` + pngB64 + `"},
		{"uri":"demo://empty","text":""},
		{"uri":"demo://data/table","mimeType":"application/json","blob":"` + blobB64 + `","_meta":{"blob":"not this"}},
		{"uri":"demo://last","text":"last"}
	],"_meta":{"contents":[]}}`
	got, err := Text([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("# title\n\nbody\n\n\nlast", got); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
	saved, paths, err := Save([]byte(in), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	logo, table := filepath.Join(dir, "logo.png"), filepath.Join(dir, "table.json")
	if diff := cmp.Diff([]string{logo, table}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	want := strings.NewReplacer(
		`"blob":"`+pngB64+`"`, `"path":`+string(quote(logo)),
		`"blob":"`+blobB64+`"`, `"path":`+string(quote(table)),
	).Replace(in)
	if diff := cmp.Diff(want, string(saved)); diff != "" {
		t.Errorf("Save (-want +got):\n%s", diff)
	}
	for p, b64 := range map[string]string{logo: pngB64, table: blobB64} {
		checkInside(t, dir, p)
		if data, err := os.ReadFile(p); err != nil || string(data) != mustB64(t, b64) {
			t.Errorf("%s: %q, %v", p, data, err)
		}
	}
	after, err := Text(saved)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("# title\n\nbody\n\n"+logo+"\n\n"+table+"\nlast", after); diff != "" {
		t.Errorf("Text after Save (-want +got):\n%s", diff)
	}
	// A second read into the same directory never overwrites the first.
	_, paths2, err := Save([]byte(in), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Join(dir, "logo-2.png"), filepath.Join(dir, "table-2.json")}, paths2); diff != "" {
		t.Errorf("second Save paths (-want +got):\n%s", diff)
	}
}

func TestTextNotAResult(t *testing.T) {
	for _, in := range []string{
		``,
		`null`,
		`[]`,
		`"content"`,
		`{}`,
		`{"result":{"content":[]}}`,
		`{"content":"text"}`,
		`{"content":null,"contents":{},"messages":"x"}`,
		`{"content":[`,
		`{"content":[]} trailing`,
	} {
		if got, err := Text([]byte(in)); err == nil {
			t.Errorf("Text(%q) = %q, want an error", in, got)
		}
		if got, paths, err := Save([]byte(in), t.TempDir(), ""); err == nil {
			t.Errorf("Save(%q) = %q, %q, want an error", in, got, paths)
		}
	}
}

// checkInside fails the test when p is not a file directly in dir.
func checkInside(t *testing.T, dir, p string) {
	t.Helper()
	rel, err := filepath.Rel(dir, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		t.Errorf("path %q escapes %q (rel %q, %v)", p, dir, rel, err)
	}
	if filepath.Dir(p) != filepath.Clean(dir) {
		t.Errorf("path %q is not directly in %q", p, dir)
	}
	if base := filepath.Base(p); len(base) > 100 || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "-") {
		t.Errorf("bad file name %q", base)
	}
}

// dirFiles returns name → content of the files in dir (nil if dir is missing).
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

// jsonInner is s JSON-encoded without the quotes, to put a path into an
// expected JSON text.
func jsonInner(s string) string {
	q := string(quote(s))
	return q[1 : len(q)-1]
}

func TestSave(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct {
		name     string
		existing map[string]string // files in dir before Save
		in       string
		want     string   // rewritten JSON; DIR stands for the directory
		paths    []string // file names
		files    map[string]string
	}{
		{
			name: "image and audio blocks, members and order kept byte for byte",
			in: `{ "content" : [
  {"type":"text","text":"caption \u00e9"},
  {"annotations":{"audience":["user"],"priority":0.5},"type":"image",  "data" :  "` + pngB64 + `" , "mimeType":"image/png","_meta":{"k":[1,2.50,{"data":"x"}]}},
  {"type":"audio","mimeType":"audio/wav; rate=8000","data":"` + wavB64 + `"}
], "structuredContent":{"data":"not a block"}, "isError":false }`,
			want: `{ "content" : [
  {"type":"text","text":"caption \u00e9"},
  {"annotations":{"audience":["user"],"priority":0.5},"type":"image",  "path" :  "DIR/content-2.png" , "mimeType":"image/png","_meta":{"k":[1,2.50,{"data":"x"}]}},
  {"type":"audio","mimeType":"audio/wav; rate=8000","path":"DIR/content-3.wav"}
], "structuredContent":{"data":"not a block"}, "isError":false }`,
			paths: []string{"content-2.png", "content-3.wav"},
			files: map[string]string{"content-2.png": pngB64, "content-3.wav": wavB64},
		},
		{
			name: "resource blobs with nasty uris",
			in: `{"contents":[
{"uri":"file:///etc/../../passwd","mimeType":"text/plain","blob":"` + blobB64 + `"},
{"uri":"x://a/b/..","mimeType":"application/pdf","blob":"` + blobB64 + `"},
{"uri":"demo://res/ïmage name.png","blob":"` + pngB64 + `","mimeType":"image/png"},
{"uri":"demo://res/` + long + `.png","blob":"` + pngB64 + `"},
{"uri":"demo://res/` + long + `","blob":"` + blobB64 + `"},
{"uri":"demo://res/..%2F..%2Fetc%2Fshadow","blob":"` + blobB64 + `"},
{"uri":"demo://res/..\\..\\win.ini","blob":"` + blobB64 + `"},
{"uri":"demo://res/-rf?x=../../y#../z","mimeType":"application/x-hologram","blob":"` + blobB64 + `"},
{"uri":"demo://res/dir/","mimeType":"application/json","blob":"` + blobB64 + `"},
{"uri":"...","blob":"` + blobB64 + `"},
{"blob":"` + blobB64 + `","mimeType":"image/webp"},
{"uri":"demo://text","text":"not binary"}
]}`,
			want: `{"contents":[
{"uri":"file:///etc/../../passwd","mimeType":"text/plain","path":"DIR/passwd.txt"},
{"uri":"x://a/b/..","mimeType":"application/pdf","path":"DIR/content-2.pdf"},
{"uri":"demo://res/ïmage name.png","path":"DIR/_mage_name.png","mimeType":"image/png"},
{"uri":"demo://res/` + long + `.png","path":"DIR/` + long[:96] + `.png"},
{"uri":"demo://res/` + long + `","path":"DIR/` + long[:96] + `.bin"},
{"uri":"demo://res/..%2F..%2Fetc%2Fshadow","path":"DIR/_.._etc_shadow.bin"},
{"uri":"demo://res/..\\..\\win.ini","path":"DIR/_.._win.ini"},
{"uri":"demo://res/-rf?x=../../y#../z","mimeType":"application/x-hologram","path":"DIR/rf.bin"},
{"uri":"demo://res/dir/","mimeType":"application/json","path":"DIR/dir.json"},
{"uri":"...","path":"DIR/content-10.bin"},
{"path":"DIR/content-11.webp","mimeType":"image/webp"},
{"uri":"demo://text","text":"not binary"}
]}`,
			paths: []string{"passwd.txt", "content-2.pdf", "_mage_name.png", long[:96] + ".png", long[:96] + ".bin",
				"_.._etc_shadow.bin", "_.._win.ini", "rf.bin", "dir.json", "content-10.bin", "content-11.webp"},
			files: map[string]string{"passwd.txt": blobB64, "content-2.pdf": blobB64, "_mage_name.png": pngB64,
				long[:96] + ".png": pngB64, long[:96] + ".bin": blobB64, "_.._etc_shadow.bin": blobB64,
				"_.._win.ini": blobB64, "rf.bin": blobB64, "dir.json": blobB64, "content-10.bin": blobB64,
				"content-11.webp": blobB64},
		},
		{
			name:  "embedded resource blob: path goes into the resource",
			in:    `{"content":[{"type":"resource","resource":{"uri":"demo://docs/report.pdf","blob":"` + blobB64 + `","mimeType":"application/pdf"},"annotations":{"priority":1}},{"type":"resource","resource":{"uri":"demo://t","text":"t"}}]}`,
			want:  `{"content":[{"type":"resource","resource":{"uri":"demo://docs/report.pdf","path":"DIR/report.pdf","mimeType":"application/pdf"},"annotations":{"priority":1}},{"type":"resource","resource":{"uri":"demo://t","text":"t"}}]}`,
			paths: []string{"report.pdf"},
			files: map[string]string{"report.pdf": blobB64},
		},
		{
			name:  "prompt messages",
			in:    `{"messages":[{"role":"user","content":{"type":"text","text":"look"}},{"role":"user","content":{"type":"image","data":"` + pngB64 + `","mimeType":"image/jpeg"}},{"role":"assistant","content":{"type":"resource","resource":{"uri":"demo://s.mp3","blob":"` + wavB64 + `"}}}]}`,
			want:  `{"messages":[{"role":"user","content":{"type":"text","text":"look"}},{"role":"user","content":{"type":"image","path":"DIR/content-2.jpg","mimeType":"image/jpeg"}},{"role":"assistant","content":{"type":"resource","resource":{"uri":"demo://s.mp3","path":"DIR/s.mp3"}}}]}`,
			paths: []string{"content-2.jpg", "s.mp3"},
			files: map[string]string{"content-2.jpg": pngB64, "s.mp3": wavB64},
		},
		{
			name:     "existing files are never overwritten",
			existing: map[string]string{"content-1.png": "old", "content-1-2.png": "older", "a.bin": "mine"},
			in:       `{"content":[{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"},{"type":"resource","resource":{"uri":"demo://x/a.bin","blob":"` + blobB64 + `"}},{"type":"resource","resource":{"uri":"demo://y/a.bin","blob":"` + pngB64 + `"}}]}`,
			want:     `{"content":[{"type":"image","path":"DIR/content-1-3.png","mimeType":"image/png"},{"type":"resource","resource":{"uri":"demo://x/a.bin","path":"DIR/a-2.bin"}},{"type":"resource","resource":{"uri":"demo://y/a.bin","path":"DIR/a-3.bin"}}]}`,
			paths:    []string{"content-1-3.png", "a-2.bin", "a-3.bin"},
			files: map[string]string{"content-1.png": base64.StdEncoding.EncodeToString([]byte("old")),
				"content-1-2.png": base64.StdEncoding.EncodeToString([]byte("older")),
				"a.bin":           base64.StdEncoding.EncodeToString([]byte("mine")),
				"content-1-3.png": pngB64, "a-2.bin": blobB64, "a-3.bin": pngB64},
		},
		{
			name:  "escaped base64 and empty data",
			in:    `{"content":[{"type":"image","data":"aGVsbG8\/Pz4=\r\n","mimeType":"image/gif"},{"type":"audio","data":"","mimeType":"audio/mpeg"}]}`,
			want:  `{"content":[{"type":"image","path":"DIR/content-1.gif","mimeType":"image/gif"},{"type":"audio","path":"DIR/content-2.mp3","mimeType":"audio/mpeg"}]}`,
			paths: []string{"content-1.gif", "content-2.mp3"},
			files: map[string]string{"content-1.gif": "aGVsbG8/Pz4=", "content-2.mp3": ""},
		},
		{
			name:  "nothing binary: unchanged, no files",
			in:    `{"content":[{"type":"text","text":"x"},{"type":"image","mimeType":"image/png"},{"type":"resource_link","uri":"demo://a","name":"a"},{"type":"hologram","data":"` + pngB64 + `"}]}`,
			want:  `{"content":[{"type":"text","text":"x"},{"type":"image","mimeType":"image/png"},{"type":"resource_link","uri":"demo://a","name":"a"},{"type":"hologram","data":"` + pngB64 + `"}]}`,
			paths: nil,
			files: nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out") // does not exist yet
			if tt.existing != nil {
				if err := os.Mkdir(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				for name, data := range tt.existing {
					if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, paths, err := Save([]byte(tt.in), dir, "")
			if err != nil {
				t.Fatalf("Save: %v", err)
			}
			want := strings.ReplaceAll(tt.want, "DIR", jsonInner(dir))
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("rewritten JSON (-want +got):\n%s", diff)
			}
			if !json.Valid(got) {
				t.Errorf("rewritten JSON is not valid: %s", got)
			}
			var wantPaths []string
			for _, name := range tt.paths {
				wantPaths = append(wantPaths, filepath.Join(dir, name))
			}
			if diff := cmp.Diff(wantPaths, paths); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
			for _, p := range paths {
				checkInside(t, dir, p)
			}
			var wantFiles map[string]string
			for name, b64 := range tt.files {
				if wantFiles == nil {
					wantFiles = map[string]string{}
				}
				wantFiles[name] = mustB64(t, b64)
			}
			if diff := cmp.Diff(wantFiles, dirFiles(t, dir)); diff != "" {
				t.Errorf("files in dir (-want +got):\n%s", diff)
			}
			for _, p := range paths {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if perm := fi.Mode().Perm(); perm&^0o644 != 0 || perm&0o600 != 0o600 {
					t.Errorf("%s has mode %v, want 0644 less the umask", p, perm)
				}
			}
		})
	}
}

func TestSavePNGIsReal(t *testing.T) {
	dir := t.TempDir()
	_, paths, err := Save([]byte(`{"content":[{"type":"image","data":"`+pngB64+`","mimeType":"image/png"}]}`), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("saved file is not a PNG: %v", err)
	}
	if diff := cmp.Diff([2]int{1, 1}, [2]int{cfg.Width, cfg.Height}); diff != "" {
		t.Errorf("PNG size (-want +got):\n%s", diff)
	}
}

func TestSaveErrors(t *testing.T) {
	tests := []struct {
		name, in string
		wantErr  []string // substrings of the error
	}{
		{
			name:    "bad base64 after a good block",
			in:      `{"content":[{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"},{"type":"image","data":"not*base64!","mimeType":"image/png"}]}`,
			wantErr: []string{"content block 2 (image)", "data", "base64"},
		},
		{
			name:    "truncated base64",
			in:      `{"content":[{"type":"audio","data":"` + wavB64[:len(wavB64)-3] + `","mimeType":"audio/wav"}]}`,
			wantErr: []string{"content block 1 (audio)", "base64"},
		},
		{
			name:    "data is not a string",
			in:      `{"content":[{"type":"image","data":12,"mimeType":"image/png"}]}`,
			wantErr: []string{"content block 1 (image)", "not a string"},
		},
		{
			name:    "bad resource blob",
			in:      `{"contents":[{"uri":"demo://a.png","blob":"` + pngB64 + `"},{"uri":"demo://b.png","blob":"@@@@"}]}`,
			wantErr: []string{`contents item 2 "demo://b.png"`, "blob", "base64"},
		},
		{
			name:    "bad embedded blob",
			in:      `{"content":[{"type":"resource","resource":{"uri":"demo://c","blob":"a"}}]}`,
			wantErr: []string{`content block 1 (resource) "demo://c"`, "blob"},
		},
		{
			name:    "bad blob in a prompt",
			in:      `{"messages":[{"role":"user","content":{"type":"image","data":"====","mimeType":"image/png"}}]}`,
			wantErr: []string{"message 1 content (image)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			got, paths, err := Save([]byte(tt.in), dir, "")
			if err == nil {
				t.Fatalf("Save = %s, %q; want an error", got, paths)
			}
			for _, s := range tt.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not contain %q", err, s)
				}
			}
			if got != nil || paths != nil {
				t.Errorf("Save returned %q, %q with the error", got, paths)
			}
			if diff := cmp.Diff(map[string]string{}, dirFiles(t, dir)); diff != "" {
				t.Errorf("files left behind (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSaveRelativeDir(t *testing.T) {
	tmp := t.TempDir()
	in := `{"content":[{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"}]}`
	tests := []struct {
		dir, want string
	}{
		{"out/img", "out/img/content-1.png"},
		{"", "content-1.png"},
		{".", "content-1-2.png"},
		{"./out/img/", "out/img/content-1-2.png"},
	}
	for _, tt := range tests {
		got, paths, err := Save([]byte(in), tt.dir, tmp)
		if err != nil {
			t.Fatalf("Save(dir %q): %v", tt.dir, err)
		}
		want := []string{filepath.FromSlash(tt.want)}
		if diff := cmp.Diff(want, paths); diff != "" {
			t.Errorf("Save(dir %q) paths (-want +got):\n%s", tt.dir, diff)
		}
		if diff := cmp.Diff(`{"content":[{"type":"image","path":"`+jsonInner(want[0])+`","mimeType":"image/png"}]}`, string(got)); diff != "" {
			t.Errorf("Save(dir %q) (-want +got):\n%s", tt.dir, diff)
		}
		d := tt.dir
		if d == "" {
			d = "."
		}
		checkInside(t, d, paths[0])
		if _, err := os.Stat(filepath.Join(tmp, want[0])); err != nil {
			t.Error(err)
		}
	}
}

func TestTextAfterSave(t *testing.T) {
	dir := t.TempDir()
	in := `{"content":[
		{"type":"text","text":"Here is the chart:"},
		{"type":"image","data":"` + pngB64 + `","mimeType":"image/png"},
		{"type":"resource","resource":{"uri":"demo://data/table.json","mimeType":"application/json","blob":"` + blobB64 + `"}},
		{"type":"resource","resource":{"uri":"demo://notes","text":"notes"}},
		{"type":"resource_link","uri":"demo://elsewhere","name":"elsewhere"},
		{"type":"audio","data":"` + wavB64 + `","mimeType":"audio/wav"}
	]}`
	before, err := Text([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff("Here is the chart:\nnotes\ndemo://elsewhere", before); diff != "" {
		t.Errorf("Text before Save (-want +got):\n%s", diff)
	}
	saved, paths, err := Save([]byte(in), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	after, err := Text(saved)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"Here is the chart:",
		filepath.Join(dir, "content-2.png"),
		filepath.Join(dir, "table.json"),
		"notes",
		"demo://elsewhere",
		filepath.Join(dir, "content-6.wav"),
	}, "\n")
	if diff := cmp.Diff(want, after); diff != "" {
		t.Errorf("Text after Save (-want +got):\n%s", diff)
	}
	// Saving again finds nothing left to save.
	again, paths2, err := Save(saved, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, saved) || paths2 != nil {
		t.Errorf("second Save changed the result: %s, %q", again, paths2)
	}
	if len(paths) != 3 {
		t.Errorf("paths = %q, want 3", paths)
	}
}

func TestFileNameSafety(t *testing.T) {
	uris := []string{
		"", "/", "//", ".", "..", "...", "../..", "x://a/b/..", "x://a/b/../", "file:///etc/../../passwd",
		"demo://%2e%2e", "demo://a/%2e%2e%2f%2e%2e%2fx", "demo://a/..%5c..%5cx", "demo://a/%00", "demo://a/%zz",
		"demo://a/\x00\xff\xfe", "C:\\Windows\\system32", "demo://a/-", "demo://a/.-.-x", "demo://a/x.",
		"demo://a/" + strings.Repeat("é", 200), "demo://a/" + strings.Repeat("b", 99) + "." + strings.Repeat("c", 30),
		"demo://a/x." + strings.Repeat("c", 200),
	}
	dir := t.TempDir()
	var in strings.Builder
	in.WriteString(`{"contents":[`)
	for i, u := range uris {
		if i > 0 {
			in.WriteString(",")
		}
		in.WriteString(`{"uri":` + string(quote(u)) + `,"blob":"` + blobB64 + `"}`)
	}
	in.WriteString(`]}`)
	out, paths, err := Save([]byte(in.String()), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(out) {
		t.Errorf("invalid JSON: %s", out)
	}
	if len(paths) != len(uris) {
		t.Fatalf("got %d paths for %d uris", len(paths), len(uris))
	}
	for i, p := range paths {
		checkInside(t, dir, p)
		base := filepath.Base(p)
		if base != sanitize(base) {
			t.Errorf("uri %q: name %q has unsafe characters", uris[i], base)
		}
	}
	names := make([]string, 0, len(paths))
	for name := range dirFiles(t, dir) {
		names = append(names, name)
	}
	sort.Strings(names)
	var want []string
	for _, p := range paths {
		want = append(want, filepath.Base(p))
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestExtension(t *testing.T) {
	tests := []struct{ mimeType, want string }{
		{"image/png", ".png"},
		{"IMAGE/PNG", ".png"},
		{"image/jpeg", ".jpg"},
		{"image/gif", ".gif"},
		{"image/webp", ".webp"},
		{"audio/wav", ".wav"},
		{"audio/x-wav", ".wav"},
		{"audio/mpeg", ".mp3"},
		{"application/pdf", ".pdf"},
		{"application/json", ".json"},
		{"text/plain; charset=utf-8", ".txt"},
		{"image/svg+xml", ".svg"},
		{"application/x-hologram", ".bin"},
		{"", ".bin"},
		{"not a type", ".bin"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, extension(tt.mimeType)); diff != "" {
			t.Errorf("extension(%q) (-want +got):\n%s", tt.mimeType, diff)
		}
	}
}
