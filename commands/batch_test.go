package commands

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/output"
)

const batchInput = `ping
{"id":"a","method":"ping"}
# a comment, then a blank line

call echo message="hi there"
call add a:=2 b:=3 -q .structuredContent.sum
call fail reason=boom -q .content[0].text
call nope
list-tools -q [.tools[].name]
{"id":7,"method":"no/such/method"}
call add a=two b:=1
read demo://nope
watch demo://clock
{"method":"notifications/roots/list_changed"}
--timeout 1s ping
get-prompt greet name=Ann -q .messages[0].content.text
{"method":
`

func TestBatchKeepGoing(t *testing.T) {
	t.Parallel()
	r := mcpv(t, batchInput, args([]string{"batch", "--keep-going"}, demoLegacy())...)
	want := []string{
		`{"line":1,"result":{}}`,
		`{"line":2,"id":"a","result":{}}`,
		`{"line":5,"result":{"content":[{"type":"text","text":"hi there"}],"structuredContent":{"message":"hi there"}}}`,
		`{"line":6,"result":5}`,
		`{"line":7,"result":"failed: boom","exit":1}`,
		`{"line":8,"error":{"message":"the server lists no tool \"nope\" (see mcpv list-tools); nothing sent (--no-validate sends anyway)"},"exit":3}`,
		`{"line":9,"result":["add","ask","big","echo","fail","log","roots","sample","slow"]}`,
		`{"line":10,"id":7,"error":{"code":-32601,"message":"method not found: \"no/such/method\""},"exit":3}`,
		`{"line":11,"error":{"message":"argument a: \"two\" is not a number"},"exit":2}`,
		`{"line":12,"error":{"code":-32602,"message":"Resource not found","data":{"uri":"demo://nope"}},"exit":3}`,
		`{"line":13,"error":{"message":"watch cannot run in a batch"},"exit":2}`,
		`{"line":14,"result":null}`,
		`{"line":15,"error":{"message":"--timeout applies to the whole batch: give it before 'batch'"},"exit":2}`,
		`{"line":16,"result":"Say hello to Ann."}`,
		`{"line":17,"error":{"message":"not an operation: invalid JSON at byte 10: unexpected end of JSON input"},"exit":2}`,
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSpace(r.stdout), "\n")); diff != "" {
		t.Errorf("stdout (-want +got):\n%s\nstderr: %s", diff, r.stderr)
	}
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (the first failure's)", r.code)
	}
}

func TestBatchStopsAtTheFirstFailure(t *testing.T) {
	t.Parallel()
	for _, parallel := range []string{"1", "4"} {
		r := mcpv(t, "ping\ncall nope\nping\nping\n", args([]string{"batch", "--parallel", parallel}, demo())...)
		want := `{"line":1,"result":{}}` + "\n" + `{"line":2,"error":{"message":"the server lists no tool \"nope\" (see mcpv list-tools); nothing sent (--no-validate sends anyway)"},"exit":3}` + "\n"
		if r.stdout != want || r.code != 3 {
			t.Errorf("--parallel %s: exit %d, stdout %q", parallel, r.code, r.stdout)
		}
	}
	if r := mcpv(t, "ping\nping\n", args([]string{"batch"}, demo())...); r.code != 0 || strings.Count(r.stdout, "\n") != 2 {
		t.Errorf("all good: exit %d, stdout %q", r.code, r.stdout)
	}
	if r := mcpv(t, "", args([]string{"batch"}, demo())...); r.code != 0 || r.stdout != "" {
		t.Errorf("empty batch: exit %d, stdout %q", r.code, r.stdout)
	}
}

