package commands

import (
	"context"
	"os"
	"path/filepath"

	"github.com/mcpv/mcpv/internal/skills"
	"github.com/mcpv/mcpv/mcp"
)

type skillsCmd struct {
	List skillsListCmd `cmd:"" help:"List the skills the server publishes (every page)."`
	Get  skillsGetCmd  `cmd:"" help:"Print one skill's entry: its frontmatter and the manifest of its files."`
	Read skillsReadCmd `cmd:"" help:"Load a skill and print its SKILL.md, or one of its files, verified."`
	Pull skillsPullCmd `cmd:"" help:"Load a skill and write all its files, verified, into a directory."`
}

func (c *skillsCmd) Help() string {
	return `Skills are directories of instructions (a SKILL.md with YAML frontmatter, and supporting files) that a server publishes through the skills extension (io.modelcontextprotocol/skills); each file is a resource. These commands need a server that declares the extension (exit 3 otherwise).

A SKILL argument is the URI of the skill's SKILL.md (skill://pdf-processing/SKILL.md), which is looked up with skills/get, or a skill's name or path (pdf-processing, acme/billing/refunds), which is looked up in skills/list; a name two skills share is refused with both URIs.

Nothing is read ahead of need: list and get read no file. read and pull verify every file they read against the skill's entry (its size and SHA-256 digest), and SKILL.md's frontmatter field by field against the entry's; on any mismatch the content is not printed or written, and mcpv exits 4. A skill whose entry is invalid (a file outside its directory, no SKILL.md in its manifest, over 512 files or 16 MiB) is refused before any file is read. A skill with "resources": "dynamic" publishes no digests: read warns that its content is unverified, and pull refuses it.

Examples:

    $ mcpv skills list -r -q '.skills[].frontmatter.name' -- ./server
    $ mcpv skills get pdf-processing -- ./server
    $ mcpv skills read pdf-processing --text -- ./server
    $ mcpv skills read pdf-processing references/FORMS.md --text -- ./server
    $ mcpv skills pull pdf-processing ~/.claude/skills -- ./server`
}

type skillsListCmd struct{ pageFlags }

func (c *skillsListCmd) Run(ctx context.Context, s *session, out *console) error {
	return listChecked(ctx, s, out, c.pageFlags, func(c *mcp.Client) error { return c.RequireSkills("skills/list") }, "skills/list", "skills", nil)
}

type skillArg struct {
	Skill string `arg:"" name:"skill" help:"The skill: the URI of its SKILL.md, or its name or path."`
}

// find opens the session and returns the skill's entry.
func (a skillArg) find(ctx context.Context, s *session) (*mcp.Client, skills.Skill, error) {
	client, err := s.client(ctx)
	if err != nil {
		return nil, skills.Skill{}, err
	}
	skill, err := skills.Find(ctx, client, a.Skill)
	return client, skill, err
}

type skillsGetCmd struct{ skillArg }

func (c *skillsGetCmd) Run(ctx context.Context, s *session, out *console) error {
	_, skill, err := c.find(ctx, s)
	if err != nil {
		return err
	}
	return out.print(skill.Raw)
}

type skillsReadCmd struct {
	skillArg
	File    string `arg:"" optional:"" name:"file" help:"A file of the skill, by its path in the skill's directory (references/FORMS.md); SKILL.md when absent."`
	Text    bool   `name:"text" help:"Print the file's text, raw, instead of the resources/read result."`
	SaveDir string `name:"save-dir" placeholder:"DIR" help:"Write a binary file's blob to a file in DIR, as read --save-dir does."`
}

func (c *skillsReadCmd) Help() string {
	return `Loads the skill (its entry, then SKILL.md, verified) and prints the resources/read result of SKILL.md, or of FILE, which must be listed in the skill's entry and is verified too. --text prints the text alone.`
}

func (c *skillsReadCmd) Run(ctx context.Context, s *session, out *console) error {
	if err := out.flags.notWithText(c.Text); err != nil {
		return err
	}
	client, skill, err := c.find(ctx, s)
	if err != nil {
		return err
	}
	_, res, err := skills.Load(ctx, client, skill, out.warnf)
	if err != nil {
		return err
	}
	if c.File != "" && c.File != "SKILL.md" {
		r, err := skill.Resolve(c.File)
		if err != nil {
			return err
		}
		if _, res, err = skills.ReadFile(ctx, client, r); err != nil {
			return err
		}
	}
	return out.printResult(res, c.Text, c.SaveDir)
}

type skillsPullCmd struct {
	skillArg
	Dir   string `arg:"" name:"dir" help:"The directory to write the skill into, as DIR/NAME/..."`
	Force bool   `name:"force" help:"Replace DIR/NAME when it exists."`
}

func (c *skillsPullCmd) Help() string {
	return `Loads the skill and reads every file its entry lists, each verified, then writes them under DIR/NAME (NAME is the skill's name), keeping the skill's own layout: the files a coding agent reads from a skills directory. Nothing is written unless every file verified; the directory appears whole or not at all. An existing DIR/NAME is refused unless --force replaces it.

Prints {"uri","dir","files":[{"uri","path","size","digest"}]}.`
}

func (c *skillsPullCmd) Run(ctx context.Context, s *session, out *console) error {
	parent := c.Dir
	if !filepath.IsAbs(parent) {
		parent = filepath.Join(out.env.Cwd, parent)
	}
	if fi, err := os.Stat(parent); err != nil || !fi.IsDir() {
		return usageErrorf("skills pull: %s is not a directory", c.Dir)
	}
	client, skill, err := c.find(ctx, s)
	if err != nil {
		return err
	}
	pulled, err := skills.Pull(ctx, client, skill, parent, c.Force, out.warnf)
	if err != nil {
		return err
	}
	return out.print(mustJSON(pulled))
}
