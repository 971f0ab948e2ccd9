package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
)

// suiteDir holds the JSON-Schema-Test-Suite's cases for the drafts the
// validator knows, as the suite keeps them (testdata/suite/README.md says
// from which commit, under which licence).
const suiteDir = "testdata/suite"

// suiteDrafts are the suite's directories of the drafts the validator
// knows, each with its dialect (given to a schema that names none) and how
// many cases the copy holds outside optional/, so that a file lost or cut
// fails the test rather than shrinking it.
var suiteDrafts = []struct {
	name, dir, dialect string
	required           int
}{
	{"draft-04", "draft4", "http://json-schema.org/draft-04/schema#", 618},
	{"draft-06", "draft6", "http://json-schema.org/draft-06/schema#", 839},
	{"draft-07", "draft7", "http://json-schema.org/draft-07/schema#", 927},
	{"2019-09", "draft2019-09", "https://json-schema.org/draft/2019-09/schema", 1259},
	{"2020-12", "draft2020-12", "https://json-schema.org/draft/2020-12/schema", 1299},
}

// TestOfficialSuite runs the JSON-Schema-Test-Suite's cases for the five
// drafts from the copy in testdata/suite: every case of tests/<draft>/ and
// of tests/<draft>/optional/. It reads only files: no go command, no
// network.
//
// A case runs unless suiteSkips names it, its group, its file or its
// directory, each with its reason: what the validator does not do by
// design (doc.go, "What it does not do"). A skip must still be needed: one
// under which every case now passes, or one that names nothing in the
// suite, fails the test. It logs, per draft and in all, the cases passed
// and skipped; at the suite's commit 44401e0c:
//
//	draft     cases  passed  skipped   outside optional/: cases  passed
//	draft-04    937     841       96                        618     597
//	draft-06   1270    1169      101                        839     812
//	draft-07   1721    1476      245                        927     900
//	2019-09    2174    1300      874                       1259    1219
//	2020-12    2225    1329      896                       1299    1246
//	all        8327    6115     2212                       4942    4774
//
// Removing a keyword's check makes it fail: with minLength's check gone,
// 14 cases fail across the five drafts.
func TestOfficialSuite(t *testing.T) {
	st := suiteRun{used: map[string]bool{}, needed: map[string]bool{}}
	var all suiteCount
	for _, d := range suiteDrafts {
		t.Run(d.name, func(t *testing.T) {
			root := path.Join(suiteDir, "tests", d.dir)
			files := suiteFiles(t, root)
			var c suiteCount
			for _, f := range files {
				c.add(st.file(t, d.name, root, f, d.dialect))
			}
			if c.required != d.required {
				t.Errorf("%s holds %d cases outside optional/, want %d: is the copy whole?", root, c.required, d.required)
			}
			t.Logf("%s: %d cases passed, %d skipped; of the %d outside optional/, %d passed", d.name, c.passed, c.skipped, c.required, c.requiredPassed)
			all.add(c)
		})
	}
	t.Logf("five drafts: %d cases passed, %d skipped; of the %d outside optional/, %d passed", all.passed, all.skipped, all.required, all.requiredPassed)
	for name, reason := range suiteSkips {
		switch {
		case !st.used[name]:
			t.Errorf("suiteSkips names %q, which is in no file of the suite", name)
		case !st.needed[name]:
			t.Errorf("every case under %q passes, which suiteSkips skips (%s): take it out", name, reason)
		}
	}
}

// suiteFiles are the .json files under root, as paths relative to it,
// optional/ ones included, in a stable order.
func suiteFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.HasSuffix(p, ".json") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no cases under %s (%v)", root, err)
	}
	return files
}

type suiteCount struct {
	passed, skipped, required, requiredPassed int
}

func (c *suiteCount) add(d suiteCount) {
	c.passed += d.passed
	c.skipped += d.skipped
	c.required += d.required
	c.requiredPassed += d.requiredPassed
}

type suiteGroup struct {
	Description string
	Schema      json.RawMessage
	Tests       []suiteCase
}

type suiteCase struct {
	Description string
	Data        json.RawMessage
	Valid       bool
}

// suiteRun is what a run of the suite learns of suiteSkips: the names it
// met, and those under which a case still fails.
type suiteRun struct {
	used, needed map[string]bool
}