func TestBatchKeepsInputOrderInParallel(t *testing.T) {
	t.Parallel()
	in := "call slow seconds:=0.4 steps:=1 -q .content[0].text\nping\ncall echo message=third -q .structuredContent.message\n"
	r := mcpv(t, in, args([]string{"batch", "--parallel", "3"}, demo())...)
	want := `{"line":1,"result":"done after 0.4s"}` + "\n" + `{"line":2,"result":{}}` + "\n" + `{"line":3,"result":"third"}` + "\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A batch fed slowly answers each line before the next one comes.
func TestBatchStreams(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ios := output.NewStreams(inR, outW, io.Discard)
	done := make(chan int, 1)
	go func() {
		done <- run(context.Background(), args([]string{"batch"}, demo()), ios, testEnv(t))
		outW.Close()
	}()
	lines := bufio.NewReader(outR)
	for i, op := range []string{"ping", "call echo message=x -q .structuredContent.message"} {
		if _, err := io.WriteString(inW, op+"\n"); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() { l, _ := lines.ReadString('\n'); got <- l }()
		select {
		case l := <-got:
			if !strings.HasPrefix(l, `{"line":`+string(rune('1'+i))) {
				t.Fatalf("line %d: got %q", i+1, l)
			}
		case <-time.After(time.Minute):
			t.Fatalf("no result for line %d before the input ended", i+1)
		}
	}
	inW.Close()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// Ctrl-C cancels what is in flight on the wire and exits 130.
func TestBatchInterrupted(t *testing.T) {
	t.Parallel()
	tail, logPath := fakeLogged(t, "hang")
	ctx, cancel := context.WithCancelCause(context.Background())
	ios := output.NewStreams(strings.NewReader("call x\ncall x\n"), io.Discard, io.Discard)
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, args([]string{"batch", "--parallel", "2"}, tail), ios, testEnv(t))
	}()
	if !logHas(logPath, `"method":"tools/call"`) {
		t.Fatal("the calls never reached the server")
	}
	cancel(ErrInterrupted)
	select {
	case code := <-done:
		if code != 130 {
			t.Fatalf("exit %d, want 130", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the batch did not stop")
	}
	if !logHas(logPath, `"method":"notifications/cancelled"`) {
		t.Errorf("no cancellation on the wire:\n%s", readLogIfAny(logPath))
	}
}

func TestBatchOverHTTP(t *testing.T) {
	t.Parallel()
	u := demoHTTP(t, httpModes["sse"])
	r := mcpv(t, "ping\ncall add a:=1 b:=1 -q .structuredContent.sum\n", "-u", u, "batch", "--parallel", "2")
	if r.code != 0 || r.stdout != `{"line":1,"result":{}}`+"\n"+`{"line":2,"result":2}`+"\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// Neither a failure nor Ctrl-C waits for more input.
func TestBatchDoesNotWaitForInputToStop(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		first     string
		interrupt string // interrupt once the trace shows this
		want      int
	}{
		{"failure", "call nope\n", "", 3},
		{"interrupt while idle", "", `<- {"jsonrpc":"2.0","id":1,"result"`, 130}, // the session is open
		{"interrupt in flight", "call slow seconds:=30\n", `"method":"tools/call"`, 130},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inR, inW := io.Pipe() // never closed: a silent, open stdin
			defer inW.Close()
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			trace := newSignalWriter(tc.interrupt)
			done := make(chan int, 1)
			go func() {
				done <- run(ctx, args([]string{"-v", "batch"}, demo()), output.NewStreams(inR, io.Discard, trace), testEnv(t))
			}()
			if tc.first != "" {
				io.WriteString(inW, tc.first)
			}
			if tc.interrupt != "" {
				select {
				case <-trace.seen:
				case <-time.After(time.Minute):
					t.Fatalf("the trace never showed %s:\n%s", tc.interrupt, trace)
				}
				cancel(ErrInterrupted)
			}
			select {
			case code := <-done:
				if code != tc.want {
					t.Errorf("exit %d, want %d", code, tc.want)
				}
			case <-time.After(time.Minute):
				t.Fatal("the batch waited for more input")
			}
		})
	}
}

func TestBatchTextResultsAreStrings(t *testing.T) {
	t.Parallel()
	in := "call echo message=42 -r -q .content[0].text\ncall echo message=null --text\ncall echo message=42 -q .structuredContent.message\n"
	r := mcpv(t, in, args([]string{"batch"}, demo())...)
	want := `{"line":1,"result":"42"}` + "\n" + `{"line":2,"result":"null"}` + "\n" + `{"line":3,"result":"42"}` + "\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("exit %d, stdout %q", r.code, r.stdout)
	}
	if r := mcpv(t, "", args([]string{"batch", "--parallel", "5000"}, demo())...); r.code != 2 {
		t.Errorf("--parallel 5000: exit %d", r.code)
	}
}

