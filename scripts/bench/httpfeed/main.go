// Command httpfeed is the least a load generator does for
// scripts/bench/load.sh's fixed rate: WORKERS goroutines POST one body to
// URL at RATE calls a second for SECONDS and read each answer to its end,
// with net/http and nothing else (no JSON, no protocol). It prints the
// rate it achieved and its own CPU time a call, in microseconds.
//
//	httpfeed even|burst RATE WORKERS SECONDS URL BODY
//
// even spreads the calls as mcpv load does: call k is meant to start at
// k/RATE, taken by whichever worker is free. burst paces as hey -q does:
// each worker on a ticker of its own at RATE/WORKERS, all started at
// once, so that the calls leave in bursts of WORKERS. Between the two,
// only the spread differs: what it costs is the Go runtime's, whatever
// the client does (a burst wakes the process once for WORKERS calls).
package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "httpfeed:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) != 6 || args[0] != "even" && args[0] != "burst" {
		return fmt.Errorf("usage: httpfeed even|burst RATE WORKERS SECONDS URL BODY")
	}
	rate, err1 := strconv.ParseFloat(args[1], 64)
	workers, err2 := strconv.Atoi(args[2])
	secs, err3 := strconv.ParseFloat(args[3], 64)
	if err1 != nil || err2 != nil || err3 != nil || rate <= 0 || workers < 1 || secs <= 0 {
		return fmt.Errorf("RATE, WORKERS and SECONDS are positive numbers")
	}
	url, body := args[4], []byte(args[5])
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	var done, failed atomic.Int64
	post := func() {
		req, err := http.NewRequest("POST", url, bytes.NewReader(body))
		if err != nil {
			failed.Add(1)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := client.Do(req)
		if err != nil {
			failed.Add(1)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			failed.Add(1)
			return
		}
		done.Add(1)
	}
	cpu0 := cpuTime()
	start := time.Now()
	end := start.Add(time.Duration(secs * float64(time.Second)))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			if args[0] == "burst" {
				tick := time.NewTicker(time.Duration(float64(workers) / rate * float64(time.Second)))
				defer tick.Stop()
				for time.Now().Before(end) {
					post()
					<-tick.C
				}
				return
			}
			for {
				k := next.Add(1) - 1
				at := start.Add(time.Duration(float64(k) / rate * float64(time.Second)))
				if !at.Before(end) {
					return
				}
				time.Sleep(time.Until(at))
				post()
			}
		})
	}
	wg.Wait()
	took := time.Since(start).Seconds()
	n := done.Load()
	if n == 0 {
		return fmt.Errorf("no call succeeded (%d failed)", failed.Load())
	}
	fmt.Printf("%.0f %.0f %d\n", float64(n)/took, (cpuTime()-cpu0).Seconds()/float64(n)*1e6, failed.Load())
	return nil
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
