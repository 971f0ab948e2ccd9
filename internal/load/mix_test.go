package load

import (
	"os"
	"strings"
	"testing"
)

func TestParseMix(t *testing.T) {
	ops, err := ParseMix("mix.yaml", []byte("operations:\n  - run: call echo 'message=hello world'\n    weight: 3\n  - run: list-tools\n"), os.ReadFile)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 2 || ops[0].Name != "call echo" || ops[0].Weight != 3 || ops[0].words[1] != "message=hello world" || ops[1].Name != "list-tools" || ops[1].Weight != 1 {
		t.Errorf("ops %+v", ops)
	}
	for data, want := range map[string]string{
		"[]":                           "want an object with operations",
		"operations: []":               "want operations: a list",
		"ops: []":                      `unknown key "ops"`,
		"operations:\n  - run: pong\n": `mix.yaml:2:10: unknown operation "pong"`,
		"operations:\n  - run: ping\n    weight: 0":                                       "mix.yaml:3:13: weight: want a whole number",
		"operations:\n  - run: ping\n    weigth: 2":                                       `unknown key "weigth"`,
		"operations:\n  - ping\n":                                                         "want {run: WORDS, weight: N}",
		"operations:\n  - run: call 'x\n":                                                 "mix.yaml:2:10:",
		"operations:\n  - run: ping\n    weight: 6000\n  - run: ping\n    weight: 6000\n": "add up to more than 10000",
	} {
		_, err := ParseMix("mix.yaml", []byte(data), os.ReadFile)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMix(%q) = %v; want %q", data, err, want)
		}
	}
}

func TestParseOp(t *testing.T) {
	for words, want := range map[string]string{
		"":                    "no operation",
		"call":                "want call TOOL",
		"read":                "want read URI",
		"read a b":            "want read URI",
		"ping x":              "want ping, alone",
		"list-tools x":        "list-tools, alone",
		"request":             "want request METHOD",
		"request m [1]":       "must be a JSON object",
		"get-prompt p k:=1":   "prompt arguments are strings",
		"call t =x":           "key=value",
		"call t k=@/nonexist": "nonexist",
		"tools/call":          "unknown operation",
	} {
		_, err := ParseOp(strings.Fields(words), os.ReadFile)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseOp(%q) = %v; want %q", words, err, want)
		}
	}
}
