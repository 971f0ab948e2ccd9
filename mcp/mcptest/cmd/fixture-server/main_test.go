package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "spec.json")
	if err := os.WriteFile(spec, []byte(`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"tool":[]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		stdin     string
		code      int
		stdout    string
		stderrHas string
	}{
		{"serves", []string{spec}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n", 0,
			`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}}` + "\n", ""},
		{"no spec", nil, "", 2, "", "usage: fixture-server SPEC.json"},
		{"two specs", []string{spec, spec}, "", 2, "", "usage: fixture-server SPEC.json"},
		{"missing spec", []string{filepath.Join(t.TempDir(), "none.json")}, "", 2, "", "fixture-server: "},
		{"bad spec", []string{bad}, "", 2, "", `unknown field "tool"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.code || stdout.String() != tt.stdout || !strings.Contains(stderr.String(), tt.stderrHas) {
				t.Errorf("run = %d, stdout %q, stderr %q; want %d, %q, stderr with %q", code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderrHas)
			}
		})
	}
}
