package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	sant "github.com/santhosh-tekuri/jsonschema/v6"
	otherkind "github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// A second implementation, santhosh-tekuri/jsonschema (configured as mcpv
// configured it before it had its own validator), must reach the same
// verdicts and find the first violation at the same place.

type refuseLoading struct{}

func (refuseLoading) Load(url string) (any, error) { return nil, fmt.Errorf("not fetching %s", url) }

func otherCompile(schema string) (*sant.Schema, error) {
	doc, err := sant.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := sant.NewCompiler()
	c.UseLoader(refuseLoading{})
	if err := c.AddResource(defaultBase, doc); err != nil {
		return nil, err
	}
	return c.Compile(defaultBase)
}

// otherPointer is where the other implementation puts the first
// violation: down its tree of causes, first cause first. Its tree keeps the
// failures of single items under contains and minContains, though an item
// may fail contains; and the causes under propertyNames are relative to
// the name, not the value. There the violation is the keyword's own.
func otherPointer(err error) (string, bool) {
	var ve *sant.ValidationError
	if !errors.As(err, &ve) {
		return "", false
	}
	for len(ve.Causes) > 0 {
		switch ve.ErrorKind.(type) {
		case *otherkind.Contains, *otherkind.MinContains, *otherkind.PropertyNames:
		default:
			ve = ve.Causes[0]
			continue
		}
		break
	}
	var b strings.Builder
	for _, tok := range ve.InstanceLocation {
		b.WriteString("/" + escapeToken(tok))
	}
	return b.String(), true
}

// hugeExponent is a number the other implementation would take minutes to
// turn into a fraction.
var hugeExponent = regexp.MustCompile(`[eE][+-]?0*[0-9]{4,}`)

// signedField is a sign where a time or an IPv4 address has a number.
var signedField = regexp.MustCompile(`["\[:.][+-][0-9]`)

// grammarFormat is the message of a format checked here by its RFC's
// grammar, more strictly than by the other implementation.
var grammarFormat = regexp.MustCompile(`is not valid (uri|uri-reference|iri|iri-reference|hostname|email)(:|$)`)

// opaqueID is an identifier with a scheme and no authority.
var opaqueID = regexp.MustCompile(`"\$?id"\s*:\s*"[A-Za-z][A-Za-z0-9+.-]*:[^/]`)

// compare checks one schema and value with both implementations.
// enumShoulds is the other implementation refusing, in draft-06 or
// draft-07, an enum with no value or with a value twice: the published
// meta-schemas of those drafts say minItems 1 and uniqueItems, where
// their specifications say both SHOULD hold (MUST only in draft-04), a
// difference the drafts' authors own (json-schema-spec#717). mcpv
// follows the specification: such a schema is valid, and an empty enum
// lets nothing through.
var enumShoulds = regexp.MustCompile(`at '[^']*/enum': (?:minItems: got 0, want 1|items at \d+ and \d+ are equal)`)