// The output flags mean something per line, not for the batch: given
// before 'batch' they are refused before any server starts (the server
// here cannot start, which would be exit 3). --text and --jq exclude each
// other, on the command line and on a line.
func TestBatchRefusesWholeBatchOutputFlags(t *testing.T) {
	t.Parallel()
	missing := []string{"--", filepath.Join(t.TempDir(), "no-such-server")}
	for _, tt := range []struct {
		flags  []string
		errHas string
	}{
		{[]string{"-q", ".result"}, "--jq applies to each line of a batch"},
		{[]string{"-r", "-q", "."}, "--jq applies to each line of a batch"},
		{[]string{"--pretty"}, "--pretty has no effect on batch output"},
		{[]string{"--color", "always"}, "--color has no effect on batch output"},
	} {
		r := mcpv(t, "ping\n", append(append(tt.flags, "batch"), missing...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.errHas) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("%v batch: exit %d, stderr %q; want 2 and one line with %q", tt.flags, r.code, r.stderr, tt.errHas)
		}
	}
	r := mcpv(t, "", append([]string{"call", "echo", "message=hi", "--text", "-q", "."}, missing...)...)
	if r.code != 2 || !strings.Contains(r.stderr, "give one of them") {
		t.Errorf("call --text -q: exit %d, stderr %q", r.code, r.stderr)
	}
	r = mcpv(t, "call echo message=hi --text -q .\ncall echo message=hi --text\n", args([]string{"batch", "--keep-going", "-c"}, demo())...)
	want := `{"line":1,"error":{"message":"--text prints text and --jq filters JSON: give one of them (-r -q prints a string raw)"},"exit":2}` + "\n" + `{"line":2,"result":"hi"}` + "\n"
	if d := cmp.Diff(want, r.stdout); d != "" || r.code != 2 {
		t.Errorf("exit %d; stdout (-want +got):\n%s", r.code, d)
	}
}

// Which commands a batch line may run is declared next to each command
// (serverCommand, notInBatch); every command of the grammar is tried as a
// line, and those refused are the ones the README says a batch cannot run.
func TestBatchLinesOfEveryCommand(t *testing.T) {
	t.Parallel()
	app := grammar(t)
	lines := &lineParser{lines: map[string]*parsedLine{}}
	checked := 0
	var refusedPaths []string
	var visit func(n *kong.Node)
	visit = func(n *kong.Node) {
		if n.Type == kong.CommandNode && len(n.Children) == 0 {
			cmd := n.Target.Addr().Interface()
			_, server := cmd.(serverCommand)
			_, refused := cmd.(notInBatch)
			words := strings.Fields(n.Path())
			for _, p := range n.Positional {
				if p.Required {
					words = append(words, argFor(p))
				}
			}
			for _, f := range n.Flags {
				if f.Required {
					words = append(words, "--"+f.Name, argFor(f.Value))
				}
			}
			_, err := lines.parse(strings.Join(words, " "))
			isRefusal := err != nil && strings.Contains(err.Error(), "cannot run in a batch")
			if want := !server || refused; isRefusal != want {
				t.Errorf("%q: refused %v, want %v (err %v)", strings.Join(words, " "), isRefusal, want, err)
			}
			if isRefusal {
				refusedPaths = append(refusedPaths, n.Path())
			}
			checked++
		}
		for _, c := range n.Children {
			visit(c)
		}
	}
	visit(app.Node)
	if checked < 20 {
		t.Errorf("only %d commands checked", checked)
	}
	// They need no session, hold it open, open sessions of their own, or would nest.
	want := []string{"watch", "discover", "batch", "test", "pin", "diff", "audit", "search", "cost", "load", "session start", "session list", "session stop", "serve", "mock",
		"servers", "trust", "auth login", "auth status", "auth logout", "auth token", "auth wait", "completions"}
	if d := cmp.Diff(want, refusedPaths); d != "" {
		t.Errorf("commands a batch line cannot run (-want +got):\n%s", d)
	}
}

// argFor is a value the argument accepts: its first enum value, else a word.
func argFor(v *kong.Value) string {
	if e := v.EnumSlice(); len(e) > 0 && e[0] != "" {
		return e[0]
	}
	return "x"
}

// TestBatchInterleavedAnswer: a server that writes one answer into
// another (two writers not taking turns) fails the line whose answer was
// damaged, at once, whether its id came first or last, and every other
// line of the session gets its answer: none waits for its --timeout.
func TestBatchInterleavedAnswer(t *testing.T) {
	t.Parallel()
	var in strings.Builder
	for i := range 40 {
		fmt.Fprintf(&in, "call x i:=%d --no-validate\n", i)
	}
	for _, behaviour := range []string{"interleave=5", "interleave=5:tail"} {
		t.Run(behaviour, func(t *testing.T) {
			t.Parallel()
			r := mcpv(t, in.String(), args([]string{"--timeout", "3m", "batch", "--parallel", "8", "--keep-going"}, fake(behaviour))...)
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			failed, answered := 0, 0
			for _, l := range lines {
				switch {
				case strings.Contains(l, `"exit":4`) && strings.Contains(l, "the server's answer cannot be read"):
					failed++
				case strings.Contains(l, `"result":{`) && !strings.Contains(l, `"exit"`):
					answered++
				default:
					t.Errorf("line %s", l)
				}
			}
			if failed != 1 || answered != 39 || r.code != 4 {
				t.Errorf("exit %d, %d lines failed and %d answered; want 4, 1 and 39\nstdout:\n%s\nstderr:\n%s", r.code, failed, answered, r.stdout, r.stderr)
			}
		})
	}
}
