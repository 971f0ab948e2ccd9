// Command mcpv-man writes mcpv(1), the man page, from mcpv's command-line
// grammar:
//
//	go run ./commands/mcpv-man -version v1.2.3 -date 2026-11-23 > mcpv.1
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mcpv/mcpv/commands"
)

func main() {
	version := flag.String("version", commands.Version, "the version the page is for")
	date := flag.String("date", "", "the page's date, YYYY-MM-DD or RFC 3339 (default: the build's commit date, else today)")
	out := flag.String("o", "", "write the page to this file instead of stdout")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "mcpv-man: takes no arguments")
		os.Exit(2)
	}
	day, err := pageDate(*date)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpv-man: -date: %v\n", err)
		os.Exit(2)
	}
	page, err := commands.ManPage(*version, day)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcpv-man: %v\n", err)
		os.Exit(1)
	}
	w := os.Stdout
	if *out != "" {
		if w, err = os.Create(*out); err != nil {
			fmt.Fprintf(os.Stderr, "mcpv-man: %v\n", err)
			os.Exit(1)
		}
	}
	if _, err := w.WriteString(page); err != nil {
		fmt.Fprintf(os.Stderr, "mcpv-man: %v\n", err)
		os.Exit(1)
	}
	if err := w.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "mcpv-man: %v\n", err)
		os.Exit(1)
	}
}

// pageDate is the day of the given date, or of the build's commit, or
// today.
func pageDate(given string) (string, error) {
	if given == "" {
		given = commands.Date
	}
	if given == "" {
		return time.Now().UTC().Format(time.DateOnly), nil
	}
	for _, layout := range []string{time.RFC3339, time.DateOnly} {
		if t, err := time.Parse(layout, given); err == nil {
			return t.UTC().Format(time.DateOnly), nil
		}
	}
	return "", fmt.Errorf("%q is neither YYYY-MM-DD nor RFC 3339", given)
}
