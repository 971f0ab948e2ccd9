package canon

import (
	"errors"
	"testing"
)

func TestURI(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"file:///docs/a.txt", "file:///docs/a.txt"},
		{"FILE:///docs/a.txt", "file:///docs/a.txt"},
		{"file://localhost/docs/a.txt", "file:///docs/a.txt"},
		{"file://LocalHost/docs/a.txt", "file:///docs/a.txt"},
		{"file:/docs/a.txt", "file:///docs/a.txt"},
		{"file://127.0.0.1/private/key", "file:///private/key"}, // a file URI by its path alone
		{"file://[::1]/private/key", "file:///private/key"},
		{"file://127.1/private/key", "file:///private/key"},
		{"file://localhost:80/private/key", "file:///private/key"},
		{"file://user@localhost/private/key", "file:///private/key"},
		{"file://evil.example/private/key", "file:///private/key"},
		{"file://user:pw@evil.example:8080/private/key", "file:///private/key"},
		{"file://*/private/key", "file:///private/key"},
		{"file://evil.example", "file:///"},
		{"file:///docs/./a.txt", "file:///docs/a.txt"},
		{"file:///docs/x/../a.txt", "file:///docs/a.txt"},
		{"file:///docs/../private/secret.txt", "file:///private/secret.txt"},
		{"file:///docs/%2e%2e/private/secret.txt", "file:///private/secret.txt"},
		{"file:///docs/%2E%2E/private/secret.txt", "file:///private/secret.txt"},
		{"file:///docs/.%2e/private", "file:///private"},
		{"file:///%70rivate/secret", "file:///private/secret"},
		{"file:///../../etc/passwd", "file:///etc/passwd"},
		{"file:///docs/a%20b.txt", "file:///docs/a%20b.txt"},
		{"file:///docs/caf%c3%a9", "file:///docs/caf%C3%A9"},
		{"file:///docs/", "file:///docs/"},
		{"file:///docs/.", "file:///docs/"},
		{"file:///docs/x/..", "file:///docs/"},
		{"HTTP://Example.COM:80", "http://example.com/"},
		{"https://example.com:443/a?b=%7e#%41", "https://example.com/a?b=~#A"},
		{"https://example.com:8443/a", "https://example.com:8443/a"},
		{"http://127.1/admin", "http://localhost/admin"}, // a network URI's host as a client connects to it
		{"http://127.0.0.1:80/admin", "http://localhost/admin"},
		{"http://127.9.9.9/admin", "http://localhost/admin"},
		{"http://[::1]/admin", "http://localhost/admin"},
		{"http://[0:0:0:0:0:0:0:1]:8080/admin", "http://localhost:8080/admin"},
		{"http://[::ffff:127.0.0.1]/admin", "http://localhost/admin"},
		{"http://[::ffff:7f00:1]/admin", "http://localhost/admin"},
		{"http://2130706433/admin", "http://localhost/admin"},
		{"http://0x7f.0.0.1/admin", "http://localhost/admin"},
		{"http://0177.0.0.1/admin", "http://localhost/admin"},
		{"http://0/admin", "http://localhost/admin"},
		{"http://[::]/admin", "http://localhost/admin"},
		{"http://localhost./admin", "http://localhost/admin"},
		{"http://app.localhost/admin", "http://localhost/admin"},
		{"http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/admin", "http://localhost/admin"},
		{"ws://user@127.1:80/x", "ws://user@localhost/x"},
		{"https://10.1/x", "https://10.0.0.1/x"},
		{"https://0x0a000001/x", "https://10.0.0.1/x"},
		{"https://[2001:DB8:0::1]/x", "https://[2001:db8::1]/x"},
		{"https://[::ffff:10.0.0.1]/x", "https://10.0.0.1/x"},
		{"https://b\u00fccher.example./x", "https://xn--bcher-kva.example/x"},
		{"https://1.2.3.4.5/x", "https://1.2.3.4.5/x"}, // no address: five parts
		{"https://256.1.1.1/x", "https://256.1.1.1/x"}, // nor a part over 255
		{"https://cafe.1/x", "https://cafe.1/x"},       // nor a name
		{"demo://127.1/x", "demo://127.1/x"},           // another scheme's host as it is
		{"ftp://127.1:21/x", "ftp://localhost/x"},
		{"demo://readme", "demo://readme/"},
		{"demo://readme/.", "demo://readme/"},
		{"demo://readme/x/..", "demo://readme/"},
		{"urn:isbn:0451450523", "urn:isbn:0451450523"},
		{"file:///a/b/c/./../../g", "file:///a/g"},
		{"", ""},
	} {
		got, err := URI(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("URI(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestURIAmbiguous(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		"file:///docs/..%2fprivate/secret",     // an encoded slash
		"file:///docs/..%2Fprivate/secret",     //
		"file:///docs/..%5cprivate",            // an encoded backslash
		"file:///docs/%252e%252e/private",      // encoded twice
		`file:///docs/..\private`,              // a backslash
		"file:////private/secret",              // an empty segment
		"file:///private//secret",              //
		"file:///docs/a.txt%00.md",             // NUL
		"file:///docs/a.txt\x00",               //
		" file:///private/secret",              // white space at an end
		"file:///private/secret\n",             //
		"file:///docs/\uff0e\uff0e/private",    // full-width dots
		"file:///docs/..\uff0fprivate",         // a full-width solidus
		"file:///docs/%ef%bc%8e%ef%bc%8e/priv", // the same, encoded
		"file:///docs/\u2025/private",          // a two-dot leader
		"file:///docs/a\u200b.txt",             // an invisible character
		"file:///docs/x?path=../../private",    // ".." in a query
		"file:///docs/x#/../../private/secret", // in a fragment
		"file:///docs/..;/private",             // a path parameter
		"demo:docs/../private",                 // an opaque path
		"demo://x/../readme",                   // out of the host
		"demo://x/%2e%2e/readme",               //
		"file:///docs/\xff",                    // not UTF-8
	} {
		got, err := URI(in)
		var ae *AmbiguousError
		if !errors.As(err, &ae) {
			t.Errorf("URI(%q) = %q, %v; want it refused as ambiguous", in, got, err)
		}
	}
}

func TestPattern(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"file:///docs/*", "file:///docs/*"},
		{"FILE://LOCALHOST/docs/*", "file:///docs/*"},
		{"file:/docs/*", "file:///docs/*"},
		{"file://evil.example/docs/*", "file:///docs/*"}, // its host dropped, as a URI's is
		{"file://user@host:21/docs/*", "file:///docs/*"},
		{"file://*/docs/*", "file://*/docs/*"}, // a glob host kept: it matches the empty one
		{"file://*", "file://*"},
		{"file:///%64ocs/?.txt", "file:///docs/?.txt"},
		{"HTTPS://API.Example.com/*", "https://api.example.com/*"},
		{"*", "*"},
		{"repo://mcpv/*", "repo://mcpv/*"},
		{"demo://readme", "demo://readme/"},
		{"demo://*", "demo://*"},
		{"http://127.1/*", "http://localhost/*"},
		{"http://[::1]:8080/*", "http://localhost:8080/*"},
		{"http://*.localhost/*", "http://*.localhost/*"}, // a glob host as it is
		{"demo://read?e", "demo://read?e"},
	} {
		if got := Pattern(tt.in); got != tt.want {
			t.Errorf("Pattern(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestName(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"delete_all", "read.file", "simple prompt", "café", "工具"} {
		if err := Name(ok); err != nil {
			t.Errorf("Name(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"delete_all\x00", "delete_all ", " delete_all", "delete\u200ball", "delete_all\u00a0", "del\tete", "delete\u202eall", "\xff"} {
		if err := Name(bad); err == nil {
			t.Errorf("Name(%q) = nil, want it refused", bad)
		}
	}
}

func TestFold(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"DELETE_ALL", "delete_all"},
		{"ｄｅｌｅｔｅ＿all", "delete_all"},
		{"𝐝elete_all", "delete_all"},
		{"delete_all", "delete_all"},
	} {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLowerASCII(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"Read The KEY", "read the key"},
		{"ȺȺ Tool", "ȺȺ tool"},             // Ⱥ, whose lower case is a byte longer, as it was
		{"\u212aey Tool", "\u212aey tool"}, // the Kelvin sign, two bytes longer than its lower case
		{"Ä\xffZ", "Ä\xffz"},
	} {
		if got := LowerASCII(tt.in); got != tt.want || len(got) != len(tt.in) {
			t.Errorf("LowerASCII(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
