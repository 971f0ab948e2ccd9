package commands

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"

	"github.com/mcpv/mcpv/internal/connect"
	"github.com/mcpv/mcpv/internal/servercard"
	"github.com/mcpv/mcpv/mcp"
)

type discoverCmd struct {
	Target     string `arg:"" name:"url-or-domain" help:"A domain (example.com, or host:port), whose catalog is read; or a URL: a catalog, a card, or a Streamable HTTP endpoint whose card is beside it."`
	Connect    string `name:"connect" placeholder:"NAME" help:"Connect to the server of the card named (its catalog identifier, its name, or the name's part after the slash) and compare the card with what the server says."`
	MaxEntries int    `name:"max-entries" placeholder:"N" default:"1000" min:"1" help:"Read at most N server cards of a catalog."`
}

func (c *discoverCmd) serverChoosing() {}
func (c *discoverCmd) notInBatch()     {}

func (c *discoverCmd) Help() string {
	return `Server Cards (SEP-2127, an experimental extension) describe an MCP server before a client connects: its name, version and description, the remotes it is reached at and the protocol versions each speaks. A catalog lists them: an AI Catalog at /.well-known/ai-catalog.json, or the MCP Catalog of the extension's earlier drafts at /.well-known/mcp/catalog.json, each tried in turn for a domain.

Prints the catalog and each card as sent, the cards checked against the extension's schema and the catalog's names against one another (a name that looks like another's is a problem). Exit 0 when every card is valid, 1 when one is not (or the catalog), 3 when no catalog or card is found, 4 when none can be reached. What is fetched is hostile input: bounded, https only (but for loopback), and never this machine's or a private network's addresses from a public name; 'mcpv help server-cards' says how, and the report's form.

--connect NAME connects to that server's first remote, with the global flags (-H, --auth...), and says where the card disagrees with the server. A card is advisory: mcpv trusts what the server says. A card that is invalid is not connected to (exit 1).

Examples:

    $ mcpv discover example.com
    $ mcpv discover https://example.com/mcp -q '.servers[0].card.remotes'
    $ mcpv discover example.com -r -q '.servers[] | select(.valid) | .card.name'
    $ mcpv discover example.com --connect weather -q .disagreements`
}

// serverCardsTopic is 'mcpv help server-cards': what discover's help
// leaves out.
const serverCardsTopic = `Server Cards (SEP-2127, an experimental extension) describe an MCP server before a client connects: its name, version and description, the remotes it is reached at and the protocol versions each speaks. A catalog lists them: an AI Catalog at /.well-known/ai-catalog.json, or the MCP Catalog of the extension's earlier drafts at /.well-known/mcp/catalog.json, each tried in turn for a domain. mcpv discover takes a domain (example.com, or host:port), whose catalog it reads, or a URL: a catalog, a card, or a Streamable HTTP endpoint whose card is beside it.

It prints, each card as sent:

    {"catalog", "specVersion",
     "servers": [{"identifier", "url", "card", "valid", "problems"}],
     "problems"}

A card is checked against the extension's schema, and a catalog's names against one another: a name that looks like another's (a letter of another script, 0 for o) or like the catalog's own domain's is a problem. Exit 0 when every card is valid, 1 when one is not (or the catalog), 3 when no catalog or card is found, 4 when none can be reached.

Everything fetched is hostile input: https only, but for a loopback host; at most 5 redirects, never to plain http; a catalog of at most 4 MiB, a card of 256 KiB, 32 levels deep, --max-entries cards (1000 by default); and a discovery begun at a public name never reaches this machine's addresses or a private network's, whatever a name resolves to or a catalog names.

--connect NAME (the card's catalog identifier, its name, or the name's part after the slash) connects to that server's first remote (Streamable HTTP, else HTTP+SSE), with the global flags (-H, --auth...), and prints:

    {"identifier", "card", "url", "server", "agrees", "disagreements"}

server is what mcpv info prints, disagreements where the card says otherwise than the server (its name, version, title, description, the remote's transport and versions; and the capabilities and tools an earlier draft's card declares). A card is advisory: mcpv trusts what the server says. A card that is invalid is not connected to (exit 1).

mcpv check holds a server's card, where it publishes one, to what the server says; mcpv serve --http publishes one for the server it serves ('mcpv help serving').`

func (c *discoverCmd) Validate() error {
	_, err := servercard.Start(c.Target)
	return err
}

// discoverInvalid is a discovery that found invalid cards (exit 1).
type discoverInvalid struct{ msg string }

func (e discoverInvalid) Error() string { return e.msg }

func (c *discoverCmd) Run(ctx context.Context, out *console, t *targets) error {
	if t.given() && c.Connect == "" {
		return usageErrorf("discover finds servers itself: give it a URL or a domain, not a server")
	}
	start, _ := servercard.Start(c.Target)
	conf, err := connect.TLSConfig(t.r.c.flags.CACert)
	if err != nil {
		return err
	}
	f := servercard.New(start, servercard.Options{TLS: conf})
	f.MaxEntries, f.UserAgent = c.MaxEntries, "mcpv/"+Version
	found, err := f.Discover(ctx, c.Target)
	if err != nil {
		return discoverError(err)
	}
	if c.Connect != "" {
		return c.connect(ctx, out, t, f, found)
	}
	if err := out.print(mustJSON(found)); err != nil {
		return err
	}
	return c.verdict(out, found)
}

