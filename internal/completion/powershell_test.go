package completion

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alecthomas/kong"
)

func TestPowerShellQuote(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"":                        "''",
		"plain":                   "'plain'",
		"it's":                    "'it''s'",
		"$HOME `x` \"y\"":         "'$HOME `x` \"y\"'", // nothing expands inside single quotes
		"it\u2019s \u2018q\u2019": "'it\u2019\u2019s \u2018\u2018q\u2019\u2019'",
	}
	for in, want := range tests {
		if got := psQuote(in); got != want {
			t.Errorf("psQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// quoting is a grammar whose help texts hold everything PowerShell could
// take for the end of a string or for code.
type quoting struct {
	Name string `help:"It's \u2018quoted\u2019, \"twice\", with $(Get-Date) and a } and a )."`
	Do   struct {
		What string `arg:"" enum:"it's,plain" help:"Which one's."`
	} `cmd:"" help:"Don't { or (."`
}

// The script's brackets balance outside strings and comments, and every
// string ends: a help text cannot end a string early and become code.
func TestPowerShellScriptIsWellFormed(t *testing.T) {
	t.Parallel()
	for _, grammar := range []any{&toy{}, &quoting{}} {
		k, err := kong.New(grammar, kong.Name("mcpv"))
		if err != nil {
			t.Fatal(err)
		}
		script, err := Script(k.Model, "powershell")
		if err != nil {
			t.Fatal(err)
		}
		if err := psBalanced(script); err != nil {
			t.Errorf("%T: %v", grammar, err)
		}
	}
}

// psBalanced checks the brackets of PowerShell source, skipping
// single-quoted strings (any of ' ‘ ’ ‚ ‛ quotes; doubled inside), double-quoted
// ones (" “ ” „; doubled or after a backtick inside) and # comments.
func psBalanced(src string) error {
	const single, double = "'\u2018\u2019\u201a\u201b", "\"\u201c\u201d\u201e"
	var stack []rune
	runes := []rune(src)
	line := 1
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		switch {
		case r == '\n':
			line++
		case r == '#' && (i == 0 || strings.ContainsRune(" \t\n", runes[i-1])):
			for i < len(runes)-1 && runes[i+1] != '\n' {
				i++
			}
		case strings.ContainsRune(single, r) || strings.ContainsRune(double, r):
			quotes, start := single, line
			if strings.ContainsRune(double, r) {
				quotes = double
			}
			for i++; ; i++ {
				if i == len(runes) {
					return fmt.Errorf("the string on line %d never ends", start)
				}
				c := runes[i]
				if c == '\n' {
					line++
				}
				if quotes == double && c == '`' {
					i++
					continue
				}
				if strings.ContainsRune(quotes, c) {
					if i+1 < len(runes) && strings.ContainsRune(quotes, runes[i+1]) {
						i++
						continue
					}
					break
				}
			}
		case strings.ContainsRune("({[", r):
			stack = append(stack, r)
		case strings.ContainsRune(")}]", r):
			open := map[rune]rune{')': '(', '}': '{', ']': '['}[r]
			if len(stack) == 0 || stack[len(stack)-1] != open {
				return fmt.Errorf("line %d: %q closes nothing open", line, r)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) > 0 {
		return fmt.Errorf("%q left open", string(stack))
	}
	return nil
}

// The checker itself finds what it is for.
func TestPsBalanced(t *testing.T) {
	t.Parallel()
	good := []string{"@{ a = 'x)'; b = \"y}\" } # (", "f('it''s')", "\"a`\"b\" ( )"}
	bad := []string{"@{ a = 'x' ", "'it's'", "f(}", "\"open"}
	for _, s := range good {
		if err := psBalanced(s); err != nil {
			t.Errorf("psBalanced(%q) = %v", s, err)
		}
	}
	for _, s := range bad {
		if psBalanced(s) == nil {
			t.Errorf("psBalanced(%q) found nothing wrong", s)
		}
	}
}
