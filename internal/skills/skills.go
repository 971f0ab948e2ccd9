// Package skills is a host's side of the skills extension
// (io.modelcontextprotocol/skills) beyond the protocol in mcp: a skill
// found by what a user calls it (the URI of its SKILL.md, or its name or
// path), loaded with its SKILL.md verified, and pulled: every file read and
// verified, then written into a directory that appears whole or not at all.
package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/mcp"
)

// Refusal is a skill that is not found, or not pulled, as asked: no skill
// of that name, a name two skills share, a pull with nothing to verify
// against, a directory in the way.
type Refusal struct{ Msg string }

func (r *Refusal) Error() string { return r.Msg }

// Find returns the entry of the skill arg names: a SKILL.md URI by
// skills/get, a name or path by skills/list.
func Find(ctx context.Context, client *mcp.Client, arg string) (Skill, error) {
	if strings.Contains(arg, "://") {
		if err := client.RequireSkills("skills/get"); err != nil {
			return Skill{}, err
		}
		return Get(ctx, client, arg)
	}
	if err := client.RequireSkills("skills/list"); err != nil {
		return Skill{}, err
	}
	var matches []json.RawMessage
	var names []string
	for p, err := range client.Walk(ctx, "skills/list", "skills", 0) {
		if err != nil {
			return Skill{}, err
		}
		for _, raw := range p.Items {
			var e struct {
				URI         string `json:"uri"`
				Frontmatter struct {
					Name string `json:"name"`
				} `json:"frontmatter"`
			}
			if json.Unmarshal(raw, &e) != nil {
				continue
			}
			root := strings.TrimSuffix(e.URI, "/SKILL.md")
			if e.Frontmatter.Name == arg || strings.HasSuffix(root, "/"+arg) {
				matches = append(matches, raw)
			}
			names = append(names, e.Frontmatter.Name)
		}
	}
	switch len(matches) {
	case 0:
		return Skill{}, &Refusal{fmt.Sprintf("the server lists no skill %s%s (a skill it does not list can be named by its SKILL.md URI)", strconv.Quote(arg), suggest.DidYouMean(arg, names))}
	case 1:
		return Parse(matches[0])
	}
	uris := make([]string, len(matches))
	for i, raw := range matches {
		uris[i] = strconv.Quote(rawjson.Key(raw, "uri"))
	}
	return Skill{}, &Refusal{fmt.Sprintf("%d skills are called %s: name one by its URI (%s)", len(matches), strconv.Quote(arg), strings.Join(uris, ", "))}
}

// Load reads the skill's SKILL.md and verifies it, digest and frontmatter,
// returning its bytes and its resources/read result. A skill with dynamic
// content has no digest to verify against: warn says so.
func Load(ctx context.Context, client *mcp.Client, skill Skill, warn func(format string, args ...any)) ([]byte, json.RawMessage, error) {
	r := Resource{URI: skill.URI}
	if !skill.Dynamic {
		r, _ = skill.Resolve("SKILL.md")
	} else {
		warn("skill %s publishes dynamic content: what is read is not verified against digests", skill.URI)
	}
	data, res, err := ReadFile(ctx, client, r)
	if err != nil {
		return nil, nil, err
	}
	if err := skill.VerifyFrontmatter(data); err != nil {
		return nil, nil, err
	}
	return data, res, nil
}

// Pulled is what a pull wrote: the skill, its directory and each file.
type Pulled struct {
	URI   string    `json:"uri"`
	Dir   string    `json:"dir"`
	Files []Written `json:"files"`
}

// Written is one file a pull wrote.
type Written struct {
	URI    string `json:"uri"`
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	Digest string `json:"digest"`
}

// Pull reads every file of the skill, each verified, then writes them
// under parent/NAME (NAME is the skill's name) in the skill's own layout.
// Nothing is written unless every file verified: the files go to a
// temporary directory beside, through no link, renamed into place at the
// end. An existing parent/NAME (a link too) is refused unless force
// replaces it: a link is removed, never followed.
func Pull(ctx context.Context, client *mcp.Client, skill Skill, parent string, force bool, warn func(format string, args ...any)) (Pulled, error) {
	if skill.Dynamic {
		return Pulled{}, &Refusal{fmt.Sprintf("skill %s publishes dynamic content, with no manifest to verify against: read its files one by one with skills read", skill.URI)}
	}
	if !safeName(skill.Name) {
		return Pulled{}, &Error{URI: skill.URI, Msg: fmt.Sprintf("the skill's name %s cannot name a directory", strconv.Quote(skill.Name))}
	}
	dest := filepath.Join(parent, skill.Name)
	if _, err := os.Lstat(dest); err == nil && !force {
		return Pulled{}, &Refusal{fmt.Sprintf("%s exists; pass --force to replace it", dest)}
	}
	// Every file is read and verified before anything is written, SKILL.md
	// (the load) first: a skill that fails there has no file read.
	skillMD, _, err := Load(ctx, client, skill, warn)
	if err != nil {
		return Pulled{}, err
	}
	files := map[string][]byte{skill.URI: skillMD}
	for _, r := range skill.Resources {
		if r.URI == skill.URI {
			continue
		}
		data, _, err := ReadFile(ctx, client, r)
		if err != nil {
			return Pulled{}, err
		}
		files[r.URI] = data
	}
	tmp, err := os.MkdirTemp(parent, "."+skill.Name+".")
	if err != nil {
		return Pulled{}, err
	}
	defer os.RemoveAll(tmp)
	list := make([]Written, 0, len(skill.Resources))
	for _, r := range skill.Resources {
		rel := skill.Rel(r)
		if !filepath.IsLocal(filepath.FromSlash(rel)) {
			return Pulled{}, &Error{URI: r.URI, Msg: "the file's path leaves the skill's directory"}
		}
		if err := (safefile.Tree{Dir: tmp}).WriteFile(filepath.FromSlash(rel), files[r.URI]); err != nil {
			return Pulled{}, err
		}
		list = append(list, Written{r.URI, filepath.Join(dest, filepath.FromSlash(rel)), r.Size, r.Digest})
	}
	if force {
		if err := os.RemoveAll(dest); err != nil {
			return Pulled{}, err
		}
	}
	if err := os.Rename(tmp, dest); err != nil {
		return Pulled{}, err
	}
	return Pulled{skill.URI, dest, list}, nil
}

// safeName reports whether a skill's name can be one directory's name.
func safeName(name string) bool {
	return name != "" && name != "." && name != ".." && filepath.IsLocal(name) && !strings.ContainsAny(name, `/\`) && safetext.Prose(name) == name
}