func compare(t *testing.T, schema, instance string) {
	t.Helper()
	mine, myErr := Compile([]byte(schema))
	other, otherErr := otherCompile(schema)
	if myErr == nil && otherErr != nil && enumShoulds.MatchString(otherErr.Error()) {
		return
	}
	if (myErr == nil) != (otherErr == nil) {
		t.Fatalf("schema %s: compiles here: %v; there: %v", schema, myErr, otherErr)
	}
	if myErr != nil || hugeExponent.MatchString(instance) {
		return
	}
	got := mine.Validate([]byte(instance))
	var syntax *SyntaxError
	inst, parseErr := sant.UnmarshalJSON(strings.NewReader(instance))
	if errors.As(got, &syntax) != (parseErr != nil) {
		t.Fatalf("value %q: JSON here: %v; there: %v", instance, got, parseErr)
	}
	if parseErr != nil {
		return
	}
	want := other.Validate(inst)
	if p, ok := otherViolationMatching(want, ipvFuture); ok {
		// Its refusal is wrong: compare again without what it refuses.
		if rest, ok := without(instance, p); ok {
			compare(t, schema, rest)
		}
		return
	}
	var ve *ValidationError
	switch {
	case got != nil && want == nil && errors.As(got, &ve) && ve.Keyword == "format" && signedField.MatchString(instance):
		return // the other implementation reads "+1" and "-0" as numbers in times and addresses
	case (got == nil) != (want == nil) && strings.Contains(fmt.Sprint(got, want), "not valid uri-template"):
		return // it checks the braces of a template in some paths only
	case got != nil && want == nil && errors.As(got, &ve) && ve.Keyword == "format" && grammarFormat.MatchString(ve.Message):
		// It reads URIs and IRIs as url.Parse does, takes a host name's
		// trailing dot and an empty local part of an address: looser than
		// the RFCs, which the JSON-Schema-Test-Suite holds these formats to
		// (TestOfficialSuite).
		return
	}
	if (got == nil) != (want == nil) {
		t.Fatalf("schema %s, value %s: here %v; there %v", schema, instance, got, want)
	}
	if got == nil {
		return
	}
	if !errors.As(got, &ve) {
		t.Fatalf("schema %s, value %s: %v, want a *ValidationError", schema, instance, got)
	}
	if ve.Keyword == "format" && grammarFormat.MatchString(ve.Message) && !slices.Contains(otherPointers(want), ve.Pointer) {
		// The other reads that grammar looser (above) and found another
		// violation instead: the two are compared again on the value
		// without the part only this one refuses.
		if rest, ok := without(instance, ve.Pointer); ok {
			compare(t, schema, rest)
		}
		return
	}
	// The other implementation walks objects in a random order: one of its
	// runs must agree, or put first a violation at a sibling of this one
	// and have this one too.
	var seen []string
	for run := 0; run < 64; run++ {
		if run > 0 {
			inst, _ = sant.UnmarshalJSON(strings.NewReader(instance))
			want = other.Validate(inst)
		}
		p, ok := otherPointer(want)
		if !ok || p == ve.Pointer || parent(p) == parent(ve.Pointer) && slices.Contains(otherPointers(want), ve.Pointer) {
			return
		}
		if !slices.Contains(seen, p) {
			seen = append(seen, p)
		}
	}
	t.Fatalf("schema %s, value %s: violation at %q (%v); there at %q (%v)", schema, instance, ve.Pointer, ve, seen, want)
}

