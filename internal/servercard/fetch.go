package servercard

// Fetching cards and catalogs as hostile input. Every document is read
// within a bound of bytes and of nesting; https is required but for a
// loopback host; redirects are followed a few times, never to plain http
// elsewhere; and a discovery that began at a public name never connects
// to an address of this machine or of a private network, whatever a name
// resolves to (checked at connect, against the address connected to, so
// that no second answer of DNS gets past it) or a catalog or redirect
// names.

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/mcpv/mcpv/internal/origin"
	"github.com/mcpv/mcpv/internal/rawjson"
)

// Bounds of what is fetched, by default.
const (
	DefaultMaxCatalog   = 4 << 20
	DefaultMaxCard      = 256 << 10
	DefaultMaxRedirects = 5
	DefaultMaxDepth     = 32
	DefaultParallel     = 8
	DefaultDocTimeout   = 30 * time.Second
)

// Fetcher fetches cards and catalogs. Its zero value is not usable: New
// makes one.
type Fetcher struct {
	// Internal, set by New from where discovery begins, lets requests
	// reach this machine's and private networks' addresses: only when
	// the user named one (a loopback or private address, localhost).
	Internal bool
	// MaxCatalog, MaxCard, MaxRedirects, MaxDepth and MaxEntries bound
	// what is read.
	MaxCatalog, MaxCard int64
	MaxRedirects        int
	MaxDepth            int
	MaxEntries          int
	// Parallel is how many cards are fetched at once.
	Parallel int
	// UserAgent names mcpv in each request.
	UserAgent string
	// DocTimeout bounds the fetch of one document, redirects and all.
	DocTimeout time.Duration

	client *http.Client
	// isInternal says whether an address is this machine's or a private
	// network's; a test may say otherwise of an address it serves on.
	isInternal func(net.IP) bool
	lookup     func(ctx context.Context, host string) ([]net.IPAddr, error)
}

// Options are what New is given besides the start.
type Options struct {
	// TLS is the TLS configuration (nil: the system's roots).
	TLS *tls.Config
	// IsInternal and Lookup replace the classification of addresses and
	// the resolver, for tests.
	IsInternal func(net.IP) bool
	Lookup     func(ctx context.Context, host string) ([]net.IPAddr, error)
}

// New makes a fetcher for a discovery that begins at start (a URL): one
// begun at a loopback or private address, or localhost, may reach such
// addresses; one begun at a name may not.
func New(start *url.URL, o Options) *Fetcher {
	f := &Fetcher{MaxCatalog: DefaultMaxCatalog, MaxCard: DefaultMaxCard, MaxRedirects: DefaultMaxRedirects, MaxDepth: DefaultMaxDepth,
		MaxEntries: DefaultMaxEntries, Parallel: DefaultParallel, DocTimeout: DefaultDocTimeout, isInternal: InternalIP, lookup: net.DefaultResolver.LookupIPAddr}
	if o.IsInternal != nil {
		f.isInternal = o.IsInternal
	}
	if o.Lookup != nil {
		f.lookup = o.Lookup
	}
	host := start.Hostname()
	if ip := net.ParseIP(host); ip != nil && f.isInternal(ip) || strings.EqualFold(host, "localhost") {
		f.Internal = true
	}
	dialer := &net.Dialer{Timeout: 30 * time.Second, Control: f.control}
	tr := &http.Transport{
		Proxy:                 nil, // a proxy would resolve names where the guard cannot see
		DialContext:           f.dial(dialer),
		TLSClientConfig:       o.TLS,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		MaxIdleConnsPerHost:   DefaultParallel,
		ForceAttemptHTTP2:     true,
	}
	f.client = &http.Client{Transport: tr, CheckRedirect: f.redirect}
	return f
}

// InternalIP reports an address of this machine or of a network that is
// not the internet: loopback, private (RFC 1918, unique local), link
// local, carrier-grade NAT, unspecified, multicast, and IPv4 written as
// IPv6.
func InternalIP(ip net.IP) bool {
	if v4 := ip.To4(); v4 != nil {
		ip = v4
		if v4[0] == 100 && v4[1]&0xc0 == 64 || v4[0] == 0 { // 100.64.0.0/10, 0.0.0.0/8
			return true
		}
	}
	return ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified()
}

// AddressError is a request refused for where it would go.
type AddressError struct {
	URL, Why string
}

func (e *AddressError) Error() string { return e.URL + ": " + e.Why }

