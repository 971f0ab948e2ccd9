package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/mcp"
)

func create(t *testing.T, mask func([]byte) []byte) (*Writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.trace.jsonl")
	w, err := Create(path, time.Now(), mask, Header{Mcpv: "v1.2.3", Args: []string{"call", "x"}})
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}

func readBack(t *testing.T, path string) []Line {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("the trace does not end with a whole line:\n%q", data[max(0, len(data)-200):])
	}
	lines, err := Read(data)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// A trace holds its header, each message, event and stderr line of each
// session in order, and the end line with the code, in a file of its
// owner's alone.
func TestWriterLines(t *testing.T) {
	w, path := create(t, nil)
	s1, s2 := w.Session(), w.Session()
	s1.Event(mcp.TransportEvent{Kind: mcp.EventStart, PID: 42, Program: "./server"})
	s1.Message(true, []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}`))
	s2.Message(true, []byte("{\n  \"jsonrpc\": \"2.0\", \"method\": \"ping\", \"id\": 7\n}"))
	s1.Message(false, []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`))
	s1.Stderr([]byte("listening \x1b[31mred\x1b[0m"))
	w.Note(0, "signal", map[string]any{"cause": "interrupted"})
	if err := w.End(3, "tools/call: no"); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	lines := readBack(t, path)
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, l.Type)
	}
	want := "trace event send send receive stderr event end"
	if got := strings.Join(kinds, " "); got != want {
		t.Fatalf("lines %q, want %q", got, want)
	}
	if lines[2].Session != 1 || lines[3].Session != 2 || string(lines[3].Message) != `{"jsonrpc":"2.0","method":"ping","id":7}` {
		t.Errorf("sessions or messages wrong: %+v %+v", lines[2], lines[3])
	}
	if lines[5].Line != "listening \x1b[31mred\x1b[0m" {
		t.Errorf("stderr line %q", lines[5].Line)
	}
	end := lines[len(lines)-1]
	if end.Code == nil || *end.Code != 3 || end.Error != "tools/call: no" {
		t.Errorf("end line %+v", end)
	}
	for i := 1; i < len(lines); i++ {
		if lines[i].T < lines[i-1].T {
			t.Errorf("t goes back at line %d: %v after %v", i+1, lines[i].T, lines[i-1].T)
		}
	}
	// Nothing after the end.
	s1.Message(false, []byte(`{"jsonrpc":"2.0","method":"late"}`))
	if n := len(readBack(t, path)); n != len(lines) {
		t.Errorf("a line after the end was written: %d lines, want %d", n, len(lines))
	}
}

// A message larger than MaxMessage is kept as its head, its size, its
// digest, its id and method; a secret the cut would split is masked
// whole, and the line stays small.
func TestMessageCut(t *testing.T) {
	secret := "sk-live-" + strings.Repeat("S", 40)
	scrub := redact.NewScrubber(nil)
	scrub.Add(secret)
	w, path := create(t, scrub.Mask)
	prefix := `{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"`
	pad := strings.Repeat("a", Head-len(prefix)-10)
	msg := []byte(prefix + pad + secret + strings.Repeat("b", 3<<20) + `"}]}}`)
	w.Session().Message(false, msg)
	w.End(0, "")
	data, _ := os.ReadFile(path)
	if len(data) > 2*Head+4096 {
		t.Errorf("the trace holds %d bytes for a cut message", len(data))
	}
	if strings.Contains(string(data), "sk-live-SS") {
		t.Errorf("the start of a secret across the cut shows")
	}
	l := readBack(t, path)[1]
	sum := sha256.Sum256(msg)
	if !l.Cut || l.Size != int64(len(msg)) || string(l.ID) != "9" || l.Message != nil {
		t.Errorf("cut line %+v", l)
	}
	var raw map[string]any
	json.Unmarshal(bytes.Split(data, []byte("\n"))[1], &raw)
	if raw["sha256"] != hex.EncodeToString(sum[:]) || !strings.HasPrefix(raw["head"].(string), prefix) {
		t.Errorf("digest or head wrong: %v %.80v", raw["sha256"], raw["head"])
	}
}

// A message that is no JSON, or not UTF-8, is kept as text.
func TestMessageNotJSON(t *testing.T) {
	w, path := create(t, nil)
	w.Session().Message(false, []byte("{\"a\":\"\xff\"}"))
	w.Session().Message(false, []byte("not json"))
	w.End(0, "")
	lines := readBack(t, path)
	if lines[1].Message != nil || lines[2].Message != nil || lines[2].Size != 8 {
		t.Errorf("lines %+v %+v", lines[1], lines[2])
	}
}

// Secrets are masked in every line: known values in messages, stderr and
// events, and members named as secrets.
func TestMasked(t *testing.T) {
	secret := "ghp_0123456789abcdefSECRET"
	scrub := redact.NewScrubber(nil)
	scrub.Add(secret)
	w, path := create(t, scrub.Mask)
	s := w.Session()
	s.Message(false, []byte(`{"jsonrpc":"2.0","id":1,"result":{"echo":"`+secret+`","api_key":"plain-value-1234"}}`))
	s.Stderr([]byte("token is " + secret))
	s.Event(mcp.TransportEvent{Kind: mcp.EventHTTP, Error: "refused " + secret})
	w.End(1, "failed with "+secret)
	data, _ := os.ReadFile(path)
	for _, leak := range []string{secret, "plain-value-1234"} {
		if strings.Contains(string(data), leak) {
			t.Errorf("the trace shows %q:\n%s", leak, data)
		}
	}
}

