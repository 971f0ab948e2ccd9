//go:build !unix

package commands

import "os"

func watchHangup(*os.File) (<-chan struct{}, func()) { return make(chan struct{}), func() {} }
