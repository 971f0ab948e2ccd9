package commands

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpv/mcpv/internal/cost"
	"github.com/mcpv/mcpv/internal/exitcode"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"

	"github.com/mcpv/mcpv/internal/shellwords"
	"github.com/mcpv/mcpv/internal/surface"
	"github.com/mcpv/mcpv/internal/table"
)

type searchCmd struct {
	Query []string      `arg:"" name:"query" help:"The words to look for; each hit holds one or more (or another form of one: numbers, number), in its name, title, description or a parameter's name."`
	Wait  time.Duration `name:"wait" default:"20s" placeholder:"DURATION" help:"How long each server may take to start and list what it offers; one that takes longer is said and left out."`
	Limit int           `name:"limit" default:"20" placeholder:"N" help:"Print the N best hits (0: all)."`
}

func (c *searchCmd) serverChoosing() {}
func (c *searchCmd) tableView()      {}

func (c *searchCmd) Help() string {
	return `Searches the tools, prompts, resources and resource templates of every server of the config files (or of the one server the command line names) for the words of the query: each hit holds one or more of them, or another form of one (adding for add, numbers for number), in its name (the words of create_issue or createIssue), title, description or a parameter's name. Those that hold more of the words come first, then those that hold them where they count more (a name most); hits that tie keep the order their servers listed them in. The servers are asked at once, four at a time, each for --wait at most: one that fails or takes longer is said on stderr and left out.

The result is JSON: the query, the hits best first (server, kind, name, title, the first line of its description, score, how many of the words it holds, the tokens it costs a model as cost counts them, and the command that uses it on the server as this command line names it, quoted for a shell) and the servers that failed; -o table shows the hits.

Examples:

    $ mcpv search create issue
    $ mcpv search weather -o table
    $ mcpv search -r -q '.hits[0].command' send email
    $ mcpv search echo -- ./server`
}

// searchHit is a hit as search prints it: with the command that uses it.
type searchHit struct {
	rankedHit
	Command string `json:"command"`
}

// searchFailure is a server that could not be searched.
type searchFailure struct {
	Server string `json:"server"`
	Error  string `json:"error"`
}

// searchConcurrency is how many servers are asked at once.
const searchConcurrency = 4

