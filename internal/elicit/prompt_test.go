package elicit

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpv/mcpv/output"
)

// fakeTTY is a scripted Terminal. Its transcript is what was written plus each
// line read, echoed as if typed, and "<EOF>" where input ended.
type fakeTTY struct {
	mu     sync.Mutex
	lines  []string
	out    strings.Builder
	cancel context.CancelFunc // when set, running out of lines cancels ctx instead of EOF

	turn    chan struct{} // Turn's semaphore
	holders int           // Turns taken and not released
	unheld  int           // ReadLines made while not exactly one Turn was held
}

func newTTY(lines ...string) *fakeTTY { return &fakeTTY{lines: lines, turn: make(chan struct{}, 1)} }

func (f *fakeTTY) Turn(ctx context.Context) (func(), error) {
	select {
	case f.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	f.mu.Lock()
	f.holders++
	f.mu.Unlock()
	return func() {
		f.mu.Lock()
		f.holders--
		f.mu.Unlock()
		<-f.turn
	}, nil
}

func (f *fakeTTY) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.Write(p)
}

func (f *fakeTTY) ReadLine(ctx context.Context) (string, error) {
	f.mu.Lock()
	if f.holders != 1 {
		f.unheld++
	}
	if len(f.lines) == 0 {
		cancel := f.cancel
		if cancel == nil {
			f.out.WriteString("<EOF>")
			f.mu.Unlock()
			return "", io.EOF
		}
		f.mu.Unlock()
		cancel()
		<-ctx.Done()
		return "", ctx.Err()
	}
	defer f.mu.Unlock()
	line := f.lines[0]
	f.lines = f.lines[1:]
	f.out.WriteString(line + "\n")
	return line, nil
}

func (f *fakeTTY) transcript() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.out.String()
}

const prefs = `{"message":"Your preferences","requestedSchema":{"type":"object","properties":{
	"name":{"type":"string","title":"Name","description":"What to call you","default":"John Doe"},
	"age":{"type":"integer","minimum":0,"maximum":120,"default":30},
	"status":{"type":"string","oneOf":[{"const":"on","title":"Active"},{"const":"off","title":"Inactive"}],"default":"on"},
	"verified":{"type":"boolean"},
	"email":{"type":"string","format":"email","description":"For receipts"}},
	"required":["email"]}}`

// The questions prefs asks, in order, as the terminal shows them.
const (
	qName     = "Name: What to call you\nname (text) [John Doe]: "
	qAge      = "age (integer, 0 to 120) [30]: "
	qStatus   = "  1) Active (on)\n  2) Inactive (off)\nstatus (choose 1-2) [on]: "
	qVerified = "verified (y/n): "
	qEmail    = "For receipts\nemail (email, required): "
	qSend     = "Send? [Y/n/decline] "
)

