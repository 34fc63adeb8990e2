package main

import (
	"fmt"
	"net"
	"strings"
)

// splitAddress reads a bench address: tcp:<host>:<port>, unix:<path>, or a bare socket path.
func splitAddress(addr string) (network, where string) {
	switch {
	case strings.HasPrefix(addr, "tcp:"):
		return "tcp", strings.TrimPrefix(addr, "tcp:")
	case strings.HasPrefix(addr, "unix:"):
		return "unix", strings.TrimPrefix(addr, "unix:")
	default:
		return "unix", addr
	}
}

// listen binds addr; the returned address has the port a tcp:…:0 address was given.
func listen(addr string) (net.Listener, string, error) {
	network, where := splitAddress(addr)
	l, err := net.Listen(network, where)
	if err != nil {
		return nil, "", err
	}
	if network == "tcp" {
		return l, fmt.Sprintf("tcp:%s", l.Addr().String()), nil
	}
	return l, where, nil
}

// dial connects to addr (a Unix socket or TCP, with Nagle off as Go sets by default).
func dial(addr string) (net.Conn, error) {
	network, where := splitAddress(addr)
	return net.Dial(network, where)
}
