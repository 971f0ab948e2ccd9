package check

import (
	_ "embed"
	"slices"
	"strings"
	"sync"
)

// Catalogue is every check, in the report's order: by area, then as each
// area lists them. Each check's Area is the part of its id before the dot.
func Catalogue() []*Check {
	catalogueOnce.Do(build)
	return catalogue
}

var (
	catalogueOnce sync.Once
	catalogue     []*Check          // built once, by build
	byID          map[string]*Check // the same, by id
)

// checkByID is the check of an id, nil when none has it.
func checkByID(id string) *Check {
	catalogueOnce.Do(build)
	return byID[id]
}

func build() {
	all := slices.Concat(jsonrpcChecks(),
		lifecycleChecks(), listsChecks(), surfaceChecks(), readingChecks(),
		callChecks(), inputChecks(), taskChecks(), extTaskChecks(), streamableChecks(), probeChecks(),
		modernDiscoverChecks(), modernOwnChecks(), mrtrChecks(), retryChecks(),
		askedChecks(), authChecks(), extensionChecks(), skillsChecks(), portableChecks())
	rows := map[string][]string{} // checks.tsv's rows by id, each its six fields
	for line := range strings.Lines(checksTSV) {
		if f := strings.Split(strings.TrimSuffix(line, "\n"), "\t"); len(f) == 6 && !strings.HasPrefix(line, "#") {
			rows[f[0]] = f
		}
	}
	byArea := map[string][]*Check{}
	for _, c := range all {
		if f, ok := rows[c.ID]; ok {
			c.Level, c.Spec, c.Section, c.Title, c.Quote = Level(f[1]), f[2], f[3], f[4], f[5]
		} else if c.Title == "" {
			panic("check " + c.ID + " has no row in checks.tsv")
		}
		c.Area, _, _ = strings.Cut(c.ID, ".") // what comes before its dot
		byArea[c.Area] = append(byArea[c.Area], c)
	}
	byID = map[string]*Check{}
	for _, a := range Areas {
		catalogue = append(catalogue, byArea[a.ID]...)
	}
	for _, c := range catalogue {
		byID[c.ID] = c
	}
}

// checksTSV is what each check holds, where it is stated and in what
// words, by id: its header says how it is kept.
//
//go:embed checks.tsv
var checksTSV string
