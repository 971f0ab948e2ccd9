package check

import "sync"

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
	var all []*Check
	for _, area := range [][]*Check{jsonrpcChecks(), lifecycleChecks(), listsChecks(), surfaceChecks(), readingChecks(), callChecks(), taskChecks(), httpChecks(), modernChecks(), mrtrChecks(), retryChecks(), authChecks(), extensionChecks(), skillsChecks(), cardChecks(), portableChecks()} {
		all = append(all, area...)
	}
	byArea := map[string][]*Check{}
	for _, c := range all {
		c.Area = areaOf(c.ID)
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
