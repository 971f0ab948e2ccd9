package apps

// A UI resource as resources/read answers it: "mimeType MUST be
// text/html;profile=mcp-app", "Content MUST be provided via either text
// (string) or blob (base64-encoded)", "Content MUST be valid HTML5
// document"; its _meta.ui read from the content item, or, failing that,
// from the resource's entry in resources/list ("Hosts MUST check both
// locations, preferring the content item", the draft's Metadata Location).

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"mime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/mcp"
)

// DefaultMaxSize bounds an app's HTML unless told otherwise: the
// extension sets no bound, but a host does, and a page of more than this
// is more than any host will render inline.
const DefaultMaxSize = 5 << 20

// Resource is an app's resource as read.
type Resource struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType"`
	Encoding string `json:"encoding"` // "text" or "blob"
	Size     int    `json:"size"`     // of the HTML, in bytes
	SHA256   string `json:"sha256"`   // of the HTML: "sha256:" and hex
	// MetaFrom says where _meta.ui was read: "content" (the item of
	// resources/read), "listing" (the resource's entry in resources/list),
	// or "" (neither declares one).
	MetaFrom string `json:"metaFrom,omitempty"`
	Meta     Meta   `json:"-"`
	HTML     []byte `json:"-"`
}

// ReadResource checks a resources/read result for the app's resource uri
// (listing is the resource's entry in resources/list, or nil), reading at
// most max bytes of HTML (DefaultMaxSize when 0). It returns the resource
// and its problems; the HTML is kept only when no error bars it from a
// host (an error of the metadata leaves it, so that a report can say all
// that is wrong).
func ReadResource(uri string, res, listing json.RawMessage, max int) (Resource, []Problem) {
	if max <= 0 {
		max = DefaultMaxSize
	}
	r := Resource{URI: uri}
	var ps []Problem
	var body struct {
		Contents []json.RawMessage `json:"contents"`
	}
	if json.Unmarshal(res, &body) != nil {
		return r, []Problem{problem(Error, "apps.content", "resources/read answered without a contents array")}
	}
	at := slices.IndexFunc(body.Contents, func(c json.RawMessage) bool { return rawjson.Key(c, "uri") == uri })
	if at < 0 {
		if len(body.Contents) != 1 {
			return r, []Problem{problem(Error, "apps.content", "resources/read answered %d contents, none of them %s", len(body.Contents), uri)}
		}
		at = 0
		ps = append(ps, problem(Warning, "apps.content", "the content read names another URI than %s", uri))
	}
	item := body.Contents[at]
	var c struct {
		MIMEType json.RawMessage `json:"mimeType"`
		Text     *string         `json:"text"`
		Blob     *string         `json:"blob"`
		Meta     struct {
			UI json.RawMessage `json:"ui"`
		} `json:"_meta"`
	}
	if json.Unmarshal(item, &c) != nil {
		return r, []Problem{problem(Error, "apps.content", "the content read is not an object")}
	}
	if c.MIMEType != nil && json.Unmarshal(c.MIMEType, &r.MIMEType) != nil {
		ps = append(ps, problem(Error, "apps.mime-type", "the content's mimeType is %s, not a string; it must be %s", c.MIMEType, mcp.AppMIMEType))
	} else {
		ps = append(ps, mimeProblem(r.MIMEType)...)
	}
	switch {
	case c.Text != nil && c.Blob != nil:
		ps = append(ps, problem(Error, "apps.content", "the content has both text and blob; it must have one"))
	case c.Text != nil:
		r.Encoding, r.HTML = "text", []byte(*c.Text)
	case c.Blob != nil:
		r.Encoding = "blob"
		if len(*c.Blob) > base64.StdEncoding.EncodedLen(max)+4 {
			r.Size = base64.StdEncoding.DecodedLen(len(*c.Blob))
			ps = append(ps, problem(Error, "apps.size", "the app's HTML is about %d bytes, more than the %d a host takes", r.Size, max))
			break
		}
		b, err := base64.StdEncoding.DecodeString(*c.Blob)
		if err != nil {
			ps = append(ps, problem(Error, "apps.content", "the content's blob is not base64"))
			break
		}
		r.HTML = b
	default:
		ps = append(ps, problem(Error, "apps.content", "the content has neither text nor blob"))
	}
	if r.HTML != nil {
		r.Size = len(r.HTML)
		sum := sha256.Sum256(r.HTML)
		r.SHA256 = "sha256:" + hex.EncodeToString(sum[:])
		if r.Size > max {
			ps = append(ps, problem(Error, "apps.size", "the app's HTML is %d bytes, more than the %d a host takes", r.Size, max))
			r.HTML = nil
		} else {
			ps = append(ps, htmlProblems(r.HTML)...)
		}
	}
	var l struct {
		MIMEType *string `json:"mimeType"`
		Meta     struct {
			UI json.RawMessage `json:"ui"`
		} `json:"_meta"`
	}
	if len(listing) > 0 && json.Unmarshal(listing, &l) != nil {
		ps = append(ps, problem(Warning, "apps.listed-mime-type", "resources/list gives the app's resource members of the wrong type (its mimeType or _meta)"))
	}
	if l.MIMEType != nil && *l.MIMEType != mcp.AppMIMEType {
		ps = append(ps, problem(Warning, "apps.listed-mime-type", "resources/list gives the app's resource the media type %q; it SHOULD be %s", *l.MIMEType, mcp.AppMIMEType))
	}
	meta := c.Meta.UI
	r.MetaFrom = "content"
	if meta == nil || string(meta) == "null" {
		meta, r.MetaFrom = l.Meta.UI, "listing"
		if meta == nil || string(meta) == "null" {
			r.MetaFrom = ""
		}
	}
	var mps []Problem
	r.Meta, mps = ParseMeta(meta)
	ps = append(ps, mps...)
	if Invalid(ps) {
		r.HTML = nil
	}
	return r, ps
}

