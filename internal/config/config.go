// Package config finds MCP servers by name in config files: mcpv's own
// catalog, the project's .mcp.json and .vscode/mcp.json, and the files of
// Claude Desktop, Claude Code and Cursor. It reads the files and expands
// their variables; it never reads the process environment itself (Env is
// given), starts nothing and decides no trust.
package config

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpv/mcpv/internal/safedir"
	"github.com/mcpv/mcpv/internal/safefile"
	"github.com/mcpv/mcpv/internal/safetext"
	"github.com/mcpv/mcpv/internal/suggest"
	"github.com/mcpv/mcpv/internal/yamlnode"
)

// Kind says how far a config file is trusted.
type Kind int

const (
	// User files are the user's own (the mcpv catalog, Claude, Cursor, a
	// --config outside the current repository): trusted.
	User Kind = iota
	// Project files come with the directory the user is in (./.mcp.json,
	// ./.vscode/mcp.json, any file under the current repository): their
	// stdio servers run only once the user has trusted the file.
	Project
)

// Env is what the lookup may know of the world.
type Env struct {
	Getenv func(string) string // the environment, for ${VAR} and the XDG variables
	// Lookup tells a variable set to "" from an unset one; nil treats "" as unset.
	Lookup func(string) (string, bool)
	Cwd    string // absolute
	Home   string
	GOOS   string
	Flag   string // --config, or ""
	// Ask asks the user for the value of an input of s's file (see
	// Input); nil, or ErrNoTerminal from it, when there is no terminal.
	Ask func(s *Server, in Input) (string, error)
}

// Source is one place servers may be configured.
type Source struct {
	Path     string // absolute
	Label    string // where it comes from: "--config", "project", "Claude Desktop", ...
	Kind     Kind
	Required bool   // a missing file is an error (--config, MCPV_CONFIG)
	Foreign  bool   // another program's file: a broken one is skipped with a warning
	Own      bool   // mcpv's catalog: a key mcpv does not read at its top is a mistake (so in any YAML file)
	YAML     bool   // parsed as YAML; otherwise JSON (comments allowed)
	Folder   string // ${workspaceFolder}, and the base of a relative cwd
	project  string // ~/.claude.json: the key of the current project
}

// ProjectFiles are the project's own config files, relative to the
// directory the user is in, with their labels.
var ProjectFiles = []struct{ Path, Label string }{
	{".mcp.json", "project"},
	{filepath.Join(".vscode", "mcp.json"), "project (VS Code)"},
	{filepath.Join(".cursor", "mcp.json"), "project (Cursor)"},
}

// FileSource is the source for a file the user names (relative to cwd).
func FileSource(path, cwd, label string) Source {
	s := Source{Path: absolute(path, cwd), Label: label, Required: true}
	s.Folder = filepath.Dir(s.Path)
	s.YAML = strings.HasSuffix(s.Path, ".yaml") || strings.HasSuffix(s.Path, ".yml")
	return s
}

// Sources lists where servers are looked for, first match wins.
func Sources(env Env) []Source {
	var out []Source
	add := func(s Source) {
		s.Folder = cmp.Or(s.Folder, filepath.Dir(s.Path))
		s.YAML = strings.HasSuffix(s.Path, ".yaml") || strings.HasSuffix(s.Path, ".yml")
		out = append(out, s)
	}
	if env.Flag != "" {
		add(FileSource(env.Flag, env.Cwd, "--config"))
	}
	if p := env.Getenv("MCPV_CONFIG"); p != "" {
		add(FileSource(p, env.Cwd, "MCPV_CONFIG"))
	}
	// The project's files: in the directory mcpv runs in, then at the top
	// of its repository. The workspace of .vscode/ and .cursor/ is the
	// directory above them.
	dirs := []string{env.Cwd}
	if root := repoRoot(env.Cwd); root != "" && root != RealPath(env.Cwd) {
		dirs = append(dirs, root)
	}
	for _, dir := range dirs {
		for _, f := range ProjectFiles {
			add(Source{Path: filepath.Join(dir, f.Path), Label: f.Label, Kind: Project, Folder: dir, Foreign: true})
		}
	}

	for _, dir := range catalogDirs(env) {
		for _, name := range []string{"servers.yaml", "servers.yml", "servers.json"} {
			add(Source{Path: safedir.Join(env.GOOS, dir, name), Label: "mcpv catalog", Own: true})
		}
	}
	if env.Home != "" {
		add(Source{Path: safedir.Join(env.GOOS, env.Home, ".claude.json"), Label: "Claude Code", project: env.Cwd, Foreign: true})
		add(Source{Path: safedir.Join(env.GOOS, appConfigDir(env), "Claude", "claude_desktop_config.json"), Label: "Claude Desktop", Foreign: true})
		add(Source{Path: safedir.Join(env.GOOS, appConfigDir(env), "Code", "User", "mcp.json"), Label: "VS Code", Foreign: true})
		add(Source{Path: safedir.Join(env.GOOS, env.Home, ".cursor", "mcp.json"), Label: "Cursor", Foreign: true})
	}
	return classify(out, env.Cwd)
}