// allowedURL checks a URL before it is fetched: http(s), and https unless
// its host is loopback.
func allowedURL(u *url.URL) error {
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && origin.Loopback(u.Hostname()):
	case u.Scheme == "http":
		return &AddressError{URL: u.String(), Why: "plain http is refused but for a loopback host; cards and catalogs are fetched over https"}
	default:
		return &AddressError{URL: u.String(), Why: fmt.Sprintf("the scheme %q is not http(s)", u.Scheme)}
	}
	if u.User != nil {
		return &AddressError{URL: u.Redacted(), Why: "a URL with credentials in it is refused"}
	}
	return nil
}

// dial resolves a host itself, so that the guard (control) sees each
// address connected to, and tries them in turn.
func (f *Fetcher) dial(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		var ips []net.IPAddr
		if ip := net.ParseIP(host); ip != nil {
			ips = []net.IPAddr{{IP: ip}}
		} else if ips, err = f.lookup(ctx, host); err != nil {
			return nil, err
		}
		var first error
		for _, ip := range ips {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.IP.String(), port))
			if err == nil {
				return c, nil
			}
			first = cmp.Or(first, err)
		}
		return nil, cmp.Or(first, fmt.Errorf("%s resolves to no address", host))
	}
}

// errInternal is the guard's refusal.
var errInternal = errors.New("refused: the address is this machine's or a private network's, and the discovery began at a public name")

// control refuses a connection to an internal address unless the
// discovery began at one.
func (f *Fetcher) control(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	if ip := net.ParseIP(host); ip == nil || !f.Internal && f.isInternal(ip) {
		return errInternal
	}
	return nil
}

// redirect follows a redirect MaxRedirects times at most, each new URL
// allowed as the first was; never from https to plain http.
func (f *Fetcher) redirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.MaxRedirects {
		return fmt.Errorf("more than %d redirects", f.MaxRedirects)
	}
	if err := allowedURL(req.URL); err != nil {
		return err
	}
	if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return &AddressError{URL: req.URL.String(), Why: "a redirect from https to plain http is refused"}
	}
	return nil
}

// StatusError is a document the server would not give.
type StatusError struct {
	URL    string
	Status int
	Stream bool // answered with an event stream, not a document
}

func (e *StatusError) Error() string {
	if e.Stream {
		return e.URL + ": an event stream, not a document"
	}
	return fmt.Sprintf("%s: HTTP %d", e.URL, e.Status)
}

// Get fetches a JSON document of at most max bytes (and MaxDepth deep),
// asking for accept. It returns the document and the URL it came from
// (after redirects).
func (f *Fetcher) Get(ctx context.Context, rawURL, accept string, max int64) ([]byte, *url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, &AddressError{URL: rawURL, Why: "not a URL"}
	}
	if err := allowedURL(u); err != nil {
		return nil, nil, err
	}
	if f.DocTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, f.DocTimeout, fmt.Errorf("%s: no document within %s", u, f.DocTimeout))
		defer cancel()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", accept+", application/json;q=0.5")
	if f.UserAgent != "" {
		req.Header.Set("User-Agent", f.UserAgent)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		if ae, ok := errors.AsType[*AddressError](err); ok {
			return nil, nil, ae
		}
		if errors.Is(err, errInternal) {
			return nil, nil, &AddressError{URL: u.String(), Why: errInternal.Error()}
		}
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil, resp.Request.URL, &StatusError{URL: resp.Request.URL.String(), Status: resp.StatusCode}
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		// An MCP endpoint's stream, which may never end: no document.
		return nil, resp.Request.URL, &StatusError{URL: resp.Request.URL.String(), Status: resp.StatusCode, Stream: true}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return nil, resp.Request.URL, fmt.Errorf("%s: %w", resp.Request.URL, err)
	}
	if int64(len(body)) > max {
		return nil, resp.Request.URL, fmt.Errorf("%s: larger than %d bytes; not read", resp.Request.URL, max)
	}
	if !rawjson.Valid(body) {
		return nil, resp.Request.URL, fmt.Errorf("%s: not JSON", resp.Request.URL)
	}
	if d := rawjson.Depth(body); d > f.MaxDepth {
		return nil, resp.Request.URL, fmt.Errorf("%s: nested %d deep, more than %d; not read", resp.Request.URL, d, f.MaxDepth)
	}
	return body, resp.Request.URL, nil
}
