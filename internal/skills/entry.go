package skills

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"reflect"
	"strings"

	"github.com/mcpv/mcpv/internal/lazy"
	"github.com/mcpv/mcpv/internal/rawjson"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/yamlnode"
	"github.com/mcpv/mcpv/mcp"
)

// The per-skill limits every host supports; mcpv declines a skill whose
// entry exceeds them before reading any of its files.
const (
	MaxResources = 512
	MaxBytes     = 16 << 20
)

// Skill is one entry of skills/list or skills/get.
type Skill struct {
	URI         string          // the skill's SKILL.md
	Name        string          // frontmatter.name
	Frontmatter json.RawMessage // the entry's frontmatter object, as sent
	Resources   []Resource      // every file of the skill; nil when Dynamic
	Dynamic     bool            // resources is "dynamic": nothing to verify against
	Raw         json.RawMessage // the entry as sent
}

// Resource is one file of a skill's manifest.
type Resource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// Error is a skill entry or file that fails the extension's rules or
// its verification: the content must not be used.
type Error struct {
	URI string
	Msg string
}

func (e *Error) Error() string { return e.URI + ": " + e.Msg }

var digestPattern = &lazy.Regexp{Pattern: `^sha256:[0-9a-f]{64}$`}

// Parse checks an entry as the extension requires before a host loads
// it: a SKILL.md URI whose last directory is the frontmatter's name, a name
// and description, and resources either "dynamic" or a complete manifest
// (SKILL.md included, every file inside the skill's directory, once, with
// a well-formed digest and size, within the limits).
func Parse(raw json.RawMessage) (Skill, error) {
	var e struct {
		URI         string          `json:"uri"`
		Frontmatter json.RawMessage `json:"frontmatter"`
		Resources   json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return Skill{}, &Error{"skill entry", "not an object: " + err.Error()}
	}
	s := Skill{URI: e.URI, Frontmatter: e.Frontmatter, Raw: raw}
	bad := func(format string, args ...any) (Skill, error) {
		return Skill{}, &Error{cmp.Or(s.URI, "skill entry"), fmt.Sprintf(format, args...)}
	}
	if !safetext.Safe(e.URI) {
		return Skill{}, &Error{"skill entry", fmt.Sprintf("uri %q holds control characters", e.URI)}
	}
	root, ok := skillRoot(e.URI)
	if !ok {
		return bad("uri is not the URI of a SKILL.md")
	}
	var fm struct {
		Name        *string `json:"name"`
		Description *string `json:"description"`
	}
	if json.Unmarshal(e.Frontmatter, &fm) != nil || fm.Name == nil || fm.Description == nil {
		return bad("frontmatter is not an object with a name and a description")
	}
	s.Name = *fm.Name
	if path.Base(root) != s.Name || !strings.Contains(root, "://") {
		return bad("the skill's directory is not named after its frontmatter name %q", s.Name)
	}
	if string(bytes.TrimSpace(e.Resources)) == `"dynamic"` {
		s.Dynamic = true
		return s, nil
	}
	if json.Unmarshal(e.Resources, &s.Resources) != nil || s.Resources == nil {
		return bad(`resources is neither a list of files nor "dynamic"`)
	}
	if len(s.Resources) > MaxResources {
		return bad("lists %d files, more than the %d a skill may have", len(s.Resources), MaxResources)
	}
	seen := map[string]bool{}
	var total int64
	for _, r := range s.Resources {
		switch {
		case !safetext.Safe(r.URI):
			// Such a path would name a file whose name a terminal acts on.
			return bad("lists a file whose path holds control characters: %q", strings.TrimPrefix(r.URI, root+"/"))
		case r.URI != s.URI && !strings.HasPrefix(r.URI, root+"/"):
			return bad("lists %s, which is outside the skill's directory", r.URI)
		case seen[r.URI]:
			return bad("lists %s twice", r.URI)
		case !digestPattern.Get().MatchString(r.Digest):
			return bad("the digest of %s is not sha256: and 64 lowercase hex digits", r.URI)
		case r.Size < 0:
			return bad("the size of %s is negative", r.URI)
		}
		seen[r.URI] = true
		total = min(total, math.MaxInt64-r.Size) + r.Size // a sum past it would wrap negative, under the bound
	}
	if !seen[s.URI] {
		return bad("the files listed do not include SKILL.md itself")
	}
	if total > MaxBytes {
		return bad("its files add up to %d bytes, more than the %d a skill may have", total, MaxBytes)
	}
	return s, nil
}

// skillRoot is the directory of a SKILL.md URI, without a trailing slash.
func skillRoot(uri string) (string, bool) {
	root, ok := strings.CutSuffix(uri, "/SKILL.md")
	return root, ok && root != "" && !strings.HasSuffix(root, "/") && !strings.HasSuffix(root, ":/")
}

// Root is the skill's directory: its SKILL.md URI without /SKILL.md.
func (s Skill) Root() string {
	root, _ := skillRoot(s.URI)
	return root
}

// Resolve turns a path relative to the skill's directory
// ("references/FORMS.md") into the URI of a file listed in the manifest;
// a path that leaves the directory or names an unlisted file is refused.
// A dynamic skill lists nothing: any path inside the directory resolves.
func (s Skill) Resolve(rel string) (Resource, error) {
	clean := path.Clean("/" + rel)[1:]
	if clean == "" || strings.HasPrefix(rel, "/") || clean != strings.TrimPrefix(rel, "./") {
		return Resource{}, &Error{s.URI, fmt.Sprintf("%q is not a plain path inside the skill's directory", rel)}
	}
	uri := s.Root() + "/" + clean
	if s.Dynamic {
		return Resource{URI: uri}, nil
	}
	for _, r := range s.Resources {
		if r.URI == uri {
			return r, nil
		}
	}
	return Resource{}, &Error{s.URI, fmt.Sprintf("the skill lists no file %s", clean)}
}

