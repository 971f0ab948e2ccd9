package commands

import (
	"context"
	"errors"
	"io/fs"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/mock"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/mcp"
)

type mockCmd struct {
	File      string `arg:"" name:"file" placeholder:"FILE" help:"An mcpv test snapshot: the tools, prompts and resource templates to offer."`
	Responses string `name:"responses" placeholder:"FILE" help:"The responses file, JSON or YAML (default: FILE with .responses.json for its extension, when there is one)."`
	listenFlags
}

func (c *mockCmd) Help() string {
	return `Serves a server read from files, for testing MCP clients: the tools, prompts and resource templates of an mcpv test snapshot, answering from a responses file. It is served as mcpv serve serves a server: on stdin and stdout, or with --http as a Streamable HTTP endpoint at /mcp, to clients of either era.

The responses file (JSON or YAML) lists answers, tried in order; an entry of exactly the call's arguments comes first:

    tools:
      - name: add
        arguments: {a: 1}            # the call's arguments hold this (a JSON subset)
        jq: '.b > 1'                 # and/or this is true of them
        result: {content: [{type: text, text: "3"}]}
    resources:
      - uri: demo://readme
        resource: {uri: demo://readme, name: readme}   # in resources/list
        result: {contents: [{uri: demo://readme, text: hello}]}
    prompts:
      - name: greet
        arguments: {name: Ada}
        result: {messages: [{role: user, content: {type: text, text: Hello Ada}}]}

Arguments are checked against the tool's inputSchema: a violation is a JSON-RPC error (-32602) naming where and which rule. A call nothing answers gets an isError result naming the closest answer recorded; a resource nothing answers, error -32002. 'mcpv serve --record FILE' writes both files from a real server.

Examples:

    $ mcpv serve --record demo.json -- ./server
    $ mcpv mock demo.json
    $ mcpv mock surface.json --responses answers.yaml --http 127.0.0.1:8808`
}

func (c *mockCmd) noServer() {}

func (c *mockCmd) Validate() error { return c.listenFlags.validate() }

func (c *mockCmd) Run(ctx context.Context, out *console) error {
	// A mock holds no credentials: on loopback it takes no token unless
	// given one.
	plan, err := c.listenPlan(out, false)
	if err != nil {
		return err
	}
	// The files of a cloned repository, read as config files are:
	// regular files of bounded size, opened without blocking.
	data, err := safefile.Read(out.env.Path(c.File))
	if err != nil {
		return usageErrorf("%s: %v", c.File, err)
	}
	snap, err := surface.ParseSnapshot(data)
	if err != nil {
		return usageErrorf("%s: %v", c.File, err)
	}
	path := c.Responses
	if path == "" {
		path = mock.ResponsesPath(c.File)
	}
	var resp *mock.Responses
	switch data, err := safefile.Read(out.env.Path(path)); {
	case err == nil:
		if resp, err = mock.ParseResponses(data); err != nil {
			return usageErrorf("%s: %v", path, err)
		}
	case c.Responses != "" || !errors.Is(err, fs.ErrNotExist):
		return usageErrorf("%s: %v", path, err)
	}
	m := mock.New(snap, resp, mcp.Implementation{Name: "mcpv-mock", Version: Version})
	srv := &serve.Server{Open: func(context.Context, connect.Hooks) (serve.Upstream, error) { return m, nil }}
	if err := srv.Start(ctx); err != nil {
		return err
	}
	defer srv.Close()
	return plan.serve(ctx, srv, out)
}
