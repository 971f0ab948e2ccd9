package servercard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/origin"
)

// Found is what a discovery found: the catalog (when one was read) and
// each server card, with what is wrong with each.
type Found struct {
	// Catalog is the catalog's URL; "" when the target was a card.
	Catalog     string    `json:"catalog,omitempty"`
	SpecVersion string    `json:"specVersion,omitempty"`
	Servers     []*Server `json:"servers"`
	Problems    []Problem `json:"problems"`
	LeftOut     int       `json:"leftOut,omitempty"`
	Tried       []string  `json:"-"` // the URLs tried, in order
	domain      string
}

// Server is one card found.
type Server struct {
	Identifier string          `json:"identifier,omitempty"`
	URL        string          `json:"url,omitempty"` // where the card was read; "" for one inline
	Card       json.RawMessage `json:"card,omitempty"`
	Valid      bool            `json:"valid"`
	Problems   []Problem       `json:"problems"`
	Parsed     Card            `json:"-"`
}

// NotFoundError is a target where no catalog or card was found. Answered
// says whether any location gave an HTTP answer: without one, nothing was
// reached (refused, an unknown name, a redirect loop, silence), which is
// not the same as a host that has no card.
type NotFoundError struct {
	Target   string
	Tried    []string
	Last     error
	Answered bool
}

func (e *NotFoundError) Error() string {
	if !e.Answered {
		msg := fmt.Sprintf("nothing answered at %s (tried %s)", e.Target, strings.Join(e.Tried, ", "))
		if e.Last != nil {
			msg += ": " + e.Last.Error()
		}
		return msg
	}
	msg := fmt.Sprintf("no catalog or server card found for %s (tried %s)", e.Target, strings.Join(e.Tried, ", "))
	if e.Last != nil {
		if !errors.As(e.Last, new(*StatusError)) {
			msg += ": " + e.Last.Error()
		}
	}
	return msg
}

// Start is the URL a discovery of target begins at: target itself when
// it is an http(s) URL; otherwise a host name (or host:port), reached
// over https, or http for a loopback host.
func Start(target string) (*url.URL, error) {
	if strings.Contains(target, "://") {
		u, err := url.Parse(target)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("%q is not a URL", target)
		}
		return u, allowedURL(u)
	}
	if target == "" || strings.ContainsAny(target, "/?#@ ") {
		return nil, fmt.Errorf("%q is neither a URL nor a domain", target)
	}
	scheme := "https"
	host := target
	if h, _, err := net.SplitHostPort(target); err == nil {
		host = h
	}
	if origin.Loopback(strings.Trim(host, "[]")) {
		scheme = "http"
	}
	return &url.URL{Scheme: scheme, Host: target, Path: "/"}, nil
}

// Discover finds the server cards of target (see Start): at the
// well-known catalog locations of a domain or of a URL without a path,
// else the document at the URL (a catalog or a card), else the card at
// URL/server-card (the location reserved beside a Streamable HTTP
// endpoint).
func (f *Fetcher) Discover(ctx context.Context, target string) (*Found, error) {
	start, err := Start(target)
	if err != nil {
		return nil, err
	}
	found := &Found{Servers: []*Server{}, Problems: []Problem{}}
	if ip := net.ParseIP(start.Hostname()); ip == nil {
		found.domain = start.Hostname()
	}
	var candidates []string
	if start.Path == "" || start.Path == "/" {
		for _, p := range WellKnown {
			candidates = append(candidates, start.Scheme+"://"+start.Host+p)
		}
	} else {
		candidates = []string{start.String(), strings.TrimSuffix(start.String(), "/") + CardSuffix}
	}
	var last error
	answered := false
	for _, c := range candidates {
		found.Tried = append(found.Tried, c)
		body, at, err := f.Get(ctx, c, CardType+", "+CatalogType, f.MaxCatalog)
		if errors.As(err, new(*AddressError)) || ctx.Err() != nil {
			return nil, errors.Join(err, context.Cause(ctx))
		}
		answered = answered || at != nil
		if err != nil {
			last = err
			continue
		}
		switch Kind(body) {
		case "catalog":
			found.Catalog = at.String()
			f.readCatalog(ctx, found, body, at)
			if ctx.Err() != nil {
				// Cut short (Ctrl-C): the cards not read are not
				// the catalog's fault, and no report of them is due.
				return nil, context.Cause(ctx)
			}
			return found, nil
		case "card":
			if int64(len(body)) > f.MaxCard {
				last = fmt.Errorf("%s: a card larger than %d bytes", at, f.MaxCard)
				continue
			}
			s := &Server{URL: at.String(), Card: body}
			s.check()
			found.Servers = append(found.Servers, s)
			return found, nil
		}
		last = fmt.Errorf("%s: neither a catalog nor a server card", at)
	}
	return nil, &NotFoundError{Target: target, Tried: found.Tried, Last: last, Answered: answered}
}

