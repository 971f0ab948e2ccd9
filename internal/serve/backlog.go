package serve

import (
	"net"
	"sync"
)

// KeepBacklog is ln whose Close does not drop the connections the kernel
// completed that no Accept took yet: they would be reset, and a balancer
// that had sent a request on one could not tell that no replica read it
// (it sends nothing again that a replica may have read). Close takes
// them first, and Accept hands them out, to be answered, before it fails.
func KeepBacklog(ln net.Listener) net.Listener {
	if tl, ok := ln.(*net.TCPListener); ok {
		return &backlogListener{TCPListener: tl}
	}
	return ln
}

type backlogListener struct {
	*net.TCPListener
	mu   sync.Mutex // guards left
	left []net.Conn // taken at Close
}

func (l *backlogListener) Close() error {
	left := takeBacklog(l.TCPListener)
	l.mu.Lock()
	l.left = append(l.left, left...)
	l.mu.Unlock()
	return l.TCPListener.Close()
}

func (l *backlogListener) Accept() (net.Conn, error) {
	c, err := l.TCPListener.Accept()
	if err != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		if len(l.left) > 0 {
			c, err, l.left = l.left[0], nil, l.left[1:]
		}
	}
	return c, err
}
