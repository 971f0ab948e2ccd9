package load

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"html"
	"strings"
	"testing"
)

// Text from the run (a server's error message, an operation's name) can
// neither end the page's data nor its script: it stays data, which the
// script sets as text. The page's own script is the one its Content
// Security Policy admits, and nothing else may run or load.
func TestPageIsSelfContainedAndInert(t *testing.T) {
	hostile := `</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)> &amp;`
	res := &Result{Version: Version, Operations: []OpResult{{Name: hostile, Weight: 1}},
		ErrorKinds: []Error{{Phase: "operation", Kind: "JSON-RPC -32000", Count: 1, Example: hostile}}}
	var b bytes.Buffer
	if err := WritePage(&b, res, map[string]string{"server": hostile}, "dev"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, "</script>"); n != 3 {
		t.Errorf("%d </script> in the page; want the three of its own", n)
	}
	if strings.Contains(page, "<img") || strings.Contains(page, "<!--") {
		t.Errorf("the run's text reached the page as markup")
	}
	sum := sha256.Sum256([]byte(pageJS))
	if !strings.Contains(html.UnescapeString(page), "script-src 'sha256-"+base64.StdEncoding.EncodeToString(sum[:])+"'") || !strings.Contains(page, "<script>"+pageJS+"</script>") {
		t.Errorf("the policy does not admit the page's script as written")
	}
	for _, far := range []string{"http://", "https://", "src=\"", "href="} {
		if strings.Contains(strings.ReplaceAll(page, "http://www.w3.org/2000/svg", ""), far) {
			t.Errorf("the page refers to %q: it must need no network", far)
		}
	}
	if len(page) > 64<<10 {
		t.Errorf("an empty run's page is %d bytes", len(page))
	}
}
