package redact

import (
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
	"testing"
)

func TestNameShortForms(t *testing.T) {
	for name, want := range map[string]bool{
		"DB_PASS": true, "SMTP_PASS": true, "MYSQL_PWD": true, "REDIS_PW": true, "GPG_PASSPHRASE": true,
		"--pass": true, "pass": true, "x-db-pass": true,
		"GH_PAT": true, "PAT": true, "x-pat": true, "SLACK_WEBHOOK_URL": true, "DISCORD_WEBHOOK": true,
		"PATH": false, "PATTERN": false, "XDG_DATA_DIRS": false, "PWD": false, "OLDPWD": false, "COMPASS_DIR": false, "BYPASS": false, "PASSENGER_ROOT": false,
	} {
		if got := Name(name); got != want {
			t.Errorf("Name(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEnvSecrets(t *testing.T) {
	got := EnvSecrets([]string{"PATH=/usr/bin", "PWD=/home/ada/work", "DB_PASS=hunter22", "MYSQL_PWD=sql-pw-1",
		"DATABASE_URL=postgres://app:url-pw-9@db/app", "GITHUB_TOKEN=ghp_abc123", "NOT_AN_ASSIGNMENT", "=C:=C:\\",
		// settings under secret names: a word, a flag, a number
		"FEATURE_TOKEN_CHECK=true", "SECRETS_BACKEND=production", "API_KEY_ID=12345678", "PASSWORD_RULES=read-only", "API_TOKEN=false",
		// a secret under a name whose last word is the secret's, however short or plain
		"DB_PASSWORD=hunter2", "API_TOKEN=correcthorse", "PIN_PWD=1234",
		// a personal access token, a webhook's URL (whoever holds it posts), not a webhook's switch
		"GH_PAT=pat-1234", "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/T0/B0/XyZ", "WEBHOOK_ENABLED=true"})
	want := []string{"hunter22", "sql-pw-1", "url-pw-9", "url-pw-9", "YXBwOnVybC1wdy05", "YXBwOnVybC1wdy05", "ghp_abc123", // the URL's password, and the Basic credential made of it
		"hunter2", "correcthorse", "1234", "pat-1234", "https://hooks.slack.com/services/T0/B0/XyZ"}
	if !slices.Equal(got, want) {
		t.Errorf("EnvSecrets = %q, want %q", got, want)
	}
}

// A secret echoed URL-encoded or base64-encoded (either alphabet, padded
// or not, alone or at any offset of a longer text encoded whole) is
// masked, and what is left of its encoding beside the mask decodes to no
// more than two of its bytes on either side.
func TestFormsMaskEncodings(t *testing.T) {
	const secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY+EXAMPLE?KEY"
	s := NewScrubber(nil)
	s.Add(secret)
	check := func(what, text string) {
		t.Helper()
		masked := string(s.Mask([]byte(text)))
		if !strings.Contains(masked, Mask) {
			t.Errorf("%s: %q not masked", what, text)
			return
		}
		for _, piece := range strings.Split(masked, Mask) {
			for off := range 4 {
				if off >= len(piece) {
					break
				}
				c := strings.TrimRight(piece[off:], "=")
				c = c[:len(c)/4*4]
				for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
					d, err := enc.DecodeString(c)
					if err != nil {
						continue
					}
					for i := 0; i+3 <= len(secret); i++ {
						if strings.Contains(string(d), secret[i:i+3]) && !strings.Contains("xyzwv", secret[i:i+3]) {
							t.Errorf("%s: %q is left, which decodes to %q", what, piece, d)
							return
						}
					}
				}
			}
		}
	}
	check("query-escaped", "k="+url.QueryEscape(secret)+"&x=1")
	check("path-escaped", "/a/"+url.PathEscape(secret)+"/b")
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		check("alone", enc.EncodeToString([]byte(secret)))
		for prefix := range 7 {
			for suffix := range 4 {
				text := strings.Repeat("v", prefix) + secret + strings.Repeat("w", suffix)
				check("in a longer text", `{"blob":"`+enc.EncodeToString([]byte(text))+`"}`)
			}
		}
	}
}

// A value with a space and a + or = is escaped by neither of Go's
// escapers as Python's quote(v, safe="") does it (%20, %2B, %3D), with
// hex in either case: those forms are masked too, and the escapes of
// other text are not.
func TestFormsMaskEveryByteEscaped(t *testing.T) {
	cases := map[string]string{"q=hello%20world%2B1%3Dtwo%2Fthree": "q=hello%20world%2B1%3Dtwo%2Fthree"} // other text's escapes
	for _, echoed := range []string{"s3crtK3y%2BZq9L%20mN42pRt", "s3crtK3y%2bZq9L%20mN42pRt", "a%3Db%20c%2Bd%2Fe%3Af", "a%3db%20c%2bd%2fe%3af"} {
		cases["v="+echoed+"&x"] = "v=***&x"
	}
	checkMask(t, []string{"s3crtK3y+Zq9L mN42pRt", "a=b c+d/e:f"}, cases)
}

// Secrets that overlap in a text (one begins inside another) leave
// nothing of either behind, whichever is longer.
func TestScrubberOverlaps(t *testing.T) {
	checkMask(t, []string{"xab1", "ab1234567"}, map[string]string{
		"[xab1234567]": "[***]",
		"[ab1234567]":  "[***]",
		"[xab1]":       "[***]",
		"[xab12]":      "[***2]",
		"nothing here": "nothing here",
	})
}

// checkMask checks what a scrubber that knows secrets makes of each
// text: the text it should give.
func checkMask(t *testing.T, secrets []string, want map[string]string) {
	t.Helper()
	s := NewScrubber(nil)
	s.Add(secrets...)
	for in, w := range want {
		if got := string(s.Mask([]byte(in))); got != w {
			t.Errorf("Mask(%q) = %q, want %q", in, got, w)
		}
	}
}

// A write that ends in a secret that is also the beginning of a longer
// one holds it back: the next write may complete the longer one, whose
// end alone would otherwise go out unmasked.
func TestWriterHoldsASecretThatMayGrow(t *testing.T) {
	var b strings.Builder
	s := NewScrubber(&b)
	s.Add("abcd", "abcdefgh")
	s.Write([]byte("[abcd"))
	s.Write([]byte("efgh]"))
	s.Flush()
	if got := b.String(); got != "[***]" {
		t.Errorf("wrote %q, want [***]", got)
	}
}
