package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"io"
	"net"
)

// The plain echo: each frame is a u32 BE length and that many bytes, echoed back as it came, the
// wire of the bench's bare node:net rows. Replies are buffered and flushed when no more request
// bytes wait in the read buffer, so a pipelining client gets its replies in few writes.

func udsServerMain(args []string) error {
	fs := flag.NewFlagSet("uds-server", flag.ExitOnError)
	addr := fs.String("listen", "", "socket path, unix:<path> or tcp:<host>:<port>")
	control := fs.Bool("control", false, "driven by nearwire-bench over stdin/stdout (control.go)")
	coalesce := fs.Bool("coalesce", false, "write replies when no request waits in the read buffer (default: one write per reply)")
	fs.Parse(args)
	if *addr == "" {
		return errors.New("uds-server: -listen is required")
	}
	l, address, err := listen(*addr)
	if err != nil {
		return err
	}
	serveUntilDone(address, *control, acceptAll(l, func(c net.Conn) {
		echoFrames(c, *coalesce)
		c.Close()
	}))
	return nil
}

// echoFrames echoes length-prefixed frames until the connection ends.
func echoFrames(c net.Conn, coalesce bool) {
	r := bufio.NewReaderSize(c, 64<<10)
	w := bufio.NewWriterSize(c, 64<<10)
	head := make([]byte, 4)
	var buf []byte
	for {
		if _, err := io.ReadFull(r, head); err != nil {
			return
		}
		n := int(binary.BigEndian.Uint32(head))
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		if _, err := io.ReadFull(r, buf[:n]); err != nil {
			return
		}
		w.Write(head)
		w.Write(buf[:n])
		if !coalesce || r.Buffered() == 0 {
			if err := w.Flush(); err != nil {
				return
			}
		}
	}
}
