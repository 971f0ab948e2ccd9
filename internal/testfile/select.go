package testfile

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// AddFirst puts the steps --snapshot and --lint ask for first in a file
// that has none of its own: a snapshot step comparing with
// NAME.snapshot.json beside the file, and a lint step.
func (f *File) AddFirst(snapshot, lint bool) {
	has := func(k Kind) bool {
		return slices.ContainsFunc(f.Steps, func(s *Step) bool { return s.Kind == k })
	}
	var first []*Step
	if snapshot && !has(StepSnapshot) {
		base := filepath.Base(f.Path)
		stem := strings.TrimSuffix(base, filepath.Ext(base))
		first = append(first, &Step{Kind: StepSnapshot, Name: "snapshot " + stem + ".snapshot.json",
			Snapshot: filepath.Join(f.Dir, stem+".snapshot.json"), ByFlag: true})
	}
	if lint && !has(StepLint) {
		first = append(first, &Step{Kind: StepLint, Name: "lint"})
	}
	if len(first) == 0 {
		return
	}
	f.Steps = append(first, f.Steps...)
	for i, s := range f.Steps {
		s.Index = i + 1
	}
}

// Select picks the steps whose FILE-NAME/STEP-NAME filter matches (every
// step when filter is nil), and those whose captures they use.
func (f *File) Select(filter *regexp.Regexp) []bool {
	selected := make([]bool, len(f.Steps))
	for i, s := range f.Steps {
		selected[i] = filter == nil || filter.MatchString(f.Name+"/"+s.Name)
	}
	for i := len(f.Steps) - 1; i >= 0; i-- {
		if !selected[i] {
			continue
		}
		for _, name := range f.Steps[i].Needs {
			for j := i - 1; j >= 0; j-- {
				if slices.ContainsFunc(f.Steps[j].Captures, func(cs Capture) bool { return cs.Name == name }) {
					selected[j] = true
					break
				}
			}
		}
	}
	return selected
}
