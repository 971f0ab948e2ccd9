package mcp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// readMessages runs a messageReader over input until it fails.
func readMessages(input string) (msgs []string, mode framing, junk []string, err error) {
	m := newMessageReader(strings.NewReader(input), 16)
	m.junk = func(line []byte) { junk = append(junk, string(line)) }
	for {
		msg, err := m.next()
		if err != nil {
			return msgs, m.mode, junk, err
		}
		msgs = append(msgs, string(msg))
	}
}

func TestMessageReader(t *testing.T) {
	tests := []struct {
		name     string
		input    string
		want     []string
		wantMode framing
		wantJunk []string
		wantErr  string // "" means the input simply ends
	}{
		{name: "lines", input: "{\"a\":1}\n[1]\r\n", want: []string{`{"a":1}`, `[1]`}, wantMode: framingLines},
		{name: "nothing", input: "", wantMode: framingUnknown},
		{name: "blank lines decide nothing", input: "\n\r\n  \n", wantMode: framingUnknown},
		{name: "headers with CRLF", input: "Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 3\r\n\r\n[1]",
			want: []string{`{"a":1}`, `[1]`}, wantMode: framingHeaders},
		{name: "headers with bare LF", input: "Content-Length: 7\n\n{\"a\":1}", want: []string{`{"a":1}`}, wantMode: framingHeaders},
		{name: "Content-Type first, any case", input: "content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:7\r\n\r\n{\"a\":1}",
			want: []string{`{"a":1}`}, wantMode: framingHeaders},
		{name: "blank lines before the first header and between messages", input: "\n\nContent-Length: 2\r\n\r\n{}\r\n\r\nContent-Length: 2\r\n\r\n[]",
			want: []string{`{}`, `[]`}, wantMode: framingHeaders},
		{name: "a body may hold newlines", input: "Content-Length: 9\r\n\r\n{\n\"a\":1\n}", want: []string{"{\n\"a\":1\n}"}, wantMode: framingHeaders},
		{name: "an empty body", input: "Content-Length: 0\r\n\r\n", want: []string{""}, wantMode: framingHeaders},
		{name: "junk first means lines", input: "starting up\nContent-Length: 2\n{}\n", want: []string{`{}`}, wantMode: framingLines,
			wantJunk: []string{"starting up", "Content-Length: 2"}},
		{name: "a header after a JSON line is junk", input: "{}\nContent-Length: 2\n", want: []string{`{}`}, wantMode: framingLines,
			wantJunk: []string{"Content-Length: 2"}},
		{name: "no Content-Length", input: "Content-Type: x\r\n\r\n{}", wantMode: framingHeaders,
			wantErr: "the server's Content-Length framing is broken: a header block without Content-Length"},
		{name: "not a number", input: "Content-Length: ten\r\n\r\n", wantMode: framingHeaders,
			wantErr: `a Content-Length that is not a length: " ten"`},
		{name: "negative", input: "Content-Length: -1\r\n\r\n", wantMode: framingHeaders, wantErr: "a Content-Length that is not a length"},
		{name: "two lengths that differ", input: "Content-Length: 1\r\nContent-Length: 2\r\n\r\n{}", wantMode: framingHeaders,
			wantErr: "two different Content-Length headers"},
		{name: "a header line without a colon", input: "Content-Length: 2\r\nbogus\r\n\r\n{}", wantMode: framingHeaders,
			wantErr: `not a header line: "bogus"`},
		{name: "a later message that is a JSON line", input: "Content-Length: 2\r\n\r\n{}{\"a\":1}\n", want: []string{`{}`}, wantMode: framingHeaders,
			wantErr: `not a header line: "{\"a\":1}"`},
		{name: "a huge length and a short body", input: "Content-Length: 9223372036854775807\r\n\r\n{}", wantMode: framingHeaders,
			wantErr: "the server's output ended after 2 of the 9223372036854775807 bytes its Content-Length announced"},
		{name: "a length beyond int64", input: "Content-Length: 99999999999999999999\r\n\r\n{}", wantMode: framingHeaders,
			wantErr: "a Content-Length that is not a length"},
		{name: "output ends inside the headers", input: "Content-Length: 2\r\nContent-Ty", wantMode: framingHeaders,
			wantErr: "the server's output ended inside a header block"},
		{name: "output ends after the headers' last line", input: "Content-Length: 2\r\n", wantMode: framingHeaders},
		{name: "endless headers", input: "Content-Length: 2\r\n" + strings.Repeat("X-Pad: "+strings.Repeat("p", 1000)+"\r\n", 70), wantMode: framingHeaders,
			wantErr: "a header block longer than 65536 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, mode, junk, err := readMessages(tt.input)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("messages (-want +got):\n%s", d)
			}
			if mode != tt.wantMode {
				t.Errorf("mode = %d, want %d", mode, tt.wantMode)
			}
			if d := cmp.Diff(tt.wantJunk, junk); d != "" {
				t.Errorf("junk (-want +got):\n%s", d)
			}
			if tt.wantErr == "" {
				if !errors.Is(err, io.EOF) {
					t.Errorf("error = %v, want EOF", err)
				}
				return
			}
			var fe *FramingError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("error = %v, want a FramingError containing %q", err, tt.wantErr)
			}
		})
	}
}

