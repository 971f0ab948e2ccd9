package commands

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
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

// clipSecret shows the start of a header in an error, never its value.
func clipSecret(s string) string {
	if name, _, ok := strings.Cut(s, ":"); ok {
		return name + ": …"
	}
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
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
	return &http.Client{Transport: tr}, nil
}
