//go:build !windows

package brokenpipe

var platform []error