// mimeProblem checks the content's media type: exactly the extension's,
// or the same type written otherwise (a warning: a host that compares
// strings refuses it), or another (an error).
func mimeProblem(got string) []Problem {
	if got == mcp.AppMIMEType {
		return nil
	}
	if got == "" {
		return []Problem{problem(Error, "apps.mime-type", "the content has no mimeType; it must be %s", mcp.AppMIMEType)}
	}
	typ, params, err := mime.ParseMediaType(got)
	if err == nil && typ == "text/html" && params["profile"] == "mcp-app" && len(params) == 1 {
		return []Problem{problem(Warning, "apps.mime-type", "the content's mimeType is written %q; hosts compare it with %s", got, mcp.AppMIMEType)}
	}
	return []Problem{problem(Error, "apps.mime-type", "the content's mimeType is %q; it must be %s", got, mcp.AppMIMEType)}
}

// htmlProblems checks that the HTML is an HTML5 document: UTF-8 without
// NUL, beginning (after a byte order mark, white space and comments) with
// <!DOCTYPE html>, as the HTML standard's syntax has a document begin.
func htmlProblems(b []byte) []Problem {
	if !utf8.Valid(b) {
		return []Problem{problem(Error, "apps.html", "the app's HTML is not UTF-8")}
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return []Problem{problem(Error, "apps.html", "the app's HTML holds a NUL character")}
	}
	rest := bytes.TrimPrefix(b, []byte("\ufeff"))
	for {
		rest = bytes.TrimLeft(rest, " \t\n\f\r")
		c, ok := bytes.CutPrefix(rest, []byte("<!--"))
		if !ok {
			break
		}
		end := bytes.Index(c, []byte("-->"))
		if end < 0 {
			return []Problem{problem(Error, "apps.html", "the app's HTML begins with a comment that never ends")}
		}
		rest = c[end+3:]
	}
	if len(bytes.TrimSpace(rest)) == 0 {
		return []Problem{problem(Error, "apps.html", "the app's HTML is empty: no document")}
	}
	const doctype = "<!doctype"
	if len(rest) < len(doctype) || !strings.EqualFold(string(rest[:len(doctype)]), doctype) {
		return []Problem{problem(Error, "apps.html", "the app's HTML is not an HTML5 document: it does not begin with <!DOCTYPE html>")}
	}
	decl, _, closed := bytes.Cut(rest[len(doctype):], []byte(">"))
	if !closed || !strings.EqualFold(strings.TrimSpace(string(decl)), "html") {
		return []Problem{problem(Error, "apps.html", "the app's HTML declares <!DOCTYPE%s>, not an HTML5 document's <!DOCTYPE html>", safetext.Runes(string(decl), 40))}
	}
	return nil
}
