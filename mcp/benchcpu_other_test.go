//go:build !unix

package mcp

import "time"

// processCPU is not read here.
func processCPU() (time.Duration, bool) { return 0, false }