// verdict is exit 1 when a card (or the catalog) is invalid, with each
// invalid card said on stderr.
func (c *discoverCmd) verdict(out *console, found *servercard.Found) error {
	bad := 0
	for _, s := range found.Servers {
		if !s.Valid {
			bad++
			if len(s.Problems) > 0 {
				out.notef("discover: %s: %s", cmp.Or(s.Identifier, s.URL), s.Problems[0].Message)
			}
		}
	}
	for _, p := range found.Problems {
		out.warnf("discover: catalog: %s", p.Message)
	}
	switch {
	case bad > 0:
		return discoverInvalid{fmt.Sprintf("%d of %d server cards are invalid", bad, len(found.Servers))}
	case servercard.Invalid(found.Problems):
		return discoverInvalid{"the catalog is invalid"}
	}
	return nil
}

// discoverError gives a discovery's failure its exit code: a host that
// answered without a card is 3; a target refused, or one where nothing
// answered, is 4.
func discoverError(err error) error {
	if nf, ok := errors.AsType[*servercard.NotFoundError](err); ok {
		if nf.Answered {
			return &refusal{nf.Error()}
		}
		return &mcp.TransportError{Op: "discover", Err: nf}
	}
	if ae, ok := errors.AsType[*servercard.AddressError](err); ok {
		return &mcp.TransportError{Op: "discover", Err: ae}
	}
	if errors.Is(err, ErrInterrupted) {
		return err
	}
	return &mcp.TransportError{Op: "discover", Err: err}
}

// connectResult is what discover --connect prints.
type connectResult struct {
	Identifier    string                    `json:"identifier,omitempty"`
	Card          json.RawMessage           `json:"card"`
	URL           string                    `json:"url"`
	Server        json.RawMessage           `json:"server"`
	Agrees        bool                      `json:"agrees"`
	Disagreements []servercard.Disagreement `json:"disagreements"`
}

func (c *discoverCmd) connect(ctx context.Context, out *console, t *targets, f *servercard.Fetcher, found *servercard.Found) error {
	s, err := found.Choose(c.Connect)
	if err != nil {
		return &refusal{err.Error()}
	}
	if !s.Valid {
		first := "invalid" // its first error, said
		if i := slices.IndexFunc(s.Problems, func(p servercard.Problem) bool { return p.Level == servercard.Error }); i >= 0 {
			first = s.Problems[i].Message
		}
		return discoverInvalid{fmt.Sprintf("the card of %s is invalid, and is not connected to: %s", cmp.Or(s.Identifier, s.URL), first)}
	}
	remote, err := s.Parsed.Endpoint()
	if err != nil {
		return &refusal{err.Error()}
	}
	if err := c.reachable(ctx, f, remote.URL); err != nil {
		return err
	}
	flags := t.r.c.flags
	flags.URL, flags.Server, flags.Session, flags.Transport = remote.URL, "", "", remote.Type
	sess, err := t.r.session(flags, explicitFlags(t.r.kctx), nil)
	if err != nil {
		return err
	}
	defer sess.close()
	client, err := sess.client(ctx)
	if err != nil {
		return err
	}
	if err := client.Settle(ctx); err != nil {
		return err
	}
	// What the server says of itself, for the card to be held to.
	info := client.InitializeResult()
	live := servercard.Live{Endpoint: remote.URL, Transport: remote.Type, ServerInfo: info.ServerInfo, Version: client.ProtocolVersion(),
		Supported: info.SupportedVersions, Capabilities: info.Capabilities}
	if client.HasCapability("tools") && s.Parsed.Tools != nil {
		names := []string{} // of the tools the server lists; nil when it would not list them
		for page, err := range client.Walk(ctx, "tools/list", "tools", 0) {
			if err != nil {
				names = nil
				break
			}
			for _, raw := range page.Items {
				if t, ok := mcp.ParseTool(raw); ok {
					names = append(names, t.Name)
				}
			}
		}
		live.Tools = names
	}
	res := connectResult{Identifier: s.Identifier, Card: s.Card, URL: remote.URL, Server: client.Info(), Disagreements: servercard.Verify(s.Parsed, live)}
	res.Agrees = len(res.Disagreements) == 0
	if res.Disagreements == nil {
		res.Disagreements = []servercard.Disagreement{}
	}
	for _, d := range res.Disagreements {
		out.warnf("discover: the card disagrees with the server: %s", d.Message())
	}
	return out.print(mustJSON(res))
}

// reachable refuses a remote a card names on an address the discovery
// may not reach (one of this machine's or a private network's, when it
// began at a public name): the session about to open would send it the
// user's credentials.
func (c *discoverCmd) reachable(ctx context.Context, f *servercard.Fetcher, remote string) error {
	u, err := url.Parse(remote)
	if err != nil {
		return &refusal{fmt.Sprintf("the card's remote %q is not a URL", remote)}
	}
	if f.Internal {
		return nil
	}
	ips, err := net.DefaultResolver.LookupIPAddr(ctx, u.Hostname())
	if err != nil {
		return &mcp.TransportError{Op: "discover", Err: err}
	}
	for _, ip := range ips {
		if servercard.InternalIP(ip.IP) {
			return &mcp.TransportError{Op: "discover", Err: &servercard.AddressError{URL: remote, Why: "the card's remote is on an address of this machine or a private network, and the discovery began at a public name; not connected"}}
		}
	}
	return nil
}
