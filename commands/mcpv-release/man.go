package main

// mcpv-release man writes mcpv(1), the man page, from mcpv's command-line
// grammar:
//
//	go run ./commands/mcpv-release man -version v1.2.3 -date 2026-11-23 > mcpv.1

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mcpv/mcpv/commands"
)

func runMan(args []string) {
	flags := flag.NewFlagSet("mcpv-release man", flag.ExitOnError)
	version := flags.String("version", commands.Version, "the version the page is for")
	date := flags.String("date", "", "the page's date, YYYY-MM-DD or RFC 3339 (default: the build's commit date, else today)")
	out := flags.String("o", "", "write the page to this file instead of stdout")
	flags.Parse(args)
	if flags.NArg() > 0 {
		fail(2, "man: takes no arguments")
	}
	day, err := pageDate(*date)
	if err != nil {
		fail(2, "man: -date: %v", err)
	}
	page, err := commands.ManPage(*version, day)
	if err != nil {
		fail(1, "man: %v", err)
	}
	w := os.Stdout
	if *out != "" {
		if w, err = os.Create(*out); err != nil {
			fail(1, "man: %v", err)
		}
	}
	_, err = w.WriteString(page)
	if err = cmp.Or(err, w.Close()); err != nil {
		fail(1, "man: %v", err)
	}
}

// pageDate is the day of the given date, or of the build's commit, or
// today.
func pageDate(given string) (string, error) {
	given = cmp.Or(given, commands.Date)
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