func (c *searchCmd) Run(ctx context.Context, out *console, t *targets) error {
	query := strings.Join(c.Query, " ")
	if len(queryWords(query)) == 0 {
		return usageErrorf("give words to search for")
	}
	names := []string{""}
	if !t.given() {
		var err error
		if names, err = configServers(out, t); err != nil {
			return err
		}
	}
	// The sessions are made in turn (each reads the config and its
	// secrets), then asked at once.
	sessions := make([]*session, len(names))
	errs := make([]error, len(names))
	for i, name := range names {
		sessions[i], errs[i] = t.open(name)
	}
	servers := make([]surface.Server, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, searchConcurrency)
	for i := range names {
		if errs[i] != nil {
			continue
		}
		wg.Go(func() { // search listing: ends within --wait
			sem <- struct{}{}
			defer func() { <-sem }()
			sctx, cancel := context.WithTimeoutCause(ctx, c.Wait, fmt.Errorf("it did not list what it offers within %s (--wait)", c.Wait))
			defer cancel()
			defer sessions[i].close()
			s, err := gather(sctx, sessions[i], false)
			if err != nil && sctx.Err() != nil && ctx.Err() == nil {
				err = context.Cause(sctx)
			}
			s.Name = cmp.Or(names[i], s.Name, sessions[i].settings.Name, "the server")
			servers[i], errs[i] = s, err
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	failed := []searchFailure{}
	var found []surface.Server
	var firstErr error
	for i, err := range errs {
		if err == nil {
			found = append(found, servers[i])
			continue
		}
		who := cmp.Or(names[i], servers[i].Name, "the server")
		line := exitcode.Message(err, exitCode(err), "mcpv search --help")
		failed = append(failed, searchFailure{Server: who, Error: line})
		out.tell(fmt.Sprintf("server %q could not be searched: %s", safetext.Line(who), line))
		firstErr = cmp.Or(firstErr, err)
	}
	if len(found) == 0 && firstErr != nil {
		return batchFailed{exitCode(firstErr), out.unsaid([]error{firstErr})}
	}
	// A hit's command names its server as this command line did: its
	// session flags, then a config server's name or the words after --.
	target := sessionFlagWords(t.r.kctx, t.r.env)
	hits, malformed := c.hits(query, found, func(h rankedHit) string {
		flags := target
		if names[0] != "" {
			flags = append(slices.Clone(target), "-s", h.Server)
		}
		return string(t.r.scrub.Mask([]byte(useCommand(h, flags, t.server))))
	})
	for _, s := range found {
		if n := malformed[s.Name]; n > 0 {
			out.tell(fmt.Sprintf("server %q: %d of its items left out: they do not decode", safetext.Line(s.Name), n))
		}
	}
	if out.asTable() {
		view := table.New(table.Column{Title: "server"}, table.Column{Title: "kind"}, table.Column{Title: "name"}, table.Column{Title: "tokens"}, table.Column{Title: "description", Cut: true})
		for _, h := range hits {
			view.Add(h.Server, h.Kind, h.Name, fmt.Sprint(h.Tokens), h.Description)
		}
		return out.printTable(view)
	}
	return out.printOf(json.Marshal(struct {
		Query  string          `json:"query"`
		Hits   []searchHit     `json:"hits"`
		Failed []searchFailure `json:"failed"`
	}{query, hits, failed}))
}

// hits are the query's hits in found, the best --limit, each with its
// tokens and the command that uses it.
func (c *searchCmd) hits(query string, found []surface.Server, command func(rankedHit) string) ([]searchHit, map[string]int) {
	ranked, malformed := rankItems(query, found)
	if c.Limit > 0 && len(ranked) > c.Limit {
		ranked = ranked[:c.Limit]
	}
	tokens := map[[3]string]int{}
	if enc, err := cost.Get("o200k"); err == nil {
		counter := &cost.Counter{Encoding: enc, As: "openai"}
		for _, s := range found {
			items, _ := counter.Server(s.Name, s)
			for _, it := range items {
				tokens[[3]string{it.Server, it.Kind, it.Name}] = it.Tokens
			}
		}
	}
	out := make([]searchHit, 0, len(ranked))
	for _, h := range ranked {
		kind := map[string]string{kindTool: cost.Tool, kindPrompt: cost.Prompt, kindTemplate: cost.Template}[h.Kind]
		h.Tokens = tokens[[3]string{h.Server, kind, h.ItemName}]
		out = append(out, searchHit{rankedHit: h, Command: command(h)})
	}
	return out, malformed
}

// useCommand is the command line that uses h on the server that flags
// and server (the words after --, if any) name: a call's usage, a read, a
// prompt. A name that begins with "-", which would be read as a flag, is
// shown by its list, filtered.
func useCommand(h rankedHit, flags, server []string) string {
	list := map[string][3]string{kindTool: {"call", "list-tools", ".tools[] | select(.name == %s)"},
		kindPrompt: {"get-prompt", "list-prompts", ".prompts[] | select(.name == %s)"}, kindResource: {"read", "list-resources", ".resources[] | select(.uri == %s)"},
		kindTemplate: {"read", "list-resource-templates", ".resourceTemplates[] | select(.uriTemplate == %s)"}}[h.Kind]
	words := []string{"mcpv", list[0], h.Name} // a template: its variables to fill in
	if strings.HasPrefix(h.Name, "-") {
		words = []string{"mcpv", list[1], "-q", fmt.Sprintf(list[2], rawjson.MustMarshal(h.Name))}
	}
	words = append(words, flags...)
	if h.Kind == kindTool && words[1] == "call" {
		words = append(words, "--help") // its arguments, before it is called
	}
	if len(server) > 0 {
		words = append(append(words, "--"), server...)
	}
	for i, w := range words {
		words[i] = shellwords.Quote(w)
	}
	return strings.Join(words, " ")
}