// xdgConfigHome is $XDG_CONFIG_HOME when set and absolute, else ~/.config.
func xdgConfigHome(env Env) string {
	if d := env.Getenv("XDG_CONFIG_HOME"); safedir.IsAbs(env.GOOS, d) {
		return d
	}
	return safedir.Join(env.GOOS, env.Home, ".config")
}

// appConfigDir is where desktop programs keep their settings (what
// os.UserConfigDir says on each OS): %APPDATA% on Windows,
// ~/Library/Application Support on macOS, the XDG config home elsewhere.
func appConfigDir(env Env) string {
	switch env.GOOS {
	case "windows":
		if d := env.Getenv("APPDATA"); safedir.IsAbs(env.GOOS, d) {
			return d
		}
		return safedir.Join(env.GOOS, env.Home, "AppData", "Roaming")
	case "darwin":
		return safedir.Join(env.GOOS, env.Home, "Library", "Application Support")
	}
	return xdgConfigHome(env)
}

// catalogDirs are where mcpv's own catalog may be, first match wins: the
// XDG config home on Linux and the BSDs (and on macOS when
// XDG_CONFIG_HOME is set); on macOS ~/.config/mcpv, where command-line
// users keep such files, then ~/Library/Application Support/mcpv; on
// Windows $XDG_CONFIG_HOME\mcpv when set, else %APPDATA%\mcpv.
func catalogDirs(env Env) []string {
	switch env.GOOS {
	case "windows":
		if safedir.IsAbs(env.GOOS, env.Getenv("XDG_CONFIG_HOME")) { // set on purpose, as gh honours it
			break
		}
		return []string{safedir.Join(env.GOOS, appConfigDir(env), "mcpv")}
	case "darwin":
		if !safedir.IsAbs(env.GOOS, env.Getenv("XDG_CONFIG_HOME")) {
			return []string{safedir.Join(env.GOOS, env.Home, ".config", "mcpv"), safedir.Join(env.GOOS, appConfigDir(env), "mcpv")}
		}
	}
	return []string{safedir.Join(env.GOOS, xdgConfigHome(env), "mcpv")}
}

// classify marks as Project the --config and MCPV_CONFIG files that lie
// under the current repository, and drops a file listed twice (keeping the
// first place, and the stricter kind).
func classify(srcs []Source, cwd string) []Source {
	root := repoRoot(cwd)
	seen := map[string]int{}
	var out []Source
	for _, s := range srcs {
		real := RealPath(s.Path)
		if s.Required && root != "" && within(real, root) {
			s.Kind = Project
		}
		if i, dup := seen[real]; dup {
			if s.Kind == Project {
				out[i].Kind = Project
			}
			continue
		}
		seen[real] = len(out)
		out = append(out, s)
	}
	return out
}

