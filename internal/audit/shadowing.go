package audit

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/mcpv/mcpv/internal/canon"
	"github.com/mcpv/mcpv/internal/lazy"
)

// identifier is a word that reads as a tool's name: with an underscore,
// a hyphen between letters, or a capital inside, five characters or more.
var identifier = &lazy.Regexp{Pattern: `^(?:[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+)$`}

// otherTools finds a text that names a tool the server does not have
// ("the send_email tool"): low, as it may be an honest pointer to a tool
// of another server; an order about it is the phrase rules' to find, and
// a tool another server of the config has, acrossServers'. ("a
// function" names code, not a tool.)
func otherTools(fl field, own map[string]bool, f finder) []Finding {
	var out []Finding
	lower := canon.LowerASCII(fl.text)
	for i := 0; len(out) < 8; {
		j := strings.Index(lower[i:], "tool")
		if j < 0 {
			break
		}
		at := i + j
		i = at + len("tool")
		if i < len(lower) && isNameByte(lower[i]) || at == 0 || !unicode.IsSpace(rune(lower[at-1])) {
			continue // toolbox, a tool's name that starts with it
		}
		end := at
		for end > 0 && unicode.IsSpace(rune(fl.text[end-1])) {
			end--
		}
		start := end
		for start > 0 && (isNameByte(fl.text[start-1]) || fl.text[start-1] == '.') {
			start--
		}
		name := strings.Trim(fl.text[start:end], ".")
		if start > 0 && strings.ContainsRune("`'\"", rune(fl.text[start-1])) {
			start--
		}
		if len(name) < 4 || own[strings.ToLower(name)] || !identifier.Get().MatchString(name) || strings.EqualFold(name, fl.name) {
			continue
		}
		out = append(out, f(RuleShadowing, Low, fmt.Sprintf("names a tool %q that this server does not have", name), start, i))
	}
	return out
}
