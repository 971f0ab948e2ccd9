package jsonschema

import (
	"cmp"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
)

// defaultBase is the URI of a document that gives itself none: relative
// identifiers and references resolve against it, and nothing is ever
// fetched from it.
const defaultBase = "mcpv:///schema.json"

// Compile compiles a schema document. The error is a *SyntaxError when
// doc is not JSON, else a *SchemaError when the schema is not valid in its
// dialect or refers outside itself.
func Compile(doc []byte) (*Schema, error) {
	v, err := parse(doc)
	if err != nil {
		return nil, err
	}
	c := &compiler{
		byURI: map[string]*resource{},
		locs:  map[*value]location{},
		nodes: map[*value]*node{},
	}
	d := draft2020
	if s := v.member("$schema"); s != nil { // only an object has members
		if s.kind != kindString {
			return nil, &SchemaError{Pointer: "/$schema", Keyword: "$schema", Message: fmt.Sprintf("got %s, want a URI string", s.typeName())}
		}
		known, ok := dialectOf(s.str)
		if !ok {
			return nil, &SchemaError{Pointer: "/$schema", Keyword: "$schema", Message: fmt.Sprintf("unknown dialect %s (want a JSON Schema metaschema URL: draft-04, -06, -07, 2019-09 or 2020-12)", quote(s.str))}
		}
		d = known
	}
	root := &resource{uri: defaultBase, val: &v, d: d}
	c.byURI[root.uri] = root
	if err := c.index(&v, nil, root, d, true); err != nil {
		return nil, err
	}
	n, err := c.compile(&v, c.locs[&v], "")
	if err != nil {
		return nil, err
	}
	for _, r := range c.resources {
		r.root = c.nodes[r.val]
		for name, val := range r.dynamicVals {
			dn, err := c.compile(val, c.locs[val], "$dynamicAnchor")
			if err != nil {
				return nil, err
			}
			lazy.Put(&r.dynamic, name, dn)
		}
		if r.root == nil {
			if r.root, err = c.compile(r.val, c.locs[r.val], ""); err != nil {
				return nil, err
			}
		}
	}
	markShared(c.nodes, c.resources)
	dynamic := false
	for _, n := range c.nodes {
		dynamic = dynamic || n.recursiveRef != nil || n.dynamicRef != nil
	}
	return &Schema{root: n, tracked: c.tracked, dynamic: dynamic, nodes: len(c.nodes), unchecked: c.unchecked}, nil
}

type compiler struct {
	byURI     map[string]*resource
	resources []*resource
	locs      map[*value]location // every schema at a place the dialect knows
	nodes     map[*value]*node
	tracked   bool
	unchecked []string // patterns valid in ECMA-262 that RE2 cannot evaluate
}

// location is where a schema sits: its pointer, resource and dialect.
type location struct {
	ptr *pointer
	res *resource
	d   dialect
}