func TestPrompt(t *testing.T) {
	const asks = "mcpv: server \"srv\" asks: Your preferences\n"
	tests := []struct {
		name           string
		answers        map[string]string
		script         []string
		want           string
		wantTranscript string
		wantDiag       string // after the "asks" line
	}{
		{
			name:   "Enter takes defaults, numbers pick choices",
			script: []string{"", "41", "2", "n", "jo@example.com", ""},
			want:   `{"action":"accept","content":{"name":"John Doe","age":41,"status":"off","verified":false,"email":"jo@example.com"}}`,
			wantTranscript: qName + "\n" + qAge + "41\n" + qStatus + "2\n" + qVerified + "n\n" + qEmail + "jo@example.com\n" +
				`Answer: {"name":"John Doe","age":41,"status":"off","verified":false,"email":"jo@example.com"}` + "\n" + qSend + "\n",
			wantDiag: `mcpv: answered "accept" (filled by default: name)` + "\n",
		},
		{
			name:   "invalid and empty answers ask again; an optional field may stay empty",
			script: []string{"", "200", "x", "30", "", "maybe", "", "", "jo", "jo@example.com", "y"},
			want:   `{"action":"accept","content":{"name":"John Doe","age":30,"status":"on","email":"jo@example.com"}}`,
			wantTranscript: qName + "\n" +
				qAge + "200\n  invalid: age must be at most 120\n" +
				qAge + "x\n  invalid: age must be an integer\n" +
				qAge + "30\n" + qStatus + "\n" +
				qVerified + "maybe\n  invalid: verified must be true or false (or yes/no, 1/0)\n" +
				qVerified + "\n" +
				qEmail + "\n  a value is required (q cancels)\n" +
				"email (email, required): jo\n  invalid: email must be an email address (name@example.com)\n" +
				"email (email, required): jo@example.com\n" +
				`Answer: {"name":"John Doe","age":30,"status":"on","email":"jo@example.com"}` + "\n" + qSend + "y\n",
			wantDiag: `mcpv: answered "accept" (filled by default: name, status)` + "\n",
		},
		{
			name:           "end of input cancels",
			script:         []string{"Jo"},
			want:           `{"action":"cancel"}`,
			wantTranscript: qName + "Jo\n" + qAge + "<EOF>\n",
			wantDiag:       `mcpv: answered "cancel" (end of input on the terminal)` + "\n",
		},
		{
			name:           "q cancels",
			script:         []string{"Jo", " q "},
			want:           `{"action":"cancel"}`,
			wantTranscript: qName + "Jo\n" + qAge + " q \n",
			wantDiag:       `mcpv: answered "cancel" (cancelled at the terminal)` + "\n",
		},
		{
			name:    "answers given: only fields without a value are asked",
			answers: map[string]string{"name": "Jo"},
			script:  []string{"", "jo@example.com", "decline"},
			want:    `{"action":"decline"}`,
			wantTranscript: qVerified + "\n" + qEmail + "jo@example.com\n" +
				`Answer: {"name":"Jo","age":30,"status":"on","email":"jo@example.com"}` + "\n" + qSend + "decline\n",
			wantDiag: `mcpv: answered "decline" (declined at the terminal)` + "\n",
		},
		{
			name:    "an invalid answer is asked again",
			answers: map[string]string{"email": "jo@example.com", "age": "-3"},
			script:  []string{"", "yes", "q"},
			want:    `{"action":"cancel"}`,
			wantTranscript: qAge + "\n" + qVerified + "yes\n" +
				`Answer: {"name":"John Doe","age":30,"status":"on","verified":true,"email":"jo@example.com"}` + "\n" + qSend + "q\n",
			wantDiag: `mcpv: field "age" must be at least 0 (got "-3"); asking on the terminal` + "\n" +
				`mcpv: answered "cancel" (cancelled at the terminal)` + "\n",
		},
		{
			name:    "n edits every field, Enter keeps the current value",
			answers: map[string]string{"email": "jo@example.com", "verified": "yes", "age": "x"},
			script:  []string{"50", "what", "n", "", "", "", "no", "", "Y"},
			want:    `{"action":"accept","content":{"name":"John Doe","age":50,"status":"on","verified":false,"email":"jo@example.com"}}`,
			wantTranscript: "age (integer, 0 to 120) [30]: 50\n" +
				`Answer: {"name":"John Doe","age":50,"status":"on","verified":true,"email":"jo@example.com"}` + "\n" +
				qSend + "what\n  answer y (send), n (edit the answers), decline, or q (cancel)\n" +
				`Answer: {"name":"John Doe","age":50,"status":"on","verified":true,"email":"jo@example.com"}` + "\n" +
				qSend + "n\nEdit the answers (Enter keeps the value in brackets, q cancels):\n" +
				qName + "\n" + "age (integer, 0 to 120) [50]: \n" + qStatus + "\n" +
				"verified (y/n) [true]: no\n" + "For receipts\nemail (email, required) [jo@example.com]: \n" +
				`Answer: {"name":"John Doe","age":50,"status":"on","verified":false,"email":"jo@example.com"}` + "\n" + qSend + "Y\n",
			wantDiag: `mcpv: field "age" must be an integer (got "x"); asking on the terminal` + "\n" +
				`mcpv: answered "accept" (filled by default: name, status)` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tty := newTTY(tt.script...)
			o := &Options{Policy: PolicyPrompt, TTY: tty, ServerName: "srv", Answers: tt.answers}
			got, diag, err := handle(t, o, prefs)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("result\n got %s\nwant %s", got, tt.want)
			}
			if diff := cmp.Diff(tt.wantTranscript, tty.transcript()); diff != "" {
				t.Errorf("terminal (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(asks+tt.wantDiag, diag); diff != "" {
				t.Errorf("diag (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPromptMultiSelect(t *testing.T) {
	params := `{"message":"m","requestedSchema":{"type":"object","properties":{
		"tags":{"type":"array","items":{"anyOf":[{"const":"a","title":"Alpha"},{"const":"b","title":"Beta"},{"const":"c","title":"Gamma"}]},"minItems":1,"maxItems":2,"default":["b"]}}}}`
	tty := newTTY("1,2,3", "x", "gamma, 1", "")
	got, _, err := handle(t, &Options{Policy: PolicyPrompt, TTY: tty}, params)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"action":"accept","content":{"tags":["c","a"]}}`; got != want {
		t.Errorf("result %s, want %s", got, want)
	}
	q := "  1) Alpha (a)\n  2) Beta (b)\n  3) Gamma (c)\ntags (choose from 1-3, comma-separated, 1 to 2 choices) [b]: "
	want := q + "1,2,3\n  invalid: tags must have at most 2 choices\n" +
		"tags (choose from 1-3, comma-separated, 1 to 2 choices) [b]: x\n  invalid: tags must be a list of \"a\", \"b\" or \"c\"\n" +
		"tags (choose from 1-3, comma-separated, 1 to 2 choices) [b]: gamma, 1\n" +
		`Answer: {"tags":["c","a"]}` + "\n" + qSend + "\n"
	if diff := cmp.Diff(want, tty.transcript()); diff != "" {
		t.Errorf("terminal (-want +got):\n%s", diff)
	}
}

// When ctx ends while the user is being asked, nothing is answered.
func TestPromptContextCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	tty := newTTY("Jo")
	tty.cancel = cancel
	var diag strings.Builder
	o := &Options{Policy: PolicyPrompt, TTY: tty, Log: output.NewLogger(&diag)}
	got, err := o.Handle(ctx, json.RawMessage(prefs))
	if !errors.Is(err, context.Canceled) || got != nil {
		t.Fatalf("got %s, %v; want context.Canceled", got, err)
	}
	want := "mcpv: the server asks: Your preferences\nmcpv: no answer sent: context canceled\n"
	if diff := cmp.Diff(want, diag.String()); diff != "" {
		t.Errorf("diag (-want +got):\n%s", diff)
	}
	if want := qName + "Jo\n" + qAge + "\n"; tty.transcript() != want {
		t.Errorf("terminal %q, want %q", tty.transcript(), want)
	}
}

// Two requests at once take turns on the one terminal: each gets its own
// answer and confirmation, never the other's.
func TestPromptOneAtATime(t *testing.T) {
	params := `{"message":"m","requestedSchema":{"type":"object","properties":{"v":{"type":"string"}},"required":["v"]}}`
	tty := newTTY("first", "y", "second", "y")
	var wg sync.WaitGroup
	results := make([]string, 2)
	for i := range results {
		wg.Go(func() {
			o := &Options{Policy: PolicyPrompt, TTY: tty}
			got, err := o.Handle(context.Background(), json.RawMessage(params))
			if err != nil {
				t.Error(err)
			}
			results[i] = string(got)
		})
	}
	wg.Wait()
	a, b := `{"action":"accept","content":{"v":"first"}}`, `{"action":"accept","content":{"v":"second"}}`
	if !(results[0] == a && results[1] == b || results[0] == b && results[1] == a) {
		t.Errorf("results %q, want one each of %s and %s", results, a, b)
	}
	if tty.unheld > 0 {
		t.Errorf("%d reads were made without holding the terminal alone", tty.unheld)
	}
}