// A server that frames with headers, and writes first, is answered in its
// framing: what mcpv wrote before it knew is written again, framed, ahead
// of what follows.
func TestCommandSpeaksContentLengthBack(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs /bin/sh")
	}
	got := filepath.Join(t.TempDir(), "stdin")
	var diag bytes.Buffer
	opts := CommandOptions{Log: lineLogger(&diag), Grace: 5 * time.Second}
	opts.Path, opts.Args = "/bin/sh", []string{"-c", `IFS= read -r first; printf 'Content-Length: 8\r\n\r\n{"hi":1}'; exec cat > "$0"`, got}
	tr, err := StartCommand(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tr.Write(ctx, []byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	msg, err := tr.Read()
	if err != nil || string(msg) != `{"hi":1}` {
		t.Fatalf("Read = %q, %v; want the framed greeting", msg, err)
	}
	if err := tr.Write(ctx, []byte(`{"b":22}`)); err != nil {
		t.Fatal(err)
	}
	if err := tr.Close(ctx); err != nil { // closes stdin: cat ends
		t.Fatal(err)
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatal(err)
	}
	want := "Content-Length: 7\r\n\r\n{\"a\":1}Content-Length: 8\r\n\r\n{\"b\":22}"
	if string(b) != want {
		t.Errorf("the server read after its greeting %q, want %q", b, want)
	}
	if !strings.Contains(diag.String(), "frames its messages with Content-Length headers") {
		t.Errorf("no notice of the framing in %q", diag.String())
	}
}

// FuzzMessageReader feeds the reader arbitrary server output: it must end
// without panicking, return no more than it read, and read back exactly
// whatever frame wrote.
func FuzzMessageReader(f *testing.F) {
	for _, s := range []string{
		"{\"a\":1}\n", "Content-Length: 2\r\n\r\n{}", "Content-Type: x\r\nContent-Length: 3\r\n\r\n[1]",
		"Content-Length: 99\r\n\r\n{}", "junk\n{}\n", "\n\nContent-Length:0\n\n", "Content-Length: -5\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		msgs, _, _, _ := readMessages(string(data))
		total := 0
		for _, m := range msgs {
			total += len(m)
		}
		if total > len(data) {
			t.Fatalf("read %d bytes of messages from %d bytes of input", total, len(data))
		}
		// Any body survives framing, newlines and headers-lookalikes included.
		framed := string(frame(data)) + string(frame([]byte("{}")))
		back, mode, junk, err := readMessages(framed)
		if !errors.Is(err, io.EOF) || mode != framingHeaders || len(junk) != 0 {
			t.Fatalf("framed input read with mode %d, junk %q, error %v", mode, junk, err)
		}
		if d := cmp.Diff([]string{string(data), "{}"}, back); d != "" {
			t.Fatalf("frame did not read back (-want +got):\n%s", d)
		}
	})
}
