// Package loadreport writes the HTML report of a run of mcpv load
// (--report FILE.html): one self-contained page, its styles, its script
// and the run's data inline, that opens with no network (its Content
// Security Policy lets no request leave it) and draws its charts as SVG
// in the page: latency over time with percentile bands, throughput and
// errors over time, the latency histogram; then the table of operations
// or steps, the errors, the search, the thresholds, the baseline and the
// run's settings. Everything from the run is data the script sets as
// text, never markup.
package loadreport

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/mcpv/mcpv/internal/load"
)

//go:embed page.html
var pageHTML string

//go:embed page.js
var pageJS string

// page is parsed when first used: mcpv's start-up parses nothing.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageHTML))
})

// Write writes res's page to w; settings are what the page shows of the
// run beyond the report (the command line, masked), and version mcpv's.
func Write(w io.Writer, res *load.Result, settings map[string]string, version string) error {
	data, err := json.Marshal(res)
	if err != nil {
		return err
	}
	set, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(pageJS))
	return page().Execute(w, struct {
		Report, Settings template.JS
		Script           template.JS
		ScriptHash       template.HTMLAttr
		Version          string
	}{
		Report:     template.JS(scriptSafe(data)),
		Settings:   template.JS(scriptSafe(set)),
		Script:     template.JS(pageJS),
		ScriptHash: template.HTMLAttr("'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"),
		Version:    version,
	})
}

// scriptSafe is JSON that cannot end the <script> element it is in nor
// open a comment there: json.Marshal already writes <, > and & as \u
// escapes; this holds it to that for any JSON.
func scriptSafe(data []byte) string {
	return strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(string(data))
}