// Rel is a listed file's path relative to the skill's directory.
func (s Skill) Rel(r Resource) string {
	return strings.TrimPrefix(r.URI, s.Root()+"/")
}

// Verify checks a file's bytes against its manifest entry: size first,
// then digest. A dynamic skill's files carry no digest and pass.
func (r Resource) Verify(data []byte) error {
	if r.Digest == "" {
		return nil
	}
	if int64(len(data)) != r.Size {
		return &Error{r.URI, fmt.Sprintf("read %d bytes where the skill's entry says %d; the content is not used", len(data), r.Size)}
	}
	sum := sha256.Sum256(data)
	if got := "sha256:" + hex.EncodeToString(sum[:]); got != r.Digest {
		return &Error{r.URI, fmt.Sprintf("content digest %s does not match the skill's entry (%s); the content is not used", got, r.Digest)}
	}
	return nil
}

// maxFrontmatterValues, with two per byte, bounds the values SKILL.md's
// frontmatter may expand to (yamlnode.Options).
const maxFrontmatterValues = 10000

var frontmatterPattern = &lazy.Regexp{Pattern: `^---\r?\n((?s:.*?))\r?\n---[ \t]*(?:\r?\n|$)`}

// VerifyFrontmatter parses SKILL.md's YAML frontmatter and compares it,
// field by field, with the entry's: a skill whose file says something else
// than what was listed must not be loaded.
func (s Skill) VerifyFrontmatter(skillMD []byte) error {
	m := frontmatterPattern.Get().FindSubmatch(bytes.TrimPrefix(skillMD, []byte("\ufeff")))
	if m == nil {
		return &Error{s.URI, "SKILL.md does not begin with YAML frontmatter; the skill is not loaded"}
	}
	// The shared reader bounds what aliases expand to and how deep values
	// nest: the frontmatter is the server's to write.
	doc, err := yamlnode.Parse(m[1], yamlnode.Options{What: "SKILL.md's frontmatter", MaxNodes: maxFrontmatterValues})
	if err != nil {
		if ye, ok := errors.AsType[*yamlnode.Error](err); ok {
			ye.Line++ // a line of SKILL.md, whose first is the opening ---
		}
		line, _, _ := strings.Cut(err.Error(), "\n")
		return &Error{s.URI, "SKILL.md's frontmatter is not YAML: " + line}
	}
	if doc.Kind != yamlnode.Object {
		return &Error{s.URI, "SKILL.md's frontmatter is not a mapping; the skill is not loaded"}
	}
	got, err := doc.MarshalJSON()
	if err != nil {
		return &Error{s.URI, "SKILL.md's frontmatter has no JSON form: " + err.Error()}
	}
	var want, gotMap map[string]any
	if json.Unmarshal(s.Frontmatter, &want) != nil || json.Unmarshal(got, &gotMap) != nil {
		return &Error{s.URI, "the skill's entry gives a frontmatter that is no JSON object; the skill is not loaded"}
	}
	for _, keys := range []map[string]any{want, gotMap} { // a key of either
		for k := range keys {
			w, inWant := want[k]
			g, inGot := gotMap[k]
			if !inWant || !inGot || !reflect.DeepEqual(w, g) {
				return &Error{s.URI, fmt.Sprintf("SKILL.md's frontmatter field %q differs from the skill's entry; the skill is not loaded", k)}
			}
		}
	}
	return nil
}

// Get asks the server for one skill's entry by the URI of its SKILL.md and
// checks it.
func Get(ctx context.Context, client *mcp.Client, uri string) (Skill, error) {
	raw, err := client.GetSkill(ctx, uri)
	if err != nil {
		return Skill{}, err
	}
	s, err := Parse(raw)
	if err == nil && s.URI != uri {
		err = &Error{uri, "skills/get answered with another skill, " + s.URI}
	}
	return s, err
}

// ReadFile reads one file of a skill with resources/read and verifies it
// against the skill's entry. It returns the file's bytes and the
// resources/read result as sent.
func ReadFile(ctx context.Context, client *mcp.Client, r Resource) ([]byte, json.RawMessage, error) {
	res, err := client.Call(ctx, "resources/read", json.RawMessage(`{"uri":`+string(rawjson.MustMarshal(r.URI))+`}`))
	if err != nil {
		return nil, nil, err
	}
	data, err := resourceBytes(res, r.URI)
	if err != nil {
		return nil, nil, err
	}
	if err := r.Verify(data); err != nil {
		return nil, nil, err
	}
	return data, res, nil
}

// resourceBytes is the raw content of uri in a resources/read result: the
// UTF-8 of its text, or its decoded blob.
func resourceBytes(res json.RawMessage, uri string) ([]byte, error) {
	var r struct {
		Contents []struct {
			URI  string  `json:"uri"`
			Text *string `json:"text"`
			Blob *string `json:"blob"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, &Error{uri, "resources/read answered with no contents"}
	}
	for _, c := range r.Contents {
		if c.URI != uri && len(r.Contents) > 1 {
			continue
		}
		switch {
		case c.Text != nil:
			return []byte(*c.Text), nil
		case c.Blob != nil:
			b, err := base64.StdEncoding.DecodeString(*c.Blob)
			if err != nil {
				return nil, &Error{uri, "resources/read answered with a blob that is not base64"}
			}
			return b, nil
		}
	}
	return nil, &Error{uri, "resources/read answered without the file's text or blob"}
}
