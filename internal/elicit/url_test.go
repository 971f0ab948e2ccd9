package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCapability(t *testing.T) {
	open := func(string) error { return nil }
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"zero", Options{}, `{"form":{}}`},
		{"prompt, terminal, browser", Options{Policy: PolicyPrompt, TTY: newTTY(), OpenURL: open}, `{"form":{},"url":{}}`},
		{"no terminal", Options{Policy: PolicyPrompt, OpenURL: open}, `{"form":{}}`},
		{"no browser", Options{Policy: PolicyPrompt, TTY: newTTY()}, `{"form":{}}`},
		{"accept", Options{Policy: PolicyAccept, TTY: newTTY(), OpenURL: open}, `{"form":{}}`},
		{"decline", Options{Policy: PolicyDecline, TTY: newTTY(), OpenURL: open}, `{"form":{}}`},
	}
	for _, tt := range tests {
		got := tt.o.Capability()
		if string(got) != tt.want || !json.Valid(got) {
			t.Errorf("%s: Capability() = %s, want %s", tt.name, got, tt.want)
		}
	}
}

func urlRequest(url string) string {
	return `{"mode":"url","message":"Sign in to Acme","elicitationId":"e-1","url":` + string(marshal(url)) + `}`
}

const ask = "Open this URL in your browser? [y/N] "

