package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"time"
)

// udsCaller pipelines length-prefixed frames on one connection from one goroutine: it keeps
// inFlight frames outstanding, and writes the next ones in one flush once the replies already
// read are handled (one in flight: write, read, repeat).
type udsCaller struct {
	conn  net.Conn
	r     *bufio.Reader
	w     *bufio.Writer
	frame []byte // u32 BE length + payload
	reply []byte
	// coalesce: write the next frames in one flush once the replies already read are handled;
	// otherwise one write per frame.
	coalesce bool
}

func (u *udsCaller) calls(inFlight int, w *window) (int, error) {
	sent := make([]time.Time, inFlight) // send time of each outstanding call, a ring in call order
	head, outstanding, count := 0, 0, 0
	for ; outstanding < inFlight; outstanding++ {
		sent[outstanding] = time.Now()
		u.w.Write(u.frame)
	}
	stopping := false
	for outstanding > 0 {
		if u.w.Buffered() > 0 && (!u.coalesce || u.r.Buffered() < len(u.frame)) {
			if err := u.w.Flush(); err != nil {
				return count, err
			}
		}
		if _, err := io.ReadFull(u.r, u.reply); err != nil {
			return count, err
		}
		t := time.Now()
		if !bytes.Equal(u.reply[:4], u.frame[:4]) {
			return count, fmt.Errorf("uds echo: reply of %d bytes to a %d-byte frame",
				binary.BigEndian.Uint32(u.reply), len(u.frame)-4)
		}
		slot := head % inFlight
		if w.samples != nil {
			w.samples[slot] = append(w.samples[slot], float64(t.Sub(sent[slot])))
		}
		head++
		outstanding--
		count++
		stopping = stopping || !t.Before(w.end) || w.full(slot)
		if !stopping {
			sent[slot] = t
			u.w.Write(u.frame)
			outstanding++
		}
	}
	return count, nil
}

func udsClientMain(args []string) error {
	f := newClientFlags("uds-client")
	coalesce := f.fs.Bool("coalesce", false, "write the next frames in one flush once the replies read are handled (default: one write per frame)")
	counts, err := f.parse(args)
	if err != nil {
		return err
	}
	conn, err := dial(*f.target)
	if err != nil {
		return err
	}
	defer conn.Close()
	frame := make([]byte, 4+*f.size)
	binary.BigEndian.PutUint32(frame, uint32(*f.size))
	copy(frame[4:], pattern(*f.size, 1))
	c := &udsCaller{
		conn:     conn,
		r:        bufio.NewReaderSize(conn, 64<<10),
		w:        bufio.NewWriterSize(conn, 64<<10),
		frame:    frame,
		reply:    make([]byte, len(frame)),
		coalesce: *coalesce,
	}
	return runClient(c, f, counts)
}
