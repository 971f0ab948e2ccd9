package testrun

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testreport"
)

// Files are run in parallel and reported in the order given; a cancelled
// context skips the steps, yet every file reports; emit's error ends the
// run.
func TestFiles(t *testing.T) {
	var jobs []Job
	var opened atomic.Int32
	for _, tool := range []string{"slow", "fast", "fast"} {
		step := "call " + tool
		f := readFile(t, "steps:\n  - call: "+tool+"\n")
		jobs = append(jobs, Job{File: f, Selected: f.Select(nil), Open: func(*redact.Scrubber, *slog.Logger) (Session, error) {
			opened.Add(1)
			fake := &fakeSession{answers: map[string]testfile.Outcome{step: {Value: json.RawMessage(`{}`)}}}
			if tool == "slow" {
				return slowSession{fake}, nil
			}
			return fake, nil
		}})
	}
	r := &Runner{Code: func(error) int { return 4 }, Hint: func(error) string { return "" }}
	var emitted []string
	data, took, err := r.Files(t.Context(), jobs, 3, func(fr testreport.File) error {
		emitted = append(emitted, fr.Path)
		return nil
	})
	if err != nil || len(data) != 3 || took <= 0 || opened.Load() != 3 {
		t.Fatalf("Files = %d reports, %v, %v; %d sessions", len(data), took, err, opened.Load())
	}
	for i, fr := range data {
		if fr.Path != jobs[i].File.Path || emitted[i] != fr.Path || fr.Steps[0].Status != testreport.Passed {
			t.Errorf("report %d: %s %+v, emitted %s; want %s, passed", i, fr.Path, fr.Steps, emitted[i], jobs[i].File.Path)
		}
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	data, _, err = r.Files(ctx, jobs, 2, func(testreport.File) error { return nil })
	if err != nil || len(data) != 3 {
		t.Errorf("cancelled: %d reports, %v; want every file reported", len(data), err)
	}

	stop := errors.New("the report file is gone")
	if data, _, err = r.Files(t.Context(), jobs, 1, func(testreport.File) error { return stop }); !errors.Is(err, stop) || len(data) != 1 {
		t.Errorf("emit failing: %d reports, %v", len(data), err)
	}
}

// slowSession takes a while over each step, so that the files after it
// end first.
type slowSession struct{ *fakeSession }

func (s slowSession) Run(ctx context.Context, words []string, caps map[string]json.RawMessage, stderr io.Writer) testfile.Outcome {
	time.Sleep(50 * time.Millisecond)
	return s.fakeSession.Run(ctx, words, caps, stderr)
}

func TestCIMode(t *testing.T) {
	for _, tt := range []struct {
		flag, given bool
		ci          string
		want        bool
	}{
		{false, false, "", false},
		{false, false, "true", true},
		{false, false, "1", true},
		{false, false, "FALSE", false},
		{false, false, "0", false},
		{false, true, "true", false}, // --no-ci
		{true, true, "", true},       // --ci
	} {
		if got := CIMode(tt.flag, tt.given, func(k string) string { return map[string]string{"CI": tt.ci}[k] }); got != tt.want {
			t.Errorf("CIMode(%v, %v) with CI=%q = %v, want %v", tt.flag, tt.given, tt.ci, got, tt.want)
		}
	}
}
