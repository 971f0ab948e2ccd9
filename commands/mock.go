package commands

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/mcpv/mcpv/internal/mock"
	"github.com/mcpv/mcpv/internal/redact"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/serve"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/trace"
	"github.com/mcpv/mcpv/mcp"
)

type mockCmd struct {
	File      string   `arg:"" optional:"" name:"file" placeholder:"FILE" help:"An mcpv test snapshot: the tools, prompts and resource templates to offer; or a trace (mcpv --trace) to replay."`
	Responses []string `name:"responses" sep:"none" placeholder:"FILE" help:"A responses file (repeatable; default: FILE.responses.json)."`
	Tool      []string `name:"tool" sep:"none" placeholder:"NAME[=TEXT|:=JSON]" help:"Offer a tool answering every call with TEXT or JSON (repeatable)."`
	Log       string   `name:"log" placeholder:"FILE" help:"Write what the clients asked and got to FILE, as JSON lines, for a test to check."`
	listenFlags

	tools   []json.RawMessage
	answers []mock.Entry
}

// mockFilesTopic is 'mcpv help mock-files': the responses file of mcpv mock.
const mockFilesTopic = `A responses file (JSON or YAML) says who the server is and lists answers, tried in order (an entry of exactly the call's arguments first); an entry may wait, send progress, log messages and other notifications, ask the client (elicitation, sampling, roots), then answer with a result, one computed by jq (result-jq, from the call and $answers), or an error:

    server: {serverInfo: {name: demo, version: 1.0.0}, instructions: Add.}
    tools:
      - name: add
        arguments: {a: 1}       # the call's arguments hold this (a JSON subset)
        jq: '.b > 1'            # and/or this is true of them
        result: {content: [{type: text, text: "3"}]}
      - name: add
        times: 1                # the first call only
        steps: [{wait: 2s}, {progress: {progress: 1, total: 2}},
                {log: {level: info, data: slow}}]
        error: {code: -32000, message: busy}
    resources:
      - template: demo://items/{id}  # or uri: demo://readme; jq sees the
                                     #   template's variables
        result: {contents: [{uri: demo://items/1, text: one}]}

Arguments are checked against the tool's inputSchema: a violation is a JSON-RPC error (-32602) naming where and which rule. A call nothing answers gets an isError result naming the closest answer recorded; a resource nothing answers, error -32002. 'mcpv serve --record FILE' writes both files from a real server, who it says it is included. --log FILE keeps what the clients asked and got, for a test to check.

--responses FILE: A responses file, JSON or YAML (repeatable: a file's entries are tried before the next's; default: FILE with .responses.json for its extension, when there is one). --tool NAME[=TEXT|:=JSON]: Offer a tool that answers every call with TEXT as its text, or with the JSON result (repeatable; before any responses file). Needs no FILE. --log FILE: Write each message of each client, what each request was answered, and each question put to a client with its answer, to FILE as JSON lines, secrets masked (a new file, or your own emptied; mode 0600).`

func (c *mockCmd) Help() string {
	return `Serves a server read from files, for testing MCP clients: the tools, prompts and resource templates of an mcpv test snapshot, answering from responses files. It is served as mcpv serve serves a server: on stdin and stdout, or with --http as a Streamable HTTP endpoint at /mcp, to clients of either era.

A responses file (JSON or YAML) lists answers by tool, prompt and resource, each of which may wait, notify or ask the client first: 'mcpv help mock-files' describes it. 'mcpv serve --record FILE' writes both files from a real server; a trace (mcpv --trace FILE) is replayed as the server it shows: a red CI run, at home.

Examples:

    $ mcpv serve --record demo.json -- ./server
    $ mcpv mock demo.json
    $ mcpv mock ci-run.trace.jsonl
    $ mcpv mock demo.json --responses faults.yaml \
        --responses demo.responses.json --log mock.log
    $ mcpv mock --tool hello=hi --http 127.0.0.1:0 \
        --tool 'add:={"content":[{"type":"text","text":"3"}]}'`
}

func (c *mockCmd) noServer() {}

// reads is the file mock reads, which --trace must not overwrite.
func (c *mockCmd) reads() []string { return []string{c.File} }