// repoRoot is the top of the version-controlled tree holding dir, or "".
func repoRoot(dir string) string {
	dir = RealPath(dir)
	for {
		for _, marker := range []string{".git", ".hg", ".jj"} {
			if _, err := os.Lstat(filepath.Join(dir, marker)); err == nil {
				return dir
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// RealPath resolves symbolic links as far as the path exists.
func RealPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if dir, base := filepath.Split(p); dir != "" && dir != p {
		if r, err := filepath.EvalSymlinks(filepath.Clean(dir)); err == nil {
			return filepath.Join(r, base)
		}
	}
	return p
}

func absolute(p, cwd string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(cwd, p)
}

// File is a config file as read: its bytes (what trust is given to) and the
// servers it defines.
type File struct {
	Source
	Data    []byte
	Servers []*Server
	Inputs  []Input // what ${input:ID} asks for
}

// Server is one configured server, as written (variables not yet expanded).
type Server struct {
	Name      string
	File      *File
	Line, Col int // where the entry starts

	Transport       string // "stdio", "auto" (Streamable HTTP, then legacy SSE), "streamable-http" or "sse"
	Command         string
	Args            []string
	Env             []Var
	Cwd             string
	URL             string
	Headers         []Var
	Timeout         time.Duration // 0: not set
	ProtocolVersion string
	Framing         string // a stdio server's: "auto", "lines", "content-length", or "" (not set)
	OAuth           OAuth
	Guard           *Guard   // what mcpv serve lets its clients use; nil: everything
	Pin             string   // the pin file the server's items are held to (mcpv pin), as written; "" for none
	PinStrict       bool     // pinStrict: true: refuse every item while the instructions are not those pinned
	NoExtensions    []string // the extensions turned off for the server (extensions: {NAME: false}), as written
	IfDeclared      bool     // if_declared: a list of a capability the server does not declare is empty (exit 0), not exit 3
	Warnings        []string // fields mcpv understood but cannot honour
}

// OAuth is how to authorize at an entry's HTTP server: a pre-registered
// client, and the settings its authorization server needs.
type OAuth struct {
	ClientID          string
	ClientSecret      string
	ClientKey         string // a PEM file with an EC P-256 key (private_key_jwt)
	ClientMetadataURL string
	Grant             string // "authorization_code", "client_credentials" or "jwt_bearer"
	Assertion         string // for jwt_bearer: the workload's JWT (typically ${VAR})
	DPoP              string // "auto", "always", "never" or ""
	Resource          string // the RFC 8707 resource to ask for, "none", or "" for the server's
	Scope             string // the scopes to ask for, space-separated; "" for the server's
	RedirectHost      string // the redirect URI's host, port and path; "" and 0 for mcpv's choice
	RedirectPort      int
	RedirectPath      string
	LoginTimeout      time.Duration // 0: not set
}

// Var is a name and value, kept in file order.
type Var struct{ Name, Value string }

// Where names the entry's place: "path:line:col".
func (s *Server) Where() string {
	return fmt.Sprintf("%s:%d:%d", safetext.Line(s.File.Path), s.Line, s.Col)
}

// FileError is a config file that cannot be read or understood.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string {
	if pe, ok := errors.AsType[*yamlnode.Error](e.Err); ok {
		return fmt.Sprintf("%s:%s", e.Path, pe.Error())
	}
	return fmt.Sprintf("%s: %v", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// Load reads and parses the source. A missing optional file is (nil, nil).
func Load(src Source) (*File, error) {
	data, err := safefile.Read(src.Path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !src.Required {
			return nil, nil
		}
		return nil, &FileError{Path: src.Path, Err: UnwrapPathError(err)}
	}
	f := &File{Source: src, Data: data}
	if err := f.parse(); err != nil {
		return nil, &FileError{Path: src.Path, Err: err}
	}
	return f, nil
}

// UnwrapPathError is a file's error without the path, which FileError says.
func UnwrapPathError(err error) error {
	if pe, ok := errors.AsType[*os.PathError](err); ok {
		return pe.Err
	}
	return err
}

// NotFoundError is a name no source defines.
type NotFoundError struct {
	Name     string
	Searched []string // the files that exist and were read
	Known    []string // the names they define, in order, without repeats
}

func (e *NotFoundError) Error() string {
	if len(e.Searched) == 0 {
		return fmt.Sprintf("no server named %q: no config file found (see 'mcpv servers --help')", e.Name)
	}
	return safetext.Line(fmt.Sprintf("no server named %q in %s%s", e.Name, strings.Join(e.Searched, ", "), suggest.DidYouMean(e.Name, e.Known)))
}

// Find returns the first server called name, reading the sources in order
// and no further than needed. Another program's file that cannot be read
// or parsed is skipped and returned in skipped, for a warning; a broken file
// of mcpv's own is an error.
func Find(env Env, name string) (s *Server, skipped []*FileError, err error) {
	var searched, known []string
	err = walk(env, &skipped, func(f *File) bool {
		searched = append(searched, f.Path)
		for _, def := range f.Servers {
			if def.Name == name {
				s = def
				return true
			}
			if !slices.Contains(known, def.Name) {
				known = append(known, def.Name)
			}
		}
		return false
	})
	if err == nil && s == nil {
		err = &NotFoundError{Name: name, Searched: searched, Known: known}
	}
	return s, skipped, err
}

// Definitions returns every server called name, in the order of the
// sources: the first is the one Find returns, the others it shadows.
func Definitions(env Env, name string) (defs []*Server, skipped []*FileError, err error) {
	err = walk(env, &skipped, func(f *File) bool {
		for _, def := range f.Servers {
			if def.Name == name {
				defs = append(defs, def)
			}
		}
		return false
	})
	return defs, skipped, err
}

// All reads every source and returns the files found, in order, and those
// skipped as Find does.
func All(env Env) (files []*File, skipped []*FileError, err error) {
	err = walk(env, &skipped, func(f *File) bool {
		files = append(files, f)
		return false
	})
	return files, skipped, err
}

// walk loads the sources in order and hands each file found to fn until fn
// returns true. Broken files of other programs go to skipped.
func walk(env Env, skipped *[]*FileError, fn func(*File) bool) error {
	for _, src := range Sources(env) {
		f, err := Load(src)
		if fe, ok := errors.AsType[*FileError](err); ok && src.Foreign {
			*skipped = append(*skipped, fe)
			continue
		}
		if err != nil {
			return err
		}
		if f != nil && fn(f) {
			return nil
		}
	}
	return nil
}
