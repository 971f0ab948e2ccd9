package commands

import (
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/testfile"
	"github.com/mcpv/mcpv/internal/testkit"
)

// FuzzTestFile: any bytes as a test file are read without a panic or a
// hang, and every mistake is reported as FILE:LINE:COLUMN: message, at a
// place inside the file.
func FuzzTestFile(f *testing.F) {
	for _, s := range []string{
		"server: {command: [srv]}\nsteps:\n  - call: echo message=hi\n    expect: {jq: .content}\n",
		"server:\n  url: http://127.0.0.1:1/mcp\n  headers: {Authorization: Bearer ${TOKEN}}\nsteps:\n  - list-tools: -q .tools\n    capture: {n: '.tools|length'}\n  - call: {tool: t, args: {n: '{{n}}'}}\n",
		"x-a: &a {exit: 2}\nserver: {name: s}\nsteps:\n  - run: ping\n    expect: {<<: *a}\n    within: 2s\n",
		"steps:\n  - snapshot: s.json\n  - lint: {ignore: [description]}\n",
		"server: {command: x}\nsteps: [{call: 'a {{{{b}}'}, {read: 'file:///x', expect: {matches: '['}}]\n",
		"---\na: 1\n---\nb: 2\n",
		"server: {command: x}\nsteps:\n  - call: echo\n    expect: {equals-file: e.json, schema: {type: object}, error-code: -32602}\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	env := connect.Env{Environ: []string{"HOME=" + dir, "TOKEN=t"}, Cwd: dir, GOOS: runtime.GOOS}
	// A read that takes seconds is a find of the fuzzing engine, which
	// runs alone; the seeds, read in every test run beside other tests,
	// are not timed.
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "f.mcpv.yaml")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var errs testfile.Errors
		// A file's values are bounded (YAML's aliases included), and so
		// is what each byte of it costs.
		testkit.AllocBounded(t, len(data), 64<<20, 4096, func() { _, errs = testfile.Read(readOptions(env, nil, false), path) })
		if took := time.Since(start); fuzzing && took > 2*time.Second {
			t.Errorf("took %v", took)
		}
		// YAML's line breaks: \r\n, \r and \n.
		lines := strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r") + 1
		for _, e := range errs {
			if e.File != path || e.Line < 1 || e.Col < 1 || e.Line > lines+1 || e.Msg == "" {
				t.Errorf("error outside the file: %q at %d:%d: %q (%d lines)", e.File, e.Line, e.Col, e.Msg, lines)
			}
			if strings.ContainsAny(e.Msg, "\n") {
				t.Errorf("error of more than one line: %q", e.Msg)
			}
		}
	})
}
