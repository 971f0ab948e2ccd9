// The HTML report of a run of mcpv load
// (--report FILE.html): one self-contained page, its styles, its script
// and the run's data inline, that opens with no network (its Content
// Security Policy lets no request leave it) and draws its charts as SVG
// in the page: latency over time with percentile bands, throughput and
// errors over time, the latency histogram; then the table of operations
// or steps, the errors, the search, the thresholds, the baseline and the
// run's settings. Everything from the run is data the script sets as
// text, never markup.

package load

import (
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"strings"
)

//go:embed page.html
var pageHTML string

//go:embed page.js
var pageJS string

// WritePage writes res's page to w; settings are what the page shows of the
// run beyond the report (the command line, masked), and version mcpv's.
func WritePage(w io.Writer, res *Result, settings map[string]string, version string) error {
	data, err := json.Marshal(res)
	set, setErr := json.Marshal(settings)
	if err := cmp.Or(err, setErr); err != nil {
		return err
	}
	sum := sha256.Sum256([]byte(pageJS))
	// The page's five holes, filled in one pass (what fills one is not
	// read again): the run's JSON and the settings' made safe inside a
	// script element, the script and its hash as they are (the page's
	// own), the version as text. (No html/template: its start-up cost
	// is paid by every mcpv command, for one page.)
	page := strings.NewReplacer(
		"{{.ScriptHash}}", "'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'",
		"{{.Version}}", html.EscapeString(version),
		"{{.Report}}", scriptSafe(data),
		"{{.Settings}}", scriptSafe(set),
		"{{.Script}}", pageJS,
	).Replace(pageHTML)
	_, err = io.WriteString(w, page)
	return err
}

// scriptSafe is JSON that cannot end the <script> element it is in nor
// open a comment there: json.Marshal already writes <, > and & as \u
// escapes; this holds it to that for any JSON.
func scriptSafe(data []byte) string {
	return strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(string(data))
}
