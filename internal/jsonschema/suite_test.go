package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	// Imported for its copy of the suite only: go.mod requires it and
	// go.sum verifies it, so the module cache holds it for every build.
	_ "github.com/qri-io/jsonschema"
)

// TestOfficialSuite runs the required cases of the official
// JSON-Schema-Test-Suite (its tests/<draft>/*.json, not optional/) from
// copies that Go modules ship, read from the module cache, so that the
// build reaches them through the module proxy, verified by go.sum, and
// never through GitHub:
//
//   - draft-07 and 2020-12 from github.com/google/jsonschema-go;
//   - draft-04, draft-06 and 2019-09 from github.com/qri-io/jsonschema
//     v0.2.1 (google/jsonschema-go ships only two drafts, and
//     santhosh-tekuri/jsonschema's modules ship no copy of the suite from
//     v5 on, only its author's extra cases).
//
// Both are test dependencies in go.mod (see the blank import above), so
// a draft whose cases are missing fails the test: go mod download has
// not been run, or go.sum does not match.
//
// This is the suite as of 2020: 3,812 required cases across the five
// drafts. The suite has grown since (4,774 cases for the same drafts),
// but no Go module ships that copy of it: running it would mean fetching
// it from GitHub at test time, or copying it into this repository.
//
// The groups left out, named in suiteSkips, are those outside what the
// validator does by design: references to other documents (the suite's
// remotes, and the dialects' metaschemas), which are never fetched. These
// copies of the required cases hold no custom metaschema or vocabulary
// (the suite keeps those in optional/ or in later versions). The counts,
// logged per draft:
//
//	draft     source                        files  passed  skipped
//	draft-04  qri-io/jsonschema v0.2.1        29     454       19
//	draft-06  qri-io/jsonschema v0.2.1        35     583       19
//	draft-07  google/jsonschema-go v0.4.3     37     886       27
//	2019-09   qri-io/jsonschema v0.2.1        43     706       19
//	2020-12   google/jsonschema-go v0.4.3     43    1051       48
//	all                                      187    3680      132
//
// Removing a keyword's check makes this test fail: with minLength's check
// gone, 26 cases fail across the five drafts.
func TestOfficialSuite(t *testing.T) {
	google := moduleDir(t, "github.com/google/jsonschema-go")
	qri := moduleDir(t, "github.com/qri-io/jsonschema")
	drafts := []struct {
		name, dir, schema string
	}{
		{"draft-04", filepath.Join(qri, "testdata", "draft4"), "http://json-schema.org/draft-04/schema#"},
		{"draft-06", filepath.Join(qri, "testdata", "draft6"), "http://json-schema.org/draft-06/schema#"},
		{"draft-07", filepath.Join(google, "jsonschema", "testdata", "draft7"), "http://json-schema.org/draft-07/schema#"},
		{"2019-09", filepath.Join(qri, "testdata", "draft2019-09"), "https://json-schema.org/draft/2019-09/schema"},
		{"2020-12", filepath.Join(google, "jsonschema", "testdata", "draft2020-12"), "https://json-schema.org/draft/2020-12/schema"},
	}
	for _, d := range drafts {
		t.Run(d.name, func(t *testing.T) {
			files, err := filepath.Glob(filepath.Join(d.dir, "*.json"))
			if err != nil || len(files) == 0 {
				t.Fatalf("no cases in %s (%v)", d.dir, err)
			}
			var passed, skipped int
			for _, f := range files {
				p, s := runSuiteFile(t, d.name, f, d.schema)
				passed += p
				skipped += s
			}
			t.Logf("%s: %d cases passed, %d skipped, from %d files in %s", d.name, passed, skipped, len(files), d.dir)
		})
	}
}

type suiteGroup struct {
	Description string
	Schema      json.RawMessage
	Tests       []struct {
		Description string
		Data        json.RawMessage
		Valid       bool
	}
}

