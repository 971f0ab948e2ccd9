package elicit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"golang.org/x/net/idna"

	"github.com/mcpv/mcpv/internal/safetext"
)

// urlParams are ElicitRequestURLParams.
type urlParams struct {
	Message       string `json:"message"`
	ElicitationID string `json:"elicitationId"`
	URL           string `json:"url"`
}

// handleURL shows the URL and asks before opening it; it never fetches it.
func (o *Options) handleURL(ctx context.Context, p urlParams) (json.RawMessage, error) {
	u, err := url.Parse(p.URL)
	if err != nil || u.Scheme == "" {
		return nil, paramsErrorf("elicitation/create: url %s is not an absolute URL", quote(safetext.Prose(p.URL)))
	}
	o.notef("%s asks you to open a URL: %s", o.asker(), safetext.Prose(p.Message))
	o.notef("  url:  %s", safetext.Prose(p.URL))
	o.notef("  host: %s", safetext.Prose(u.Hostname()))
	for _, w := range urlWarnings(u) {
		o.warnf("%s", w)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return o.answered(actDecline, fmt.Sprintf("mcpv opens only http and https URLs, not %s", quote(u.Scheme))), nil
	}
	release, err := o.TTY.Turn(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	for {
		fmt.Fprint(o.TTY, "Open this URL in your browser? [y/N] ")
		line, err := o.TTY.ReadLine(ctx)
		if err != nil {
			return o.stopped(ctx, err)
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			if err := o.OpenURL(p.URL); err != nil {
				o.warnf("could not open the browser (%v); open the URL above yourself", err)
				return o.answered(actAccept, "consent given; the browser did not open"), nil
			}
			return o.answered(actAccept, "opened in the browser"), nil
		case "", "n", "no":
			return o.answered(actDecline, "declined at the terminal"), nil
		case "q", "c", "cancel":
			return o.answered(actCancel, "cancelled at the terminal"), nil
		default:
			fmt.Fprintln(o.TTY, "  answer y (open it), n (decline) or q (cancel)")
		}
	}
}

// urlWarnings are the reasons to look twice at a URL before opening it.
func urlWarnings(u *url.URL) []string {
	var ws []string
	if w := hostWarning(u.Hostname()); w != "" {
		ws = append(ws, w)
	}
	if u.User != nil {
		ws = append(ws, fmt.Sprintf("the URL has user info before the host; the real host is %s", safetext.Prose(u.Hostname())))
	}
	if u.Scheme == "http" {
		ws = append(ws, "the URL is not https: what you enter there travels unencrypted")
	}
	return ws
}

// hostWarning warns about a host name that is not plain ASCII, in either
// of its forms: written in Unicode it may imitate a familiar name
// ("аpple.com" with a Cyrillic а), and written in punycode (xn--) it hides
// which name it is. Both forms are shown; an invalid name is said to be so.
func hostWarning(host string) string {
	ascii, err := idna.Lookup.ToASCII(host)
	if err != nil {
		return fmt.Sprintf("the host %s is not a valid domain name (%v)", quote(host), err)
	}
	switch {
	case !puny(ascii):
		return "" // plain ASCII, whatever its case
	case ascii != strings.ToLower(host):
		return fmt.Sprintf("the host %s is not plain ASCII (it is %s): it may imitate a familiar name", quote(host), ascii)
	}
	unicode, err := idna.Lookup.ToUnicode(ascii)
	if err != nil {
		unicode = host
	}
	return fmt.Sprintf("the host %s is punycode for %s: it may imitate a familiar name", ascii, quote(unicode))
}

// puny reports whether a host has a punycode label.
func puny(host string) bool {
	for label := range strings.SplitSeq(strings.ToLower(host), ".") {
		if strings.HasPrefix(label, "xn--") {
			return true
		}
	}
	return false
}

// DescribeURLRequired turns the data of a JSON-RPC error -32042
// (URLElicitationRequiredError: {"elicitations":[{mode,elicitationId,url,message}]})
// into a message for the caller's error report, one line per URL:
// "the server needs you to open a URL first: URL (MESSAGE)".
func DescribeURLRequired(data json.RawMessage) string {
	var d struct {
		Elicitations []urlParams `json:"elicitations"`
	}
	if json.Unmarshal(data, &d) != nil || len(d.Elicitations) == 0 {
		return "the server needs you to open a URL first, but its error names none"
	}
	lines := make([]string, len(d.Elicitations))
	for i, e := range d.Elicitations {
		var s strings.Builder
		s.WriteString("the server needs you to open a URL first: " + safetext.Prose(e.URL))
		if e.Message != "" {
			s.WriteString(" (" + safetext.Prose(e.Message) + ")")
		}
		if u, err := url.Parse(e.URL); err == nil {
			for _, w := range urlWarnings(u) {
				s.WriteString("; warning: " + w)
			}
		}
		lines[i] = s.String()
	}
	return strings.Join(lines, "\n")
}