func (c *mockCmd) Validate() error {
	if err := c.listenFlags.validate(); err != nil {
		return err
	}
	c.tools, c.answers = nil, nil
	for _, spec := range c.Tool {
		tool, e, err := mock.ToolFlag(spec)
		if err != nil {
			return usageErrorf("--tool %v", err)
		}
		c.tools, c.answers = append(c.tools, tool), append(c.answers, e)
	}
	return nil
}

func (c *mockCmd) Run(ctx context.Context, out *console) error {
	if c.File == "" && len(c.Tool) == 0 {
		return usageErrorf("mock: give a snapshot FILE, or tools with --tool NAME=TEXT")
	}
	// A mock holds no credentials: on loopback it takes no token unless
	// given one.
	plan, err := c.listenPlan(out, false, false)
	if err != nil {
		return err
	}
	snap, files, err := c.read(out)
	if err != nil {
		return err
	}
	m := mock.New(mock.WithTools(snap, c.tools), mock.Merge(append([]*mock.Responses{{Tools: c.answers}}, files...)...),
		mcp.Implementation{Name: "mcpv-mock", Version: Version})
	for _, n := range m.Notes() {
		out.notef("%s", n)
	}
	srv := &serve.Server{Open: m.Open}
	if c.Log != "" {
		// Made before anything is served: a relative path's directories are
		// those of the tree it names (no link out of it), and the file is
		// the user's own (safefile.CreateOwn).
		if err := checkWritePath(out, "--log", c.Log); err != nil {
			return err
		}
		f, err := safefile.CreateOwn(out.env.Path(c.Log))
		if err != nil {
			return usageErrorf("--log: %v", err)
		}
		defer f.Close()
		secrets := redact.NewScrubber(nil)
		secrets.Add(redact.EnvSecrets(out.env.Environ)...)
		log := mock.NewRequestLog(f, secrets, func(err error) {
			out.warnf("--log: %v: nothing more is logged", err)
		})
		defer log.Stop() // before the file closes
		srv.Observe = log.Observe
		m.ObserveQuestions(log.Observe)
	}
	srv.Observe = out.served(srv.Observe)
	if err := srv.Start(ctx); err != nil {
		return err
	}
	defer srv.Close()
	return plan.serve(ctx, srv, out)
}

// read reads the snapshot and the responses files. The files of a cloned
// repository are read as config files are: regular files of bounded
// size, opened without blocking.
func (c *mockCmd) read(out *console) (surface.Snapshot, []*mock.Responses, error) {
	var snap surface.Snapshot
	paths := c.Responses
	if c.File != "" {
		data, err := safefile.Read(out.env.Path(c.File))
		if err != nil {
			return snap, nil, usageErrorf("%s: %v", c.File, err)
		}
		if trace.IsTrace(data) { // the server it shows, with the --responses files after it
			snap, replay, notes, err := mock.FromTrace(data)
			if err != nil {
				return snap, nil, usageErrorf("%s: %v", c.File, err)
			}
			for _, n := range notes {
				out.notef("%s", n)
			}
			files, err := readResponses(c.Responses, out)
			return snap, append([]*mock.Responses{replay}, files...), err
		}
		if snap, err = surface.ParseSnapshot(data); err != nil {
			return snap, nil, usageErrorf("%s: %v", c.File, err)
		}
		if len(paths) == 0 {
			beside := surface.ResponsesBeside(c.File)
			if _, err := os.Lstat(out.env.Path(beside)); errors.Is(err, fs.ErrNotExist) {
				out.notef("no responses file: %s is not there, so what %s offers is answered as not recorded", beside, c.File)
			} else {
				paths = []string{beside}
			}
		}
	}
	files, err := readResponses(paths, out)
	return snap, files, err
}

// readResponses reads the responses files at paths.
func readResponses(paths []string, out *console) ([]*mock.Responses, error) {
	var files []*mock.Responses
	for _, path := range paths {
		data, err := safefile.Read(out.env.Path(path))
		if err != nil {
			return nil, usageErrorf("%s: %v", path, err)
		}
		r, err := mock.ParseResponses(data)
		if err != nil {
			return nil, usageErrorf("%s: %v", path, err)
		}
		files = append(files, r)
	}
	return files, nil
}