// runSuiteFile runs one file's groups, the schema given dialect when it
// names none, and returns how many cases passed and were skipped.
func runSuiteFile(t *testing.T, draft, path, dialect string) (passed, skipped int) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var groups []suiteGroup
	if err := json.Unmarshal(data, &groups); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	file := filepath.Base(path)
	for _, g := range groups {
		s, err := Compile(withDialect(g.Schema, dialect))
		_, skipFile := suiteSkips[draft+"/"+file]
		_, skipGroup := suiteSkips[draft+"/"+file+"/"+g.Description]
		if skipFile || skipGroup {
			var se *SchemaError
			if !errors.As(err, &se) || !strings.Contains(se.Message, "is outside the document") {
				t.Errorf("%s %s %q is skipped as out of scope, but compiles (%v): take it out of suiteSkips", draft, file, g.Description, err)
			}
			skipped += len(g.Tests)
			continue
		}
		if err != nil {
			t.Errorf("%s %s %q: does not compile: %v", draft, file, g.Description, err)
			continue
		}
		for _, c := range g.Tests {
			err := s.Validate(c.Data)
			var ve *ValidationError
			switch {
			case err != nil && !errors.As(err, &ve):
				t.Errorf("%s %s %q / %q: %v", draft, file, g.Description, c.Description, err)
			case (err == nil) != c.Valid:
				t.Errorf("%s %s %q / %q: got %v, want valid %v", draft, file, g.Description, c.Description, err, c.Valid)
			default:
				passed++
			}
		}
	}
	return passed, skipped
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

// moduleDir is where the module cache holds module at the version go.mod
// requires, downloading it (as go.sum has it) when the cache lacks it.
func moduleDir(t *testing.T, module string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go command to find %s with: %v", module, err)
	}
	var info struct{ Dir, Error string }
	out, err := exec.Command(goCmd, "list", "-m", "-json", module).Output()
	if err != nil || json.Unmarshal(out, &info) != nil {
		t.Fatalf("go list -m %s: %v %s", module, err, stderr(err))
	}
	if info.Dir != "" {
		return info.Dir
	}
	out, err = exec.Command(goCmd, "mod", "download", "-json", module).Output()
	if json.Unmarshal(out, &info) != nil || info.Dir == "" {
		t.Fatalf("go mod download %s: %s %v %s", module, info.Error, err, stderr(err))
	}
	return info.Dir
}

// stderr is what a go command that failed said.
func stderr(err error) []byte {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return bytes.TrimSpace(ee.Stderr)
	}
	return nil
}

// suiteSkips are the files (draft/file) and groups (draft/file/group) left
// out, each for its reason. Every group left out must still refuse to
// compile, as a schema that refers outside its document does: a group that
// compiles is no longer out of scope, and the test says so.
var suiteSkips = map[string]string{}

func init() {
	const (
		remote = "references to other documents, which the suite serves from localhost:1234: never fetched"
		meta   = "a reference to the dialect's metaschema, a document outside: never fetched"
	)
	for _, d := range []string{"draft-04", "draft-06", "draft-07", "2019-09", "2020-12"} {
		suiteSkips[d+"/refRemote.json"] = remote
		suiteSkips[d+"/ref.json/remote ref, containing refs itself"] = meta
	}
	for _, g := range []string{"draft-04/definitions.json/valid definition", "draft-04/definitions.json/invalid definition",
		"draft-06/definitions.json/valid definition", "draft-06/definitions.json/invalid definition",
		"draft-07/definitions.json/validate definition against metaschema",
		"2019-09/defs.json/valid definition", "2019-09/defs.json/invalid definition",
		"2020-12/defs.json/validate definition against metaschema"} {
		suiteSkips[g] = meta
	}
	for _, g := range []string{"strict-tree schema, guards against misspelled properties",
		"tests for implementation dynamic anchor and reference link",
		"$ref and $dynamicAnchor are independent of order - $defs first",
		"$ref and $dynamicAnchor are independent of order - $ref first",
		"$ref to $dynamicRef finds detached $dynamicAnchor"} {
		suiteSkips["2020-12/dynamicRef.json/"+g] = remote
	}
}
