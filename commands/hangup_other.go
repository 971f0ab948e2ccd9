//go:build !unix

package commands

import "os"

func hangupWatch(*os.File) (<-chan struct{}, func()) { return make(chan struct{}), func() {} }