// A stderr line longer than MaxLine is masked before it is cut: a
// secret across the cut shows none of its start.
func TestStderrCutMasksFirst(t *testing.T) {
	secret := "ghp_0123456789abcdefSECRET"
	scrub := redact.NewScrubber(nil)
	scrub.Add(secret)
	w, path := create(t, scrub.Mask)
	line := strings.Repeat("a", MaxLine-12) + secret + strings.Repeat("b", 100)
	w.Session().Stderr([]byte(line))
	w.End(0, "")
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "ghp_") {
		t.Errorf("the start of a secret across the cut shows:\n%.200s", data[bytes.Index(data, []byte("ghp_"))-20:])
	}
	l := readBack(t, path)[1]
	if l.Type != "stderr" || !l.Cut || l.Size != int64(len(line)) || len(l.Line) > MaxLine || !strings.HasPrefix(l.Line, "aaaa") {
		t.Errorf("cut stderr line: type %s cut %v size %d, %d bytes kept", l.Type, l.Cut, l.Size, len(l.Line))
	}
}

// Past the file's bound, a line says what came after is left out, and
// only the end line follows it; the file stays within the bound.
func TestFileBound(t *testing.T) {
	w, path := create(t, nil)
	w.max = 64 << 10
	s := w.Session()
	for i := 0; i < 10000; i++ {
		s.Message(false, []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"flood"}}`))
	}
	w.End(0, "")
	data, _ := os.ReadFile(path)
	if int64(len(data)) > w.max {
		t.Errorf("the trace holds %d bytes, past its bound of %d", len(data), w.max)
	}
	lines := readBack(t, path)
	n := len(lines)
	if lines[n-2].Type != "cut" || !strings.Contains(lines[n-2].Reason, "left out") || lines[n-1].Type != "end" {
		t.Errorf("last lines %+v %+v", lines[n-2], lines[n-1])
	}
}

// halfFile writes half of the write that crosses its room, as a full
// disk does, and fails.
type halfFile struct {
	bytes.Buffer
	room      int
	truncated int
	partial   bool // a write was cut part way, not at its start
}

func (f *halfFile) Write(p []byte) (int, error) {
	if f.Len()+len(p) > f.room {
		n := max(0, f.room-f.Len())
		f.Buffer.Write(p[:n])
		f.partial = f.partial || n > 0
		return n, syscall.ENOSPC
	}
	return f.Buffer.Write(p)
}

func (f *halfFile) Truncate(size int64) error {
	f.truncated++
	f.Buffer.Truncate(int(size))
	return nil
}

func (f *halfFile) Close() error { return nil }

// A write that fails part way (a full disk) is taken back: the file
// ends with a whole line; the failure is told once, and End returns it.
// (Where the room ends at a line's end, the failing write wrote nothing
// and there is nothing to take back: the lines' lengths hold the time.)
func TestFullDiskLeavesWholeLines(t *testing.T) {
	f := &halfFile{room: 1000}
	w := newWriter(f, time.Now(), nil)
	told := 0
	w.Failed = func(error) { told++ }
	w.header(Header{Mcpv: "dev"})
	s := w.Session()
	for i := 0; i < 100; i++ {
		s.Message(true, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	}
	err := w.End(0, "")
	if want := map[bool]int{true: 1}[f.partial]; !errors.Is(err, syscall.ENOSPC) || told != 1 || f.truncated != want {
		t.Errorf("End = %v, told %d times, truncated %d times", err, told, f.truncated)
	}
	if !bytes.HasSuffix(f.Bytes(), []byte("}\n")) {
		t.Errorf("the file ends in half a line: %q", f.Bytes()[max(0, f.Len()-50):])
	}
	if _, err := Read(f.Bytes()); err != nil {
		t.Error(err)
	}
}

// Read leaves out a last line cut short (a writer killed mid-line), and
// refuses what is not a trace or a trace of another version.
func TestRead(t *testing.T) {
	good := `{"type":"trace","t":0,"version":1,"time":"x","mcpv":"dev","args":[]}` + "\n" + `{"type":"send","t":1,"session":1,"message":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n"
	lines, err := Read([]byte(good + `{"type":"rec`))
	if err != nil || len(lines) != 2 {
		t.Errorf("Read = %d lines, %v", len(lines), err)
	}
	if _, err := Read([]byte(`{"mcpvSnapshot":1}`)); err == nil {
		t.Error("a snapshot read as a trace")
	}
	if _, err := Read([]byte(strings.Replace(good, `"version":1`, `"version":2`, 1))); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("a trace of version 2: %v", err)
	}
	if _, err := Read([]byte(good + "junk\n" + good)); err == nil {
		t.Error("a junk line in the middle read")
	}
}
