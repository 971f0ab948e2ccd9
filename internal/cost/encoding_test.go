package cost

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

var samples = []string{
	"",
	"hello world",
	"Hello, World! It's a test; we'll see what's NOT'S done'd.",
	"  leading and trailing spaces   ",
	"tabs\tand\nnew\r\nlines\n\n\n  \n x",
	"numbers 1 12 123 1234 12345 3.14159 1,000,000",
	"CamelCaseIdentifiers and snake_case_names, HTTPServer, getURLForID",
	`{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}`,
	"Unicode: café naïve Ǆemal ǅ déjà vu — “quotes” … ½ ² Ⅻ ٣ 𝟘",
	"中文字符和日本語のテキスト、한국어 텍스트도 있습니다。",
	"emoji 👍🏽 👨‍👩‍👧 🇫🇷 and combining e\u0301 a\u0308\u0301",
	"Арабский: مرحبا بالعالم, Hebrew: שלום עולם, Devanagari: नमस्ते दुनिया",
	"'S 'T 'RE 'Ve 'ſ 'll'LL 'd' ' 'x",
	"path/to/file.go:12 https://example.com/a/b?c=d&e=f#g //// \\\\",
	"<|endoftext|> special <|endofprompt|> tokens",
	"\u00a0nbsp\u2003em\u3000ideographic \u2028line\u2029para\u0085nel\v\f",
	"ALLCAPS WORDS ÀÉÎÕÜ ßẞ ǈ İstanbul ﬁ ligature",
	strings.Repeat("a", 500) + strings.Repeat("ab", 300) + strings.Repeat("!", 200),
	"IMPORTANT: you MUST call `list_files` first.\n\n- Item one\n- Item two\n\n```json\n{\"x\": 1}\n```",
	"x\n  \ny",
}

// randomText draws text from runes of every class the splitters tell
// apart, so that their boundaries meet in every order.
func randomText(r *rand.Rand) string {
	pool := []string{"a", "Z", "é", "É", "ǅ", "ʰ", "中", "\u0301", "\u0903", "1", "٣", "½", "Ⅻ",
		" ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "'", "'s", "'LL", "'ve", "ſ", "/", "!", "…", "👍", "-", "_", ".", "\"", "{", "}",
		"the", "The", "THE", "tool", "Description", "JSON", "123456", "http://x.y/z"}
	var b strings.Builder
	for range r.IntN(40) {
		b.WriteString(pool[r.IntN(len(pool))])
	}
	return b.String()
}

// TestLibraryReferenceCounts: the counts github.com/tiktoken-go/tokenizer
// holds its own encodings to (its tokenizer_test.go, v0.10.0).
func TestLibraryReferenceCounts(t *testing.T) {
	for _, c := range []struct {
		text          string
		o200k, cl100k int
	}{
		{"'RE", 2, 1},
		{"hello world", 2, 2},
		{"hello  world", 3, 3},
		{"hello   world", 3, 3},
		{"supercalifragilistic", 6, 7},
		{"We know what we are, but know not what we may be.", 14, 14},
	} {
		for _, want := range []struct {
			name string
			n    int
		}{{"o200k", c.o200k}, {"cl100k", c.cl100k}} {
			e, err := Get(want.name)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := e.Count(c.text); err != nil || got != want.n {
				t.Errorf("%s %q: %d tokens (%v), want %d", want.name, c.text, got, err, want.n)
			}
		}
	}
}

func TestGet(t *testing.T) {
	for _, name := range []string{"o200k", "o200k_base", "cl100k", "cl100k_base"} {
		if _, err := Get(name); err != nil {
			t.Errorf("Get(%q): %v", name, err)
		}
	}
	if _, err := Get("claude"); err == nil || !strings.Contains(err.Error(), "o200k, o200k_base, cl100k, cl100k_base") {
		t.Errorf("Get(claude): %v", err)
	}
}

func FuzzCount(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Add("\xff\xfe invalid \xc3")
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range Encodings {
			n, err := e.Count(s)
			if err != nil {
				t.Fatal(err)
			}
			if s == "" && n != 0 || s != "" && (n < 1 || n > len(valid(s))) {
				t.Fatalf("%s %q: %d tokens", e.Name, s, n)
			}
		}
	})
}

// TestVocabulariesAreOpenAIs: the binary embeds the vocabulary of each
// encoding cost counts with and no other, each file the one OpenAI
// publishes, by the SHA-256 its own tiktoken checks a download against
// (tiktoken_ext/openai_public.py).
func TestVocabulariesAreOpenAIs(t *testing.T) {
	published := map[string]string{
		"o200k_base.tiktoken":  "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
		"cl100k_base.tiktoken": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
	}
	files, err := fs.ReadDir(vocabularies, "vocab")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	var want []string
	for _, e := range Encodings {
		want = append(want, e.Name+".tiktoken")
	}
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("embedded vocabularies %q, want those of the encodings, %q", names, want)
	}
	for _, name := range names {
		data, err := vocabularies.ReadFile("vocab/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != published[name] {
			t.Errorf("%s: SHA-256 %x, OpenAI publishes %s", name, sum, published[name])
		}
	}
}