// readCatalog reads the catalog's entries and their cards: those by URL
// fetched, Parallel at once, each bounded.
func (f *Fetcher) readCatalog(ctx context.Context, found *Found, body []byte, at *url.URL) {
	cat, ps := ParseCatalog(body, at, f.MaxEntries)
	found.SpecVersion, found.LeftOut = cat.SpecVersion, cat.LeftOut
	found.Problems = append(found.Problems, ps...)
	found.Servers = make([]*Server, len(cat.Entries))
	sem := make(chan struct{}, max(f.Parallel, 1))
	var wg sync.WaitGroup
	for i, e := range cat.Entries {
		s := &Server{Identifier: e.Identifier, URL: e.URL, Card: e.Data}
		found.Servers[i] = s
		if e.URL == "" {
			if int64(len(e.Data)) > f.MaxCard {
				s.Card = nil
				s.Problems = []Problem{problem(Error, "data", "the inline card is larger than %d bytes; not read", f.MaxCard)}
				continue
			}
			s.check()
			continue
		}
		wg.Go(func() { // card fetcher: ends when the card is fetched or its fetch fails, each bounded
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-ctx.Done():
				s.Problems = []Problem{problem(Error, "url", "not fetched: %v", context.Cause(ctx))}
				return
			}
			card, got, err := f.Get(ctx, e.URL, CardType, f.MaxCard)
			if err != nil {
				s.Problems = []Problem{problem(Error, "url", "the card could not be read: %v", err)}
				return
			}
			s.URL, s.Card = got.String(), card
			s.check()
		})
	}
	wg.Wait()
	var names []string
	for _, s := range found.Servers {
		names = append(names, s.Parsed.Name)
	}
	for i, ps := range LookAlikes(found.domain, names) {
		found.Servers[i].Problems = append(found.Servers[i].Problems, ps...)
	}
	for _, s := range found.Servers {
		s.Valid = s.Card != nil && !Invalid(s.Problems)
		if s.Problems == nil {
			s.Problems = []Problem{}
		}
	}
}

// check parses the server's card and records its problems.
func (s *Server) check() {
	var ps []Problem
	s.Parsed, ps = ParseCard(s.Card)
	s.Problems = append(make([]Problem, 0, len(s.Problems)+len(ps)), append(s.Problems, ps...)...)
	s.Valid = !Invalid(s.Problems)
}

// Choose finds the server a user names among those found: by its
// identifier, its card's name, or the part of the name after the slash;
// with one server found, "" chooses it.
func (found *Found) Choose(name string) (*Server, error) {
	if name == "" && len(found.Servers) == 1 {
		return found.Servers[0], nil
	}
	var match []*Server
	for _, s := range found.Servers {
		_, short, _ := strings.Cut(s.Parsed.Name, "/")
		if name == s.Identifier || name == s.Parsed.Name || name == short {
			match = append(match, s)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		var names []string
		for _, s := range found.Servers {
			names = append(names, s.Parsed.Name)
		}
		return nil, fmt.Errorf("no server card found is %q (found: %s)", name, strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("%d server cards found are %q: name one by its identifier", len(match), name)
}

// Endpoint is the URL a card's server is reached at: its first
// Streamable HTTP remote whose URL needs no variable, else its first
// remote of the HTTP+SSE transport; an error says why none will do.
func (c Card) Endpoint() (Remote, error) {
	var templated []string
	for _, typ := range []string{"streamable-http", "sse"} {
		for _, r := range c.Remotes {
			if r.Type != typ {
				continue
			}
			if len(r.Variables) > 0 {
				templated = append(templated, r.URL)
				continue
			}
			if u, err := url.Parse(r.URL); err != nil || allowedURL(u) != nil {
				continue
			}
			return r, nil
		}
	}
	if len(templated) > 0 {
		return Remote{}, fmt.Errorf("the card's remotes need variables filled in (%s): connect with --url", strings.Join(templated, ", "))
	}
	return Remote{}, errors.New("the card names no remote mcpv can reach (an https URL, or http on loopback)")
}
