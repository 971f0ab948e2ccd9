package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// severities ranks the audit's severities; an item with no finding is 0.
var severities = map[string]int{"info": 1, "low": 2, "medium": 3, "high": 4, "critical": 5}

// sources are the servers the items come from, by hand and server, as a
// client saw them: the audit's binary reads them as saved surfaces.
func sources(testdata string) (map[[2]string]server, error) {
	out := map[[2]string]server{}
	dirs, _ := filepath.Glob(filepath.Join(testdata, "corpora", "*", "labels.jsonl"))
	for _, l := range dirs {
		files, _ := filepath.Glob(filepath.Join(filepath.Dir(l), "servers", "*.json"))
		for _, f := range files {
			s, err := readServer(f)
			if err != nil {
				return nil, err
			}
			out[[2]string{filepath.Base(filepath.Dir(l)), strings.TrimSuffix(filepath.Base(f), ".json")}] = s
		}
	}
	cases := map[string]string{"field-flagged": filepath.Join(testdata, "field", "flagged.json")}
	sets, _ := filepath.Glob(filepath.Join(testdata, "redteam", "*.json"))
	for _, f := range sets {
		cases["redteam-"+strings.TrimSuffix(filepath.Base(f), ".json")] = f
	}
	for hand, f := range cases {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var cs []struct {
			ID     string `json:"id"`
			Server server `json:"server"`
		}
		if err := json.Unmarshal(data, &cs); err != nil {
			return nil, err
		}
		for _, c := range cs {
			out[[2]string{hand, c.ID}] = c.Server
		}
	}
	err := fieldServers(testdata, func(name string, s server) { out[[2]string{"field-" + name, name}] = s })
	return out, err
}

// finding is what is read of a finding of mcpv audit --format json.
type finding struct {
	Severity string `json:"severity"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

// auditAll has bin audit every server alone, two at a time, and returns
// each item's worst severity, by the item's key.
func auditAll(bin string, items []item, srcs map[[2]string]server) (map[string]int, error) {
	work, err := os.MkdirTemp("", "mcpv-reader-rules")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	wanted := map[[2]string]bool{}
	for _, it := range items {
		wanted[[2]string{it.Hand, it.Server}] = true
	}
	maps.DeleteFunc(srcs, func(k [2]string, _ server) bool { return !wanted[k] })
	keys := slices.SortedFunc(maps.Keys(srcs), func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
	found := make([][]finding, len(keys))
	errs := make([]error, len(keys))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 2 {
		wg.Go(func() {
			for i := range next {
				found[i], errs[i] = auditOne(bin, filepath.Join(work, fmt.Sprint(i)+".json"), keys[i][1], srcs[keys[i]])
			}
		})
	}
	for i := range keys {
		next <- i
	}
	close(next)
	wg.Wait()
	byServer := map[[2]string][]finding{}
	for i, k := range keys {
		if errs[i] != nil {
			return nil, fmt.Errorf("%s/%s: %v", k[0], k[1], errs[i])
		}
		byServer[k] = found[i]
	}
	worst := map[string]int{}
	for _, it := range items {
		w := 0
		for _, f := range byServer[[2]string{it.Hand, it.Server}] {
			if it.Kind == "server" || f.Kind == it.Kind && (f.Name == it.Name || it.Kind == "instructions") {
				w = max(w, severities[f.Severity])
			}
		}
		worst[key(it)] = w
	}
	return worst, nil
}

func key(it item) string { return it.Hand + "\x00" + it.Server + "\x00" + it.Kind + "\x00" + it.Name }

// auditOne writes a server as a recording (a snapshot and its responses
// file) and has bin audit it, as internal/audit's corpus harness does.
func auditOne(bin, snap, name string, s server) ([]finding, error) {
	orEmpty := func(l []json.RawMessage) []json.RawMessage {
		if l == nil {
			return []json.RawMessage{}
		}
		return l
	}
	data, _ := json.Marshal(map[string]any{"mcpvSnapshot": 1, "tools": orEmpty(s.Tools), "prompts": orEmpty(s.Prompts),
		"resourceTemplates": orEmpty(s.ResourceTemplates)})
	if err := os.WriteFile(snap, data, 0o600); err != nil {
		return nil, err
	}
	type kept struct {
		URI      string          `json:"uri"`
		Resource json.RawMessage `json:"resource,omitempty"`
		Result   json.RawMessage `json:"result,omitempty"`
	}
	type got struct {
		Name   string          `json:"name"`
		Result json.RawMessage `json:"result"`
	}
	var responses struct {
		Server struct {
			ServerInfo   json.RawMessage `json:"serverInfo"`
			Instructions *string         `json:"instructions,omitempty"`
		} `json:"server"`
		Resources []kept `json:"resources"`
		Prompts   []got  `json:"prompts,omitempty"`
	}
	responses.Server.ServerInfo, responses.Server.Instructions = s.ServerInfo, s.Instructions
	if len(responses.Server.ServerInfo) == 0 {
		responses.Server.ServerInfo = json.RawMessage(fmt.Sprintf(`{"name":%q,"version":"0"}`, name))
	}
	for _, r := range s.Resources {
		u := member(r, "uri")
		responses.Resources = append(responses.Resources, kept{u, r, s.ReadResults[u]})
	}
	for _, n := range slices.Sorted(maps.Keys(s.PromptResults)) {
		responses.Prompts = append(responses.Prompts, got{n, s.PromptResults[n]})
	}
	data, _ = json.Marshal(responses)
	if err := os.WriteFile(strings.TrimSuffix(snap, ".json")+".responses.json", data, 0o600); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute) // a hang guard
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, "audit", "--format", "json", "--fail-on", "none", snap).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return nil, fmt.Errorf("%v: %s", err, ee.Stderr)
		}
		return nil, err
	}
	var report struct{ Findings []finding }
	if err := json.Unmarshal(out, &report); err != nil {
		return nil, fmt.Errorf("the report is no JSON: %v", err)
	}
	return report.Findings, nil
}
