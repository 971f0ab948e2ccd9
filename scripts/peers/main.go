// Command peers feeds the servers of a labelled corpus to other offline
// tool-poisoning scanners and measures them as scripts/audit-corpus.sh
// measures mcpv audit. scripts/peers-corpus.sh runs it:
//
//	peers prepare CORPUS WORK   write each peer's input under WORK
//	peers cisco WORK            read yara's output into WORK/findings.jsonl
//	peers ferret WORK           read ferret's report into WORK/findings.jsonl
//	peers measure [--details] CORPUS FINDINGS
//	                            print the tables of audit-corpus.sh
//
// The agent-security-scanner-mcp runner (asm.mjs) writes its
// findings.jsonl itself from WORK/asm.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: peers prepare|cisco|ferret|measure ...")
	}
	switch args[0] {
	case "prepare":
		if len(args) != 3 {
			return fmt.Errorf("usage: peers prepare CORPUS WORK")
		}
		return prepare(args[1], args[2])
	case "cisco":
		if len(args) != 2 {
			return fmt.Errorf("usage: peers cisco WORK")
		}
		return ciscoFindings(args[1])
	case "ferret":
		if len(args) != 2 {
			return fmt.Errorf("usage: peers ferret WORK")
		}
		return ferretFindings(args[1])
	case "measure":
		details := len(args) > 1 && args[1] == "--details"
		if details {
			args = args[1:]
		}
		if len(args) != 3 {
			return fmt.Errorf("usage: peers measure [--details] CORPUS FINDINGS")
		}
		return measureFindings(args[1], args[2], details)
	}
	return fmt.Errorf("no command %q", args[0])
}

