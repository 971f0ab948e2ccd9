package commands

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// parseHeader reads one "Name: value" header.
func parseHeader(s string) ([2]string, error) {
	name, value, ok := strings.Cut(s, ":")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t") {
		return [2]string{}, fmt.Errorf("--header %q: want 'Name: value'", clipSecret(s))
	}
	return [2]string{name, strings.TrimSpace(value)}, nil
}

// clipSecret shows a header in an error without its value: a malformed
// header may well be a bare token.
func clipSecret(s string) string {
	if name, _, ok := strings.Cut(s, ":"); ok {
		return name + ": …"
	}
	return fmt.Sprintf("(%d characters)", len(s))
}

// headers gathers the -H flags, reading @FILE ones (one header per line,
// blank lines and # comments skipped).
func headers(flags []string) (http.Header, error) {
	h := http.Header{}
	for _, f := range flags {
		lines := []string{f}
		if path, ok := strings.CutPrefix(f, "@"); ok {
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, usageErrorf("--header: %v", err)
			}
			lines = nil
			sc := bufio.NewScanner(bytes.NewReader(data))
			for sc.Scan() {
				if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
					lines = append(lines, l)
				}
			}
		}
		for _, l := range lines {
			kv, err := parseHeader(l)
			if err != nil {
				return nil, usageError{err}
			}
			h.Add(kv[0], kv[1])
		}
	}
	return h, nil
}

// httpClient is the client every HTTP request goes through: the system's
// roots plus --cacert, the proxy from the environment, no timeout of its own
// (streams live long; requests have their own). An authorization layer can
// wrap its Transport.
func httpClient(cacert string) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cacert != "" {
		pem, err := os.ReadFile(cacert)
		if err != nil {
			return nil, usageErrorf("--cacert: %v", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, usageErrorf("--cacert %s: no PEM certificate found", cacert)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr, CheckRedirect: sameOrigin}, nil
}

// sameOrigin follows redirects only within the server's origin: -H headers
// and the session id must not reach another host.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return fmt.Errorf("refusing to follow a redirect to another origin (%s://%s)", req.URL.Scheme, req.URL.Host)
	}
	return nil
}
