package testfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Dir is where mcpv test looks for files when given none, beside the
// *.mcpv.yaml files of the current directory.
const Dir = "mcpv-tests"

// ErrNoFiles is Find's error when it finds no test files by itself.
var ErrNoFiles = errors.New("no test files: give FILE..., name them NAME.mcpv.yaml here, or put them in ./" + Dir + "/ (see mcpv test --help)")

// Find lists the files to run: those given (a directory stands for its
// .yaml and .yml files), or when none is given the *.mcpv.yaml (and .yml)
// files of the current directory and the files in ./mcpv-tests. path
// makes a path as given absolute.
func Find(given []string, path func(string) string) ([]string, error) {
	if len(given) == 0 {
		return findDefault(path)
	}
	var paths []string
	for _, g := range given {
		info, err := os.Stat(path(g))
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			paths = append(paths, g)
			continue
		}
		found, err := yamlFiles(path, g, func(name string) bool { return true })
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s has no .yaml or .yml test files", g)
		}
		paths = append(paths, found...)
	}
	return paths, nil
}

func findDefault(path func(string) string) ([]string, error) {
	paths, err := yamlFiles(path, ".", func(name string) bool {
		return strings.HasSuffix(strings.TrimSuffix(name, filepath.Ext(name)), ".mcpv")
	})
	if err != nil {
		return nil, err
	}
	if info, err := os.Stat(path(Dir)); err == nil && info.IsDir() {
		found, err := yamlFiles(path, Dir, func(string) bool { return true })
		if err != nil {
			return nil, err
		}
		paths = append(paths, found...)
	}
	if len(paths) == 0 {
		return nil, ErrNoFiles
	}
	return paths, nil
}

// yamlFiles are the .yaml and .yml files in dir that keep says to keep, in
// name order.
func yamlFiles(path func(string) string, dir string, keep func(name string) bool) ([]string, error) {
	entries, err := os.ReadDir(path(dir))
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries {
		if ext := filepath.Ext(e.Name()); !e.IsDir() && (ext == ".yaml" || ext == ".yml") && keep(e.Name()) {
			paths = append(paths, filepath.Join(dir, e.Name()))
		}
	}
	return paths, nil
}

// Findable says whether mcpv test would find path by itself: a
// NAME.mcpv.yaml (or .yml) file, or a .yaml or .yml file in a directory
// called mcpv-tests.
func Findable(path string) bool {
	ext := filepath.Ext(path)
	return (ext == ".yaml" || ext == ".yml") && (strings.HasSuffix(strings.TrimSuffix(path, ext), ".mcpv") || filepath.Base(filepath.Dir(path)) == Dir)
}
