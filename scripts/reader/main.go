// Command reader converts the audit's labelled material to one format,
// trains a small reader of it (a logistic model over hashed character and
// word n-grams), and measures the reader beside the audit's rules hand by
// hand, each hand held out in turn:
//
//	go run . convert [-testdata DIR] [-out FILE]
//	go run . train [-data FILE] [-seed N] [-out FILE]
//	go run . measure [-data FILE] [-mcpv BINARY] [-seed N]
//
// convert writes the items (internal/audit/testdata/labelled/items.jsonl);
// train writes the weights of every head from every item; measure has
// BINARY (mcpv audit) read every server, trains the reader with each hand
// left out, and prints the tables of docs/guide/trust.md.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: reader convert|train|measure [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	testdata := fs.String("testdata", "../../internal/audit/testdata", "the audit's testdata")
	data := fs.String("data", "../../internal/audit/testdata/labelled/items.jsonl", "the items")
	out := fs.String("out", "", "where to write (convert: the items; train: the weights)")
	seed := fs.Uint64("seed", 1, "the seed of the training order")
	bin := fs.String("mcpv", "", "the mcpv binary whose audit is the rules")
	cache := fs.String("rules", "", "files of the rules' readings, by commas, a later one's items over an earlier one's: read when they exist, else the one file written")
	only := fs.String("only", "", "measure only the hands whose name begins so")
	fs.Parse(os.Args[2:])
	var err error
	switch os.Args[1] {
	case "convert":
		err = runConvert(*testdata, or(*out, *data))
	case "train":
		err = runTrain(*data, or(*out, "reader.bin"), *seed)
	case "measure":
		err = runMeasure(*testdata, *data, *bin, *cache, *only, *seed)
	default:
		err = fmt.Errorf("no command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "reader:", err)
		os.Exit(1)
	}
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func runConvert(testdata, out string) error {
	items, err := convert(testdata)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, marshalItems(items), 0o644); err != nil {
		return err
	}
	summary(os.Stdout, items)
	return nil
}

// marshalItems is the items as JSON lines, text as it is (no \u escapes
// of <, > and &).
func marshalItems(items []item) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		enc.Encode(it)
	}
	return b.Bytes()
}

// summary prints each hand's counts.
func summary(w *os.File, items []item) {
	hands, idx := byHand(items)
	fmt.Fprintln(w, "| hand | items | poisoned | honest | languages |")
	fmt.Fprintln(w, "| --- | --- | --- | --- | --- |")
	for _, h := range hands {
		p, langs := 0, map[string]int{}
		for _, i := range idx[h] {
			if items[i].Poisoned {
				p++
				langs[items[i].Language]++
			}
		}
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d |\n", h, len(idx[h]), p, len(idx[h])-p, len(langs))
	}
}

func readItems(path string) ([]item, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var items []item
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var it item
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		items = append(items, it)
	}
	return items, sc.Err()
}

func featuresOf(items []item) [][]feat {
	xs := make([][]feat, len(items))
	for i, it := range items {
		xs[i] = features(it)
	}
	return xs
}

// runTrain fits the poisoned head and a head per concept on every item,
// and writes their weights.
func runTrain(data, out string, seed uint64) error {
	items, err := readItems(data)
	if err != nil {
		return err
	}
	xs := featuresOf(items)
	names := []string{"poisoned"}
	for _, c := range concepts {
		names = append(names, c.head)
	}
	var heads []*head
	for _, n := range names {
		ys := make([]bool, len(items))
		for i, it := range items {
			ys[i] = it.Poisoned && (n == "poisoned" || it.Concept == n)
		}
		heads = append(heads, train(n, xs, ys, seed))
	}
	enc := encode(heads)
	if back, err := decode(enc); err != nil || len(back) != len(heads) {
		return fmt.Errorf("the weights do not read back: %v", err)
	}
	fmt.Printf("%d items, %d heads, %d bytes\n", len(items), len(heads), len(enc))
	return os.WriteFile(out, enc, 0o644)
}

func runMeasure(testdata, data, bin, cache, only string, seed uint64) error {
	items, err := readItems(data)
	if err != nil {
		return err
	}
	items = slices.DeleteFunc(items, func(it item) bool { return !strings.HasPrefix(it.Hand, only) })
	rules, err := rulesOf(testdata, bin, cache, items)
	if err != nil {
		return err
	}
	got, ts := leaveOneHandOut(items, featuresOf(items), rules, seed)
	var b strings.Builder
	fmt.Fprintf(&b, "thresholds by held-out hand: %v\n\n", ts)
	table(&b, "held-out hand", items, got, func(item) bool { return true }, func(it item) string {
		if strings.HasPrefix(it.Hand, "field-") {
			return "field"
		}
		return it.Hand
	})
	table(&b, "family (O)", items, got, func(it item) bool { return it.Hand == "O" && it.Poisoned }, func(it item) string { return it.Family })
	table(&b, "language (O)", items, got, func(it item) bool { return it.Hand == "O" }, func(it item) string { return it.Language })
	table(&b, "concept (all hands)", items, got, func(it item) bool { return it.Poisoned }, func(it item) string { return it.Concept })
	table(&b, "script (red-team)", items, got, func(it item) bool { return strings.HasPrefix(it.Hand, "redteam") }, func(it item) string { return it.Language })
	fmt.Print(b.String())
	return nil
}

// rulesOf is each item's worst severity by the rules: read from cache
// when it exists, else had of bin's audit (and kept in cache when named).
func rulesOf(testdata, bin, cache string, items []item) (map[string]int, error) {
	rules := map[string]int{}
	if files := strings.Split(cache, ","); len(files) > 1 {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(data, &rules); err != nil {
				return nil, fmt.Errorf("%s: %v", f, err)
			}
		}
		return rules, nil
	}
	if cache != "" {
		if data, err := os.ReadFile(cache); err == nil {
			return rules, json.Unmarshal(data, &rules)
		}
	}
	if bin == "" {
		return nil, fmt.Errorf("-mcpv names no binary")
	}
	srcs, err := sources(testdata)
	if err != nil {
		return nil, err
	}
	if rules, err = auditAll(bin, items, srcs); err != nil {
		return nil, err
	}
	if cache != "" {
		data, _ := json.Marshal(rules)
		return rules, os.WriteFile(cache, data, 0o644)
	}
	return rules, nil
}