// file runs one file's groups, the schema given dialect when it names
// none, and counts what passed and what was skipped.
func (st suiteRun) file(t *testing.T, draft, root, file, dialect string) (c suiteCount) {
	data, err := os.ReadFile(path.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	var groups []suiteGroup
	if err := json.Unmarshal(data, &groups); err != nil {
		t.Fatalf("%s/%s: %v", root, file, err)
	}
	required := !strings.HasPrefix(file, "optional/")
	for _, g := range groups {
		s, compileErr := Compile(withDialect(g.Schema, dialect))
		names := []string{draft + "/" + path.Dir(file) + "/", draft + "/" + file, draft + "/" + file + "/" + g.Description}
		if reason, key := st.skip(names...); reason != "" {
			checkSkipped(t, draft, file, g, reason, compileErr)
		} else if key == "" && compileErr != nil {
			t.Errorf("%s %s %q: does not compile: %v", draft, file, g.Description, compileErr)
		}
		for _, tc := range g.Tests {
			ok := compileErr == nil && validatesAs(t, s, tc)
			if required {
				c.required++
			}
			reason, key := st.skip(append(names, names[2]+"/"+tc.Description)...)
			switch {
			case reason != "":
				c.skipped++
				if !ok {
					st.needed[key] = true
				}
			case compileErr != nil:
				// said once for the group
			case !ok:
				t.Errorf("%s %s %q / %q: got %v, want valid %v", draft, file, g.Description, tc.Description, s.Validate(tc.Data), tc.Valid)
			default:
				c.passed++
				if required {
					c.requiredPassed++
				}
			}
		}
	}
	return c
}

// skip is the reason suiteSkips gives for the first of names it holds, and
// that name; "" and "" when it holds none.
func (st suiteRun) skip(names ...string) (reason, key string) {
	for _, n := range names {
		if reason, ok := suiteSkips[n]; ok {
			st.used[n] = true
			return reason, n
		}
	}
	return "", ""
}

// validatesAs reports whether s finds tc's data valid or not as the suite
// says; an error other than a *ValidationError fails the test.
func validatesAs(t *testing.T, s *Schema, tc suiteCase) bool {
	err := s.Validate(tc.Data)
	var ve *ValidationError
	if err != nil && !errors.As(err, &ve) {
		t.Errorf("%q: %v", tc.Description, err)
		return false
	}
	return (err == nil) == tc.Valid
}

// remoteRef is a reference to a document the suite serves from remotes/,
// written as an absolute URL.
var remoteRef = regexp.MustCompile(`"\$(?:ref|dynamicRef|recursiveRef)"\s*:\s*"http://localhost:1234/([^"#]*)`)

// checkSkipped holds a group skipped for what its schema refers to (another
// document, a metaschema, a dialect of its own) to its reason: the schema
// must refuse to compile for that reason, and each document of the suite's
// it names must be one of remotes/, so that the skip hides nothing else.
func checkSkipped(t *testing.T, draft, file string, g suiteGroup, reason string, compileErr error) {
	t.Helper()
	want := map[string]string{
		skipRemote:     "is outside the document",
		skipMetaschema: "is outside the document",
		skipDialect:    "unknown dialect",
	}[reason]
	if want == "" {
		return
	}
	var se *SchemaError
	if !errors.As(compileErr, &se) || !strings.Contains(se.Message, want) {
		t.Errorf("%s %s %q is skipped (%s), but compiles otherwise: %v", draft, file, g.Description, reason, compileErr)
	}
	for _, m := range remoteRef.FindAllSubmatch(g.Schema, -1) {
		if _, err := os.Stat(path.Join(suiteDir, "remotes", string(m[1]))); err != nil {
			t.Errorf("%s %s %q refers to %s, which remotes/ lacks: %v", draft, file, g.Description, m[1], err)
		}
	}
}

// withDialect adds $schema to an object schema that has none.
func withDialect(schema json.RawMessage, dialect string) []byte {
	trimmed := bytes.TrimSpace(schema)
	if len(trimmed) == 0 || trimmed[0] != '{' || bytes.Contains(schema, []byte(`"$schema"`)) {
		return schema
	}
	rest := bytes.TrimSpace(trimmed[1:])
	sep := ","
	if len(rest) > 0 && rest[0] == '}' {
		sep = ""
	}
	return append([]byte(`{"$schema":"`+dialect+`"`+sep), rest...)
}

// The reasons a case of the suite is skipped: what the validator does not
// do, by design (doc.go, "What it does not do").
const (
	skipRemote       = "it refers to another document, which the suite serves from remotes/: references outside the document are never fetched"
	skipMetaschema   = "it refers to the dialect's metaschema, a document outside: never fetched"
	skipDialect      = "its $schema is a metaschema of the suite's own (remotes/), for a vocabulary of its own: custom metaschemas and vocabularies are not supported"
	skipAnnotation   = "format is an annotation from 2019-09 on: these cases expect it asserted"
	skipContent      = "contentEncoding and contentMediaType are annotations"
	skipECMARegex    = "pattern and format regex are Go's regexp syntax (RE2), not ECMA-262: no lookaround, backreferences or \\c escapes, and \\d, \\w and \\s are ASCII"
	skipIntegerFloat = "an integer is any number with no fraction, 1.0 included, in every draft"
	skipIDN          = "idn-hostname and idn-email are not checked (doc.go lists the formats that are)"
	skipContextRules = "an A-label is checked by golang.org/x/net/idna, which has UTS #46's tables: not IDNA2008's exceptions (RFC 5892 section 2.6) nor its CONTEXTO rules (RFC 5892 appendix A)"
)

// suiteSkips are the directories (draft/dir/), files (draft/file), groups
// (draft/file/group) and cases (draft/file/group/case) left out, each with
// its reason.
var suiteSkips = map[string]string{
	"draft-04/refRemote.json":            skipRemote,
	"draft-06/refRemote.json":            skipRemote,
	"draft-07/refRemote.json":            skipRemote,
	"2019-09/refRemote.json":             skipRemote,
	"2020-12/refRemote.json":             skipRemote,
	"draft-07/optional/cross-draft.json": skipRemote,
	"2019-09/optional/cross-draft.json":  skipRemote,
	"2020-12/optional/cross-draft.json":  skipRemote,
	"2020-12/dynamicRef.json/strict-tree schema, guards against misspelled properties":       skipRemote,
	"2020-12/dynamicRef.json/tests for implementation dynamic anchor and reference link":     skipRemote,
	"2020-12/dynamicRef.json/$ref and $dynamicAnchor are independent of order - $defs first": skipRemote,
	"2020-12/dynamicRef.json/$ref and $dynamicAnchor are independent of order - $ref first":  skipRemote,
	"2020-12/dynamicRef.json/$ref to $dynamicRef finds detached $dynamicAnchor":              skipRemote,

	"draft-04/ref.json/remote ref, containing refs itself":             skipMetaschema,
	"draft-06/ref.json/remote ref, containing refs itself":             skipMetaschema,
	"draft-07/ref.json/remote ref, containing refs itself":             skipMetaschema,
	"2019-09/ref.json/remote ref, containing refs itself":              skipMetaschema,
	"2020-12/ref.json/remote ref, containing refs itself":              skipMetaschema,
	"draft-04/definitions.json/validate definition against metaschema": skipMetaschema,
	"draft-06/definitions.json/validate definition against metaschema": skipMetaschema,
	"draft-07/definitions.json/validate definition against metaschema": skipMetaschema,
	"2019-09/defs.json/validate definition against metaschema":         skipMetaschema,
	"2020-12/defs.json/validate definition against metaschema":         skipMetaschema,

	"2019-09/vocabulary.json/schema that uses custom metaschema with with no validation vocabulary": skipDialect,
	"2019-09/vocabulary.json/ignore unrecognized optional vocabulary":                               skipDialect,
	"2020-12/vocabulary.json/schema that uses custom metaschema with with no validation vocabulary": skipDialect,
	"2020-12/vocabulary.json/ignore unrecognized optional vocabulary":                               skipDialect,
	"2020-12/optional/format-assertion.json":                                                        skipDialect,

	"2019-09/optional/format/": skipAnnotation,
	"2020-12/optional/format/": skipAnnotation,

	"draft-07/optional/content.json": skipContent,

	"draft-04/optional/ecmascript-regex.json":        skipECMARegex,
	"draft-06/optional/ecmascript-regex.json":        skipECMARegex,
	"draft-07/optional/ecmascript-regex.json":        skipECMARegex,
	"2019-09/optional/ecmascript-regex.json":         skipECMARegex,
	"2020-12/optional/ecmascript-regex.json":         skipECMARegex,
	"draft-07/optional/format/ecmascript-regex.json": skipECMARegex,

	"draft-04/optional/zeroTerminatedFloats.json": skipIntegerFloat,

	"draft-07/optional/format/idn-hostname.json": skipIDN,
	"draft-07/optional/format/idn-email.json":    skipIDN,

	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/contains illegal char U+302E Hangul single dot tone mark": skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/Exceptions that are DISALLOWED, right-to-left chars":      skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/Exceptions that are DISALLOWED, left-to-right chars":      skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/MIDDLE DOT with no preceding 'l'":                         skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/MIDDLE DOT with nothing preceding":                        skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/MIDDLE DOT with no following 'l'":                         skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/MIDDLE DOT with nothing following":                        skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/Greek KERAIA not followed by Greek":                       skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/Greek KERAIA not followed by anything":                    skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/Hebrew GERESH not preceded by anything":                   skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/Hebrew GERSHAYIM not preceded by anything":                skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/KATAKANA MIDDLE DOT with no Hiragana, Katakana, or Han":   skipContextRules,
	"draft-07/optional/format/hostname.json/validation of A-label (punycode) host names/KATAKANA MIDDLE DOT with no other characters":             skipContextRules,
}