// without is the JSON value instance with the member or element at the
// JSON pointer ptr taken out; false for the root, or a pointer to nothing.
func without(instance, ptr string) (string, bool) {
	d := json.NewDecoder(strings.NewReader(instance))
	d.UseNumber()
	var root any
	if ptr == "" || d.Decode(&root) != nil {
		return "", false
	}
	tokens := strings.Split(ptr, "/")[1:]
	for i, tok := range tokens {
		tokens[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
	}
	var cut func(v any, tokens []string) (any, bool)
	cut = func(v any, tokens []string) (any, bool) {
		switch v := v.(type) {
		case map[string]any:
			child, ok := v[tokens[0]]
			if !ok {
				return nil, false
			}
			if len(tokens) == 1 {
				delete(v, tokens[0])
				return v, true
			}
			child, ok = cut(child, tokens[1:])
			v[tokens[0]] = child
			return v, ok
		case []any:
			n, err := strconv.Atoi(tokens[0])
			if err != nil || n < 0 || n >= len(v) {
				return nil, false
			}
			if len(tokens) == 1 {
				return slices.Delete(v, n, n+1), true
			}
			child, ok := cut(v[n], tokens[1:])
			v[n] = child
			return v, ok
		}
		return nil, false
	}
	root, ok := cut(root, tokens)
	if !ok {
		return "", false
	}
	b, err := json.Marshal(root)
	return string(b), err == nil
}

func parent(ptr string) string {
	return ptr[:max(strings.LastIndexByte(ptr, '/'), 0)]
}

// otherPointers are the places of all the violations the other
// implementation found, cut as otherPointer cuts its tree.
func otherPointers(err error) []string {
	var ve *sant.ValidationError
	if !errors.As(err, &ve) {
		return nil
	}
	var out []string
	var walk func(ve *sant.ValidationError)
	walk = func(ve *sant.ValidationError) {
		switch ve.ErrorKind.(type) {
		case *otherkind.Contains, *otherkind.MinContains, *otherkind.PropertyNames:
		default:
			if len(ve.Causes) > 0 {
				for _, c := range ve.Causes {
					walk(c)
				}
				return
			}
		}
		p, _ := otherPointer(ve)
		out = append(out, p)
	}
	walk(ve)
	return out
}

// ipvFuture is the other implementation refusing a host of RFC 3986's
// IPvFuture form ("[v1.x]"), which it reads as an IP address only.
var ipvFuture = regexp.MustCompile(`invalid host: ParseAddr\("[vV][0-9A-Fa-f]+\.`)

// otherViolationMatching is the place of a violation the other
// implementation found whose message re matches.
func otherViolationMatching(err error, re *regexp.Regexp) (string, bool) {
	var ve *sant.ValidationError
	if !errors.As(err, &ve) {
		return "", false
	}
	var walk func(ve *sant.ValidationError) (string, bool)
	walk = func(ve *sant.ValidationError) (string, bool) {
		for _, c := range ve.Causes {
			if p, ok := walk(c); ok {
				return p, true
			}
		}
		if len(ve.Causes) == 0 && re.MatchString(ve.Error()) {
			return otherPointer(ve)
		}
		return "", false
	}
	return walk(ve)
}

func TestDifferentialCorpus(t *testing.T) {
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range append(slices.Clone(c.valid), c.invalid...) {
				compare(t, c.schema, v)
			}
		})
	}
}

func TestDifferentialInvalidSchemas(t *testing.T) {
	for _, c := range invalidSchemas {
		if _, err := otherCompile(c.schema); err == nil {
			t.Errorf("%s compiles there", c.schema)
		}
	}
}

// fuzzSchemas are the corpus's schemas and its values' vocabulary: the
// names and strings they mention.
func fuzzSchemas() (schemas []string, words []string) {
	seen := map[string]bool{}
	var walk func(v *value)
	walk = func(v *value) {
		switch v.kind {
		case kindString:
			if !seen[v.str] && len(v.str) < 40 {
				seen[v.str] = true
				words = append(words, v.str)
			}
		case kindArray:
			for i := range v.arr {
				walk(&v.arr[i])
			}
		case kindObject:
			for i := range v.obj {
				walk(&value{kind: kindString, str: v.obj[i].key})
				walk(&v.obj[i].val)
			}
		}
	}
	for _, c := range corpus {
		schemas = append(schemas, c.schema)
		for _, s := range append(append([]string{c.schema}, c.valid...), c.invalid...) {
			if v, err := parse([]byte(s)); err == nil {
				walk(&v)
			}
		}
	}
	return schemas, words
}

// numbers are literals that make good trouble.
var numbers = []string{"0", "-0", "1", "-1", "1.0", "1.5", "2", "3", "0.5", "0.01", "0.123", "100", "101", "1e2", "1E-2",
	"300000000", "300000001", "9007199254740993", "-2.5", "1e10", "12345678901.5", "0.0075", "4.75", "583231"}

