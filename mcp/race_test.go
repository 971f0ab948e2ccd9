//go:build race

package mcp

const raceEnabled = true