func TestURLMode(t *testing.T) {
	const (
		full    = "https://auth.example.com/authorize?state=x&code=y"
		shown   = "mcpv: server \"srv\" asks you to open a URL: Sign in to Acme\nmcpv:   url:  " + full + "\nmcpv:   host: auth.example.com\n"
		refused = "mcpv: answered \"decline\" (declined at the terminal)\n"
	)
	tests := []struct {
		name           string
		url            string
		script         []string
		openErr        error
		want           string
		wantOpened     []string
		wantTranscript string
		wantDiag       string
	}{
		{name: "yes opens", url: full, script: []string{"y"}, want: `{"action":"accept"}`, wantOpened: []string{full},
			wantTranscript: ask + "y\n", wantDiag: shown + "mcpv: answered \"accept\" (opened in the browser)\n"},
		{name: "Enter declines", url: full, script: []string{""}, want: `{"action":"decline"}`,
			wantTranscript: ask + "\n", wantDiag: shown + refused},
		{name: "no declines", url: full, script: []string{"No"}, want: `{"action":"decline"}`,
			wantTranscript: ask + "No\n", wantDiag: shown + refused},
		{name: "end of input cancels", url: full, want: `{"action":"cancel"}`,
			wantTranscript: ask + "<EOF>\n", wantDiag: shown + "mcpv: answered \"cancel\" (end of input on the terminal)\n"},
		{name: "q cancels", url: full, script: []string{"q"}, want: `{"action":"cancel"}`,
			wantTranscript: ask + "q\n", wantDiag: shown + "mcpv: answered \"cancel\" (cancelled at the terminal)\n"},
		{name: "anything else asks again", url: full, script: []string{"sure", "YES"}, want: `{"action":"accept"}`, wantOpened: []string{full},
			wantTranscript: ask + "sure\n  answer y (open it), n (decline) or q (cancel)\n" + ask + "YES\n",
			wantDiag:       shown + "mcpv: answered \"accept\" (opened in the browser)\n"},
		{name: "the browser fails", url: full, script: []string{"y"}, openErr: errors.New("no display"),
			want: `{"action":"accept"}`, wantOpened: []string{full}, wantTranscript: ask + "y\n",
			wantDiag: shown + "mcpv: warning: could not open the browser (no display); open the URL above yourself\n" +
				"mcpv: answered \"accept\" (consent given; the browser did not open)\n"},
		{name: "punycode, user info and http are warned about", url: "http://paypal.com@xn--pypal-4ve.com/login", script: []string{"n"},
			want: `{"action":"decline"}`, wantTranscript: ask + "n\n",
			wantDiag: "mcpv: server \"srv\" asks you to open a URL: Sign in to Acme\n" +
				"mcpv:   url:  http://paypal.com@xn--pypal-4ve.com/login\nmcpv:   host: xn--pypal-4ve.com\n" +
				"mcpv: warning: the host xn--pypal-4ve.com is punycode for \"pаypal.com\": it may imitate a familiar name\n" +
				"mcpv: warning: the URL has user info before the host; the real host is xn--pypal-4ve.com\n" +
				"mcpv: warning: the URL is not https: what you enter there travels unencrypted\n" + refused},
		{name: "other schemes are declined unasked", url: "file:///etc/passwd", want: `{"action":"decline"}`,
			wantDiag: "mcpv: server \"srv\" asks you to open a URL: Sign in to Acme\nmcpv:   url:  file:///etc/passwd\nmcpv:   host: \n" +
				"mcpv: answered \"decline\" (mcpv opens only http and https URLs, not \"file\")\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tty := newTTY(tt.script...)
			var opened []string
			o := &Options{Policy: PolicyPrompt, TTY: tty, ServerName: "srv",
				OpenURL: func(u string) error { opened = append(opened, u); return tt.openErr }}
			got, diag, err := handle(t, o, urlRequest(tt.url))
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("result %s, want %s", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantOpened, opened); diff != "" {
				t.Errorf("opened (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantTranscript, tty.transcript()); diff != "" {
				t.Errorf("terminal (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDiag, diag); diff != "" {
				t.Errorf("diag (-want +got):\n%s", diff)
			}
		})
	}
}

func TestURLModeParamsErrors(t *testing.T) {
	open := func(string) error { t.Error("opened a URL"); return nil }
	tests := []struct {
		name   string
		o      Options
		params string
		want   string
	}{
		{"not declared: no browser", Options{Policy: PolicyPrompt, TTY: newTTY("y")}, urlRequest("https://example.com"),
			"elicitation/create: mcpv did not declare url-mode elicitation (it needs a terminal to ask on and a browser)"},
		{"not declared: accept", Options{Policy: PolicyAccept, TTY: newTTY("y"), OpenURL: open}, urlRequest("https://example.com"),
			"elicitation/create: mcpv did not declare url-mode elicitation (it needs a terminal to ask on and a browser)"},
		{"no elicitationId", Options{Policy: PolicyPrompt, TTY: newTTY("y"), OpenURL: open},
			`{"mode":"url","message":"m","url":"https://example.com"}`, "elicitation/create: url mode needs an elicitationId"},
		{"relative url", Options{Policy: PolicyPrompt, TTY: newTTY("y"), OpenURL: open}, urlRequest("/login"),
			`elicitation/create: url "/login" is not an absolute URL`},
		{"unknown mode", Options{Policy: PolicyPrompt, TTY: newTTY("y"), OpenURL: open}, `{"mode":"sms"}`,
			`elicitation/create: unsupported mode "sms" (mcpv declared {"form":{},"url":{}})`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diag, err := handle(t, &tt.o, tt.params)
			var pe *ParamsError
			if !errors.As(err, &pe) || pe.Msg != tt.want {
				t.Fatalf("error %v, want *ParamsError %q", err, tt.want)
			}
			if diag != "" {
				t.Errorf("diag %q", diag)
			}
		})
	}
}