// generate builds a JSON value from fuzz bytes, with the vocabulary of the
// schemas, so that most inputs say something the schemas care about.
func generate(data []byte, words []string) string {
	var b strings.Builder
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		c := int(data[0])
		data = data[1:]
		return c
	}
	var value func(depth int)
	value = func(depth int) {
		c := next()
		switch k := c % 9; {
		case k == 0:
			b.WriteString([]string{"null", "true", "false"}[next()%3])
		case k <= 2:
			b.WriteString(numbers[next()%len(numbers)])
		case k <= 4:
			if next()%4 == 0 {
				n := next() % 8
				s := data[:min(len(data), n)]
				data = data[len(s):]
				q, _ := json.Marshal(string(s))
				b.Write(q)
			} else {
				q, _ := json.Marshal(words[next()%len(words)])
				b.Write(q)
			}
		case k <= 6 && depth < 5:
			b.WriteByte('{')
			for i := range next() % 5 {
				if i > 0 {
					b.WriteByte(',')
				}
				q, _ := json.Marshal(words[next()%len(words)])
				b.Write(q)
				b.WriteByte(':')
				value(depth + 1)
			}
			b.WriteByte('}')
		case depth < 5:
			b.WriteByte('[')
			for i := range next() % 5 {
				if i > 0 {
					b.WriteByte(',')
				}
				value(depth + 1)
			}
			b.WriteByte(']')
		default:
			b.WriteString(strconv.Itoa(c))
		}
	}
	value(0)
	return b.String()
}

func FuzzValidate(f *testing.F) {
	schemas, words := fuzzSchemas()
	for i, c := range corpus {
		for _, v := range append(slices.Clone(c.valid), c.invalid...) {
			f.Add(uint16(i), []byte(v))
		}
	}
	f.Add(uint16(0), []byte{3, 7, 5, 1, 2, 9, 4})
	for i, c := range costly {
		f.Add(uint16(len(schemas)+i), []byte(c.valid))
		f.Add(uint16(len(schemas)+i), []byte(c.invalid))
	}
	f.Fuzz(func(t *testing.T, which uint16, data []byte) {
		checkParse(t, data)
		instance := string(data)
		if !json.Valid(data) {
			instance = generate(data, words)
		}
		if bytes.Count(data, []byte("[")) > 1000 {
			return
		}
		i := int(which) % (len(schemas) + len(costly))
		if i < len(schemas) {
			compare(t, schemas[i], instance)
			return
		}
		// A costly shape: compared at a small depth with the other
		// implementation, and at its full depth with the small one.
		c := costly[i-len(schemas)]
		compare(t, c.build(c.small), instance)
		deep := mustCompile(t, c.build(c.n)).Validate([]byte(instance))
		small := mustCompile(t, c.build(c.small)).Validate([]byte(instance))
		if (deep == nil) != (small == nil) {
			t.Fatalf("%s, %s: at depth %d %v; at depth %d %v", c.name, instance, c.n, deep, c.small, small)
		}
	})
}