type ref struct {
	Server string `json:"server"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

func prepare(corpus, work string) error {
	servers, err := readServers(corpus)
	if err != nil {
		return err
	}
	for _, d := range []string{"cisco/texts", "ferret/surface", "asm/servers"} {
		if err := os.MkdirAll(filepath.Join(work, d), 0o755); err != nil {
			return err
		}
	}
	cisco := map[string]ref{}
	ferret := map[string]ref{}
	texts, err := os.Create(filepath.Join(work, "asm", "texts.jsonl"))
	if err != nil {
		return err
	}
	defer texts.Close()
	enc := json.NewEncoder(texts)
	enc.SetEscapeHTML(false)
	for _, s := range servers {
		var tools []*node
		for _, it := range s.items {
			r := ref{it.Server, it.Kind, it.Name}
			for i, t := range ciscoTexts(it) {
				if t == "" {
					continue
				}
				f := fmt.Sprintf("%s-%d.txt", it.ID, i)
				cisco[f] = r
				if err := os.WriteFile(filepath.Join(work, "cisco", "texts", f), []byte(t), 0o644); err != nil {
					return err
				}
			}
			f := it.ID + ".md"
			ferret[f] = r
			if err := os.WriteFile(filepath.Join(work, "ferret", "surface", f), []byte(it.render()), 0o644); err != nil {
				return err
			}
			if it.Kind == "tool" {
				tools = append(tools, it.entry)
			} else if err := enc.Encode(struct {
				ref
				Text string `json:"text"`
			}{r, it.render()}); err != nil {
				return err
			}
		}
		dir := filepath.Join(work, "asm", "servers", s.name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		manifest := &node{kind: 'o', keys: []string{"name", "tools"}, vals: []*node{{kind: 's', str: s.name}, {kind: 'a', vals: tools}}}
		if err := os.WriteFile(filepath.Join(dir, "server.json"), []byte(pyDumps(manifest, 2)), 0o644); err != nil {
			return err
		}
	}
	if err := writeJSON(filepath.Join(work, "cisco", "index.json"), cisco); err != nil {
		return err
	}
	return writeJSON(filepath.Join(work, "ferret", "index.json"), ferret)
}

// ciscoTexts are the texts mcp-scanner's YARA analyzer is given for an
// item (mcpscanner/core/analyzers/static_analyzer.py, and scanner.py for
// the instructions): a tool's description, and the tool less its
// description as Python's json.dumps writes it; a prompt's name,
// description and arguments; a resource's URI, name, description, MIME
// type and the text resources/read returns; the instructions as they are.
// It reads no resource template and no prompts/get messages.
func ciscoTexts(it *item) []string {
	e := it.entry
	switch it.Kind {
	case "instructions":
		return []string{e.str}
	case "tool":
		out := []string{e.text("description")}
		if e.get("inputSchema") != nil {
			out = append(out, pyDumps(e.without("description"), 0))
		}
		return out
	case "prompt":
		t := fmt.Sprintf("Prompt Name: %s\nDescription: %s\n", it.Name, e.text("description"))
		if a := e.get("arguments"); a != nil {
			t += "Arguments: " + pyDumps(a, 2) + "\n"
		}
		return []string{t}
	case "resource":
		var parts []string
		mime := e.text("mimeType")
		if c := it.result.get("contents"); c != nil && c.kind == 'a' {
			for _, x := range c.vals {
				if mime == "" {
					mime = x.text("mimeType")
				}
				if t := x.get("text"); t != nil && t.kind == 's' {
					parts = append(parts, t.str)
				}
			}
		}
		text := strings.Join(parts, "\n")
		if mime == "" {
			mime = "application/octet-stream"
			if text != "" {
				mime = "text/plain"
			}
		}
		name := e.text("name")
		if name == "" {
			name = it.Name
		}
		t := fmt.Sprintf("Resource URI: %s\nName: %s\nDescription: %s\nMIME Type: %s\n", it.Name, name, e.text("description"), mime)
		if text != "" {
			t += "Content:\n" + text + "\n"
		}
		return []string{t}
	}
	return nil
}

// ciscoSeverity is mcp-scanner's severity of a YARA threat type
// (YARA_THREATS in mcpscanner/threats/threats.py), on mcpv's scale.
var ciscoSeverity = map[string]string{
	"PROMPT INJECTION": "high", "CODE EXECUTION": "low", "INJECTION ATTACK": "high", "CREDENTIAL HARVESTING": "high",
	"SYSTEM MANIPULATION": "high", "DATA EXFILTRATION": "high", "TOOL POISONING": "high",
}

func readIndex(path string) (map[string]ref, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var idx map[string]ref
	return idx, json.Unmarshal(data, &idx)
}

func writeFindings(work string, found []finding) error {
	f, err := os.Create(filepath.Join(work, "findings.jsonl"))
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, x := range found {
		if err := enc.Encode(x); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func ciscoFindings(work string) error {
	idx, err := readIndex(filepath.Join(work, "cisco", "index.json"))
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(work, "cisco", "yara.out"))
	if err != nil {
		return err
	}
	defer f.Close()
	yaraLine := regexp.MustCompile(`^(\S+) \[(.*)\] (\S+)$`) // a match: RULE [META] FILE
	threatType := regexp.MustCompile(`threat_type="([^"]*)"`)
	var found []finding
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		m := yaraLine.FindStringSubmatch(sc.Text())
		if m == nil {
			return fmt.Errorf("yara: a line this does not read: %q", sc.Text())
		}
		r, ok := idx[filepath.Base(m[3])]
		if !ok {
			return fmt.Errorf("yara: a file no item has: %s", m[3])
		}
		tt := ""
		if t := threatType.FindStringSubmatch(m[2]); t != nil {
			tt = t[1]
		}
		sev, ok := ciscoSeverity[tt]
		if !ok {
			sev = "info" // mcp-scanner's UNKNOWN
		}
		found = append(found, finding{Server: r.Server, Kind: r.Kind, Name: r.Name, Severity: sev, Rule: m[1], Peer: tt})
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return writeFindings(work, found)
}

func ferretFindings(work string) error {
	idx, err := readIndex(filepath.Join(work, "ferret", "index.json"))
	if err != nil {
		return err
	}
	data, err := os.ReadFile(filepath.Join(work, "ferret", "report.json"))
	if err != nil {
		return err
	}
	var report struct {
		Findings []struct {
			RuleID   string `json:"ruleId"`
			Severity string `json:"severity"`
			File     string `json:"file"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(data, &report); err != nil {
		return fmt.Errorf("ferret's report: %v", err)
	}
	var found []finding
	for _, x := range report.Findings {
		r, ok := idx[filepath.Base(x.File)]
		if !ok {
			return fmt.Errorf("ferret: a file no item has: %s", x.File)
		}
		// ferret's severities are mcpv's: critical, high, medium, low, info.
		found = append(found, finding{Server: r.Server, Kind: r.Kind, Name: r.Name, Severity: strings.ToLower(x.Severity), Rule: x.RuleID, Peer: x.Severity})
	}
	return writeFindings(work, found)
}

func measureFindings(corpus, path string, details bool) error {
	servers, err := readServers(corpus)
	if err != nil {
		return err
	}
	labels, err := readLabels(corpus, servers)
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var found []finding
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var x finding
		if err := json.Unmarshal(sc.Bytes(), &x); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		found = append(found, x)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	abs, _ := filepath.Abs(corpus)
	var b strings.Builder
	measureCorpus(servers, labels, found).write(&b, filepath.Base(filepath.Clean(abs)), details)
	fmt.Print(b.String())
	return nil
}