// index walks the schemas in the document, as the dialect finds them, and
// records their resources ($id) and anchors.
func (c *compiler) index(v *value, ptr *pointer, res *resource, d dialect, isRoot bool) error {
	if v.kind != kindObject {
		c.locs[v] = location{ptr, res, d}
		return nil
	}
	if s := v.member("$schema"); !isRoot && s != nil && s.kind == kindString && c.hasID(v, d) {
		known, ok := dialectOf(s.str)
		if !ok {
			return &SchemaError{Pointer: ptr.plus("$schema"), Keyword: "$schema", Message: fmt.Sprintf("unknown dialect %s", quote(s.str))}
		}
		d = known
	}
	if id := v.member(d.idKeyword()); id != nil && id.kind == kindString && c.hasID(v, d) {
		base, frag, _ := strings.Cut(id.str, "#")
		if base != "" || isRoot {
			uri, err := resolveURI(res.uri, base)
			if err != nil {
				return &SchemaError{Pointer: ptr.plus(d.idKeyword()), Keyword: d.idKeyword(), Message: fmt.Sprintf("invalid URI %s: %v", quote(id.str), err)}
			}
			if isRoot {
				delete(c.byURI, res.uri)
				res.uri = uri
				res.d = d
			} else {
				res = &resource{uri: uri, val: v, ptr: ptr, d: d}
			}
			if other, ok := c.byURI[uri]; ok && other != res {
				return &SchemaError{Pointer: ptr.plus(d.idKeyword()), Keyword: d.idKeyword(), Message: fmt.Sprintf("%s identifies %s too", quote(id.str), pointerOrRoot(other.ptr.String()))}
			}
			c.byURI[uri] = res
		}
		if frag != "" && d < draft2019 {
			if err := c.anchor(res, frag, v, ptr, d.idKeyword()); err != nil {
				return err
			}
		}
	}
	if isRoot || res.val == v {
		c.resources = append(c.resources, res)
	}
	if a := v.member("$anchor"); d >= draft2019 && a != nil && a.kind == kindString {
		if err := c.anchor(res, a.str, v, ptr, "$anchor"); err != nil {
			return err
		}
	}
	if a := v.member("$dynamicAnchor"); d >= draft2020 && a != nil && a.kind == kindString {
		if err := c.anchor(res, a.str, v, ptr, "$dynamicAnchor"); err != nil {
			return err
		}
		lazy.Put(&res.dynamicVals, a.str, v)
	}
	if a := v.member("$recursiveAnchor"); d == draft2019 && res.val == v && a != nil && a.kind == kindTrue {
		res.recursiveAnchor = true
	}
	c.locs[v] = location{ptr, res, d}
	for i := range v.obj {
		m := &v.obj[i]
		at := ptr.child(m.key)
		var err error
		switch d.shape(m.key) {
		case holdsSchema:
			err = c.index(&m.val, at, res, d, false)
		case holdsItems, holdsSchemaList:
			if m.val.kind == kindArray {
				for j := range m.val.arr {
					if err = c.index(&m.val.arr[j], at.child(strconv.Itoa(j)), res, d, false); err != nil {
						break
					}
				}
			} else {
				err = c.index(&m.val, at, res, d, false)
			}
		case holdsSchemaMap:
			if m.val.kind == kindObject {
				for j := range m.val.obj {
					if err = c.index(&m.val.obj[j].val, at.child(m.val.obj[j].key), res, d, false); err != nil {
						break
					}
				}
			}
		case holdsDependency:
			if m.val.kind == kindObject {
				for j := range m.val.obj {
					if dv := &m.val.obj[j].val; dv.kind != kindArray {
						if err = c.index(dv, at.child(m.val.obj[j].key), res, d, false); err != nil {
							break
						}
					}
				}
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// hasID reports whether v's identifier counts: before 2019-09 every other
// keyword beside $ref is ignored, $id included.
func (c *compiler) hasID(v *value, d dialect) bool {
	return d >= draft2019 || v.member("$ref") == nil
}

func (c *compiler) anchor(res *resource, name string, v *value, ptr *pointer, keyword string) error {
	if res.anchors == nil {
		res.anchors = map[string]*value{}
	}
	if other, ok := res.anchors[name]; ok && other != v {
		return &SchemaError{Pointer: ptr.plus(keyword), Keyword: keyword, Message: fmt.Sprintf("anchor %s is defined twice", quote(name))}
	}
	res.anchors[name] = v
	return nil
}

func pointerOrRoot(p string) string { return cmp.Or(p, "the document") }

// resolveURI resolves ref against base (RFC 3986, section 5.2); both
// without fragments.
func resolveURI(base, ref string) (string, error) {
	r, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	if r.IsAbs() {
		return r.String(), nil
	}
	b, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	if b.Opaque == "" || r.Host != "" || strings.HasPrefix(ref, "//") {
		return b.ResolveReference(r).String(), nil
	}
	// net/url does not merge paths under a base with no authority and a
	// path not rooted at "/" (urn:a:b).
	var path string
	switch {
	case r.Path == "":
		path = b.Opaque
	case strings.HasPrefix(r.Path, "/"):
		path = removeDotSegments(r.Path)
	default:
		path = removeDotSegments(b.Opaque[:strings.LastIndexByte(b.Opaque, '/')+1] + r.EscapedPath())
	}
	u := &url.URL{Scheme: b.Scheme, Opaque: path, RawQuery: r.RawQuery}
	if r.Path == "" && r.RawQuery == "" {
		u.RawQuery = b.RawQuery
	}
	return u.String(), nil
}

// removeDotSegments removes "." and ".." segments (RFC 3986, section
// 5.2.4).
func removeDotSegments(path string) string {
	var out []string
	segs := strings.Split(path, "/")
	for i, seg := range segs {
		switch seg {
		case ".", "..":
			if seg == ".." && len(out) > 0 && !(len(out) == 1 && out[0] == "") {
				out = out[:len(out)-1]
			}
			if i == len(segs)-1 {
				out = append(out, "")
			}
		default:
			out = append(out, seg)
		}
	}
	return strings.Join(out, "/")
}

// resolve finds the schema a reference names, within the document.
func (c *compiler) resolve(ref string, from location, ptr *pointer, keyword string) (*value, location, error) {
	fail := func(format string, args ...any) (*value, location, error) {
		return nil, location{}, &SchemaError{Pointer: ptr.plus(keyword), Keyword: keyword, Message: fmt.Sprintf(format, args...)}
	}
	uriPart, frag, _ := strings.Cut(ref, "#")
	uri := from.res.uri
	if uriPart != "" {
		u, err := resolveURI(from.res.uri, uriPart)
		if err != nil {
			return fail("invalid reference %s: %v", quote(ref), err)
		}
		uri = u
	}
	res := c.byURI[uri]
	if res == nil {
		return fail("%s is outside the document, and is not fetched", quote(ref))
	}
	frag, err := url.PathUnescape(frag)
	if err != nil {
		return fail("invalid reference %s: %v", quote(ref), err)
	}
	var target *value
	switch {
	case frag == "":
		target = res.val
	case frag[0] == '/':
		target = res.val
		for tok := range strings.SplitSeq(frag[1:], "/") {
			tok = unescapeToken(tok)
			switch target.kind {
			case kindObject:
				target = target.member(tok)
			case kindArray:
				if i, err := strconv.Atoi(tok); err != nil || i < 0 || i >= len(target.arr) || tok != strconv.Itoa(i) {
					target = nil
				} else {
					target = &target.arr[i]
				}
			default:
				target = nil
			}
			if target == nil {
				return fail("%s resolves to nothing in the document", quote(ref))
			}
		}
	default:
		target = res.anchors[frag]
		if target == nil {
			return fail("%s names no anchor in the document", quote(ref))
		}
	}
	loc, ok := c.locs[target]
	if !ok {
		at := res.ptr // frag is a pointer: anchors are all indexed
		for tok := range strings.SplitSeq(strings.TrimPrefix(frag, "/"), "/") {
			at = at.child(unescapeToken(tok))
		}
		loc = location{ptr: at, res: res, d: res.d}
	}
	return target, loc, nil
}
