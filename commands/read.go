package commands

import (
	"context"
)

type readCmd struct {
	URI     string `arg:"" name:"uri" help:"The resource's URI."`
	Text    bool   `name:"text" help:"Print the text of the resource's text contents, raw, one after another (blob contents are skipped, or their paths printed with --save-dir)."`
	SaveDir string `name:"save-dir" placeholder:"DIR" help:"Write blob contents to files in DIR (named after the URI's last segment) and print their paths instead of the base64."`
}

func (c *readCmd) Help() string {
	return `Reads the resource with resources/read and prints the result as JSON: {"contents":[...]}, each item with "text" or a base64 "blob".

--text prints the text of every text item instead, raw, one after another. --save-dir DIR writes every blob to a new file in DIR, named as call --save-dir names resource files (the URI's last segment, made safe, with an extension from the mimeType when it has none), never overwriting a file, and prints the result with "path" in place of each "blob"; with --text too, the paths are printed as lines among the text.

Examples:

    $ mcpv read file:///etc/hosts -- ./server
    $ mcpv read demo://readme --text -- ./server
    $ mcpv read demo://logo.png --save-dir images -- ./server
    $ mcpv read demo://readme -r -q '.contents[0].text' -- ./server`
}

func (c *readCmd) Run(ctx context.Context, s *session, out *console) error {
	if err := out.flags.notWithText(c.Text); err != nil {
		return err
	}
	params := mustJSON(map[string]string{"uri": c.URI})
	client, err := s.required(ctx, "resources", "resources/read")
	if err != nil {
		return err
	}
	if err := s.pinResource(ctx, client, c.URI); err != nil {
		return err
	}
	res, err := client.Call(ctx, "resources/read", params)
	if err != nil {
		return refusedName(err, "resource", c.URI, "list-resources", func() ([]string, error) {
			return listedNames(ctx, client, "resources/list", "resources", "uri")
		})
	}
	return out.printResult(res, c.Text, c.SaveDir)
}
