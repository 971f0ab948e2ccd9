//go:build !unix

package hangup

import "os"

func watch(*os.File) (<-chan struct{}, func()) { return make(chan struct{}), func() {} }
