package commands

// watch subscribes to resources and prints one line per change; the
// subscriptions and the lines are internal/watch's.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mcpv/mcpv/internal/watch"
	"github.com/mcpv/mcpv/output"
)

type watchCmd struct {
	URIs  []string      `arg:"" name:"uri" help:"The resources to subscribe to."`
	Read  bool          `name:"read" help:"Read the resource after each update and add its contents to the line."`
	Lists bool          `name:"lists" help:"Also report changes to the lists of resources, tools and prompts."`
	Count int           `name:"count" placeholder:"N" help:"Stop after N lines."`
	For   time.Duration `name:"for" placeholder:"DURATION" help:"Stop after this long (e.g. 30s, 5m)."`
}

func (c *watchCmd) Help() string {
	return `Subscribes to each URI (resources/subscribe) and prints one JSON line per notifications/resources/updated: {"uri":...,"time":...}, with "contents" from resources/read when --read is given. Runs until Ctrl-C (exit 130), or until --count lines or --for elapsed (exit 0); then unsubscribes. --timeout applies to each request, not to the watch.

Examples:

    $ mcpv watch demo://clock --count 3 -- ./server
    $ mcpv watch file:///var/log/app.log --read -r -q '.contents[0].text' -- ./s
    $ mcpv watch demo://clock --lists --for 1m -u http://localhost:8080/mcp`
}

func (c *watchCmd) Validate() error {
	seen := map[string]bool{}
	for _, u := range c.URIs {
		if seen[u] {
			return fmt.Errorf("uri %q given twice", u)
		}
		seen[u] = true
	}
	return nil
}

func (c *watchCmd) notInBatch() {}

func (c *watchCmd) Run(ctx context.Context, s *session, out *console) error {
	w := watch.New(watch.Options{URIs: c.URIs, Read: c.Read, Lists: c.Lists, Count: c.Count, For: c.For,
		Timeout: s.settings.Timeout, Warnf: out.warnf, Notef: out.notef, Hold: s.pinResource})
	s.listen(w.Notify)
	client, err := s.client(ctx)
	if err != nil {
		return err
	}

	p := *out.printer
	p.Format.Pretty = out.flags.Pretty // one line per event, even on a terminal
	// falsy is the last line's verdict under --exit-status.
	var falsy error
	err = w.Run(ctx, client, func(line json.RawMessage) error {
		out.ios.Status.Clear()
		switch err := p.Print(line); {
		case errors.Is(err, output.ErrFalsy):
			falsy = err
		case err != nil:
			return err
		default:
			falsy = nil
		}
		return nil
	})
	return cmp.Or(err, falsy)
}
