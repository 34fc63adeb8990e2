package main

import (
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// serveUntilDone announces address, then waits: under -control it answers the orchestrator's CPU
// marks until {"t":"exit"} or EOF on stdin; otherwise until SIGINT or SIGTERM. Then it calls
// stop, which closes the listener (Go removes a Unix socket's file when its listener closes).
func serveUntilDone(address string, control bool, stop func()) {
	emit(map[string]string{"t": "ready", "address": address})
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	var cmds <-chan string
	if control {
		cmds = commands()
	}
	mark := processCPU()
	for {
		select {
		case <-signals:
			stop()
			return
		case t, ok := <-cmds:
			switch {
			case !ok || t == "exit":
				stop()
				return
			case t == "cpu-start":
				mark = processCPU()
				emit(map[string]string{"t": "cpu-started"})
			case t == "cpu-stop":
				d := processCPU().minus(mark)
				emit(map[string]interface{}{"t": "cpu", "userUs": d.UserUs, "systemUs": d.SystemUs, "peakRssBytes": peakRSS()})
			}
		}
	}
}

// acceptAll serves each connection l accepts with serve (in its own goroutine) until l closes;
// the returned stop closes l and every connection still open.
func acceptAll(l net.Listener, serve func(net.Conn)) (stop func()) {
	var mu sync.Mutex
	conns := map[net.Conn]struct{}{}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[c] = struct{}{}
			mu.Unlock()
			go func() {
				serve(c)
				mu.Lock()
				delete(conns, c)
				mu.Unlock()
			}()
		}
	}()
	return func() {
		l.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
	}
}
