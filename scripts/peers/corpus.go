package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A corpus as scripts/audit-corpus.sh reads it: CORPUS/servers/NAME.json
// (serverInfo, instructions, tools, prompts, resources, resourceTemplates,
// promptResults by prompt name, readResults by URI) and CORPUS/labels.jsonl
// (a line per item); with no labels.jsonl every item is honest.

type label struct {
	Server   string `json:"server"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
	Poisoned bool   `json:"poisoned"`
	Family   string `json:"family"`
	Where    string `json:"where"`
	Language string `json:"language"`
}

// kinds are the kinds of labels.jsonl as mcpv audit names them.
var kinds = map[string]string{"tool": "tool", "prompt": "prompt", "resource": "resource",
	"resourceTemplate": "resource template", "resource template": "resource template", "instructions": "instructions"}

type server struct {
	name  string
	root  *node
	items []*item
}

// item is one thing a client lists (or the instructions), as a peer is
// given it: its list entry, and what prompts/get or resources/read return.
type item struct {
	ID     string `json:"id"`
	Server string `json:"server"`
	Kind   string `json:"kind"` // as mcpv audit names it
	Name   string `json:"name"` // a name, a URI, a URI template; "" for instructions
	entry  *node
	result *node // prompts/get or resources/read
}

func readServers(dir string) ([]*server, error) {
	files, _ := filepath.Glob(filepath.Join(dir, "servers", "*.json"))
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(dir, "*.json"))
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no servers/*.json nor *.json", dir)
	}
	slices.Sort(files)
	var out []*server
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		root, err := parse(data)
		if err != nil || root == nil || root.kind != 'o' {
			return nil, fmt.Errorf("%s: no JSON object: %v", f, err)
		}
		s := &server{name: strings.TrimSuffix(filepath.Base(f), ".json"), root: root}
		add := func(kind, name string, entry, result *node) {
			n++
			s.items = append(s.items, &item{ID: fmt.Sprintf("i%04d", n), Server: s.name, Kind: kind, Name: name, entry: entry, result: result})
		}
		instr := root.get("instructions")
		if init := root.get("initialize"); instr == nil && init != nil {
			instr = init.get("instructions")
		}
		if instr != nil && instr.kind == 's' {
			add("instructions", "", instr, nil)
		}
		for _, l := range []struct{ list, kind, key, results string }{
			{"tools", "tool", "name", ""}, {"prompts", "prompt", "name", "promptResults"},
			{"resources", "resource", "uri", "readResults"}, {"resourceTemplates", "resource template", "uriTemplate", ""},
		} {
			list := root.get(l.list)
			if list == nil || list.kind != 'a' {
				continue
			}
			for _, e := range list.vals {
				key := e.text(l.key)
				var res *node
				if l.results != "" {
					res = root.get(l.results).get(key)
				}
				add(l.kind, key, e, res)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// keyOf is the key the audit names a resource or template by (its URI,
// its URI template) when a label names it by its name instead.
func keyOf(s *server, kind, name string) string {
	if s == nil || (kind != "resource" && kind != "resource template") {
		return name
	}
	for _, it := range s.items {
		if it.Kind == kind && it.Name == name {
			return name
		}
	}
	for _, it := range s.items {
		if it.Kind == kind && it.entry.text("name") == name && it.Name != "" {
			return it.Name
		}
	}
	return name
}

func readLabels(dir string, servers []*server) ([]label, error) {
	byName := map[string]*server{}
	for _, s := range servers {
		byName[s.name] = s
	}
	data, err := os.ReadFile(filepath.Join(dir, "labels.jsonl"))
	if os.IsNotExist(err) {
		var out []label
		for _, s := range servers {
			for _, it := range s.items {
				out = append(out, label{Server: s.name, Kind: it.Kind, Name: it.Name, Family: "none", Language: "field"})
			}
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	var out []label
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var l label
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("labels.jsonl: %v", err)
		}
		k := kinds[l.Kind]
		if k == "" {
			return nil, fmt.Errorf("labels.jsonl: a kind of item this does not know: %q", l.Kind)
		}
		l.Kind = k
		l.Name = keyOf(byName[l.Server], k, l.Name)
		out = append(out, l)
	}
	return out, sc.Err()
}

// render is an item's text as a model reads it: every value of its list
// entry and of its prompts/get or resources/read result, a line each.
func (it *item) render() string {
	if it.Kind == "instructions" {
		return it.entry.str
	}
	var b strings.Builder
	leaves(&b, it.entry, "")
	leaves(&b, it.result, "")
	return b.String()
}