func TestDescribeURLRequired(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"one", `{"elicitations":[{"mode":"url","elicitationId":"a","url":"https://example.com/auth","message":"Authorize GitHub access"}]}`,
			"the server needs you to open a URL first: https://example.com/auth (Authorize GitHub access)"},
		{"two, one without a message, one punycode", `{"elicitations":[{"mode":"url","elicitationId":"a","url":"https://example.com/a"},{"mode":"url","elicitationId":"b","url":"https://xn--e1afmkfd.xn--p1ai/pay","message":"Pay\nnow"}]}`,
			"the server needs you to open a URL first: https://example.com/a\n" +
				"the server needs you to open a URL first: https://xn--e1afmkfd.xn--p1ai/pay (Pay now); warning: the host xn--e1afmkfd.xn--p1ai is punycode for \"пример.рф\": it may imitate a familiar name"},
		{"empty", `{"elicitations":[]}`, "the server needs you to open a URL first, but its error names none"},
		{"no data", ``, "the server needs you to open a URL first, but its error names none"},
		{"not an object", `[1]`, "the server needs you to open a URL first, but its error names none"},
	}
	for _, tt := range tests {
		if got := DescribeURLRequired(json.RawMessage(tt.data)); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestNewTerminal(t *testing.T) {
	var out strings.Builder
	tty := NewTerminal(strings.NewReader("one\r\ntwo\n\nlast"), &out)
	var got []string
	for {
		line, err := tty.ReadLine(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, line)
	}
	if diff := cmp.Diff([]string{"one", "two", "", "last"}, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if _, err := io.WriteString(tty, "question? "); err != nil || out.String() != "question? " {
		t.Errorf("wrote %q, %v", out.String(), err)
	}
}

// gatedReader's first Read says it started, then waits for release; later
// Reads are at the end.
type gatedReader struct {
	started, release chan struct{}
	n                int
}

func (g *gatedReader) Read(p []byte) (int, error) {
	if g.n++; g.n > 1 {
		return 0, io.EOF
	}
	close(g.started)
	<-g.release
	return copy(p, "typed later\n"), nil
}

// A read that ctx abandons keeps its line for the next ReadLine.
func TestNewTerminalCancelledRead(t *testing.T) {
	g := &gatedReader{started: make(chan struct{}), release: make(chan struct{})}
	tty := NewTerminal(g, io.Discard)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := tty.ReadLine(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadLine with a cancelled ctx: %v", err)
	}
	<-g.started // the abandoned read is waiting for input
	close(g.release)
	ctx, cancel = context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	line, err := tty.ReadLine(ctx)
	if err != nil || line != "typed later" {
		t.Fatalf("ReadLine = %q, %v; want the line typed after the cancel", line, err)
	}
	if _, err := tty.ReadLine(ctx); err != io.EOF {
		t.Fatalf("ReadLine at the end = %v, want io.EOF", err)
	}
}

// A host that is not plain ASCII is warned about in whichever form it is
// written: Unicode that may imitate a familiar name, or punycode that hides
// it. Both forms are shown.
func TestHostWarning(t *testing.T) {
	for _, tt := range []struct{ host, want string }{
		{"example.com", ""},
		{"EXAMPLE.com", ""},
		{"pаypal.com", `the host "pаypal.com" is not plain ASCII (it is xn--pypal-4ve.com): it may imitate a familiar name`},
		{"xn--pypal-4ve.com", `the host xn--pypal-4ve.com is punycode for "pаypal.com": it may imitate a familiar name`},
		{"bücher.example", `the host "bücher.example" is not plain ASCII (it is xn--bcher-kva.example)`},
		{"a\u202eb.com", `the host "a\u202eb.com" is not a valid domain name`},
	} {
		got := hostWarning(tt.host)
		if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
			t.Errorf("hostWarning(%q) = %q, want %q", tt.host, got, tt.want)
		}
	}
}

// A URL elicitation of MCP 2026-07-28 comes as an input request and has no
// elicitationId: HandleInput takes it.
func TestURLModeInputRequestNeedsNoID(t *testing.T) {
	var opened string
	o := Options{Policy: PolicyPrompt, TTY: newTTY("y"), OpenURL: func(u string) error { opened = u; return nil }, Advice: testAdvice}
	got, err := o.HandleInput(context.Background(), json.RawMessage(`{"mode":"url","message":"sign in","url":"https://example.com/login"}`))
	if err != nil || string(got) != `{"action":"accept"}` || opened != "https://example.com/login" {
		t.Errorf("HandleInput = %s, %v; opened %q", got, err, opened)
	}
}