// checkParse holds the value reader to encoding/json: the same text is
// JSON, and decodes to the same values (numbers as their text, a repeated
// member's last value).
func checkParse(t *testing.T, data []byte) {
	t.Helper()
	v, err := parse(data)
	if (err == nil) != json.Valid(data) {
		t.Fatalf("parse(%q): %v; json.Valid says %v", data, err, json.Valid(data))
	}
	if err != nil {
		return
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var want any
	if err := d.Decode(&want); err != nil {
		t.Fatal(err)
	}
	if got := v.plain(); !reflect.DeepEqual(got, want) {
		t.Fatalf("parse(%q) = %#v; encoding/json reads %#v", data, got, want)
	}
}

// plain is v as encoding/json decodes into an any, with UseNumber.
func (v *value) plain() any {
	switch v.kind {
	case kindNull:
		return nil
	case kindFalse, kindTrue:
		return v.kind == kindTrue
	case kindNumber:
		return json.Number(v.str)
	case kindString:
		return v.str
	case kindArray:
		a := make([]any, len(v.arr))
		for i := range v.arr {
			a[i] = v.arr[i].plain()
		}
		return a
	}
	m := make(map[string]any, len(v.obj))
	for i := range v.obj {
		m[v.obj[i].key] = v.obj[i].val.plain()
	}
	return m
}

// FuzzCompile builds schemas from the corpus's vocabulary: both
// implementations must agree on which are valid. There are four known
// differences (enumShoulds and three more). References to the metaschemas: the other implementation has
// copies of them; here they are outside the document. The other
// implementation resolves references and compiles patternProperties only
// in the schemas it reaches from the root, while here every schema in the
// document is compiled: an unused definition that refers nowhere is an
// error here, and there too once compiled on its own. It follows
// $recursiveRef in 2020-12 too, where $dynamicRef replaced it. And under
// an identifier with no authority (urn:a:b) it resolves a relative
// reference to the identifier itself, not as RFC 3986 says.
func FuzzCompile(f *testing.F) {
	_, words := fuzzSchemas()
	for _, c := range corpus {
		f.Add([]byte(c.schema))
	}
	f.Add([]byte{5, 1, 2, 3})
	f.Add([]byte(`{"$schema":"http://json-schema.org/schema#0"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		schema := string(data)
		if !json.Valid(data) {
			schema = generate(data, words)
		}
		if hugeExponent.MatchString(schema) || bytes.Count(data, []byte("[")) > 1000 ||
			strings.Contains(schema, "$recursiveRef") && !strings.Contains(schema, "2019-09") || opaqueID.MatchString(schema) {
			return
		}
		_, myErr := Compile([]byte(schema))
		_, otherErr := otherCompile(schema)
		if (myErr == nil) == (otherErr == nil) {
			return
		}
		if myErr == nil && enumShoulds.MatchString(otherErr.Error()) {
			return
		}
		if myErr == nil && strings.Contains(otherErr.Error(), "not fetching") {
			return // by design: the other would load a document ($id's base) that mcpv never fetches
		}
		if myErr == nil && strings.Contains(otherErr.Error(), "is not valid regex") {
			// By design: mcpv reads a pattern as ECMA-262, as the
			// specification says (pattern.go), where the other reads it as
			// Go's RE2, which refuses some of what ECMA-262 allows: an
			// empty class [], a lookahead, a backreference.
			return
		}
		var se *SchemaError
		if errors.As(myErr, &se) && otherErr == nil {
			if strings.Contains(se.Message, "outside the document") && strings.Contains(schema, "json-schema.org") {
				return
			}
			if strings.Contains(se.Message, "is not a valid regular expression") && (strings.Contains(schema, "[]") || strings.Contains(schema, "[^]")) {
				// By design, the other way round: in ECMA-262 [] is an
				// empty class and [^] any character, where RE2 reads the ]
				// as the first member of a class that goes on: ^a[](b]c is
				// a group never closed here, a class of ](b there.
				return
			}
			if se.Keyword == "$schema" && strings.Contains(se.Message, "unknown dialect") {
				// By design: a $schema that names no dialect mcpv checks
				// (http://json-schema.org/schema#0, say) is refused, where
				// the other takes some such URLs as a dialect of its own.
				return
			}
			if otherCompileAt(schema, se.Pointer) != nil {
				return // the other implementation had not reached it
			}
		}
		t.Fatalf("schema %s: compiles here: %v; there: %v", schema, myErr, otherErr)
	})
}

// otherCompileAt compiles, with the other implementation, the schema that
// holds the value at ptr: the nearest of its two parents that compiles
// differently from the whole document, or nil.
func otherCompileAt(schema, ptr string) error {
	for range 2 {
		i := strings.LastIndexByte(ptr, '/')
		if i < 0 {
			return nil
		}
		ptr = ptr[:i]
		doc, err := sant.UnmarshalJSON(strings.NewReader(schema))
		if err != nil {
			return err
		}
		c := sant.NewCompiler()
		c.UseLoader(refuseLoading{})
		if err := c.AddResource(defaultBase, doc); err != nil {
			return err
		}
		if _, err := c.Compile(defaultBase + "#" + ptr); err != nil {
			return err
		}
	}
	return nil
}
