package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"syscall"
)

// The -control protocol: nearwire-bench's orchestrator drives a Go process as it drives its own
// Node.js workers, with the same messages as JSON lines (the Go process's stdout carries only
// these lines; stdin carries the orchestrator's).
//
//	server → {"t":"ready","address":…}; on {"t":"cpu-start"} → {"t":"cpu-started"};
//	         on {"t":"cpu-stop"} → {"t":"cpu","userUs":…,"systemUs":…,"peakRssBytes":…};
//	         exits on {"t":"exit"} or EOF.
//	client → {"t":"warmed"} after the warm-up; measures on {"t":"go"}; → {"t":"result","result":…}.
//	either → {"t":"error","message":…} and exit status 1 when something fails.

var stdoutMu sync.Mutex

// emit writes one JSON line to stdout.
func emit(v interface{}) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	stdoutMu.Lock()
	defer stdoutMu.Unlock()
	os.Stdout.Write(append(b, '\n'))
}

// fail reports err as an error message and exits 1.
func fail(err error) {
	emit(map[string]string{"t": "error", "message": err.Error()})
	fmt.Fprintln(os.Stderr, "nearwire-go-bench:", err)
	os.Exit(1)
}

// commands yields the "t" of each JSON line on stdin; closed at EOF.
func commands() <-chan string {
	out := make(chan string)
	go func() {
		defer close(out)
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			var m struct {
				T string `json:"t"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				out <- m.T
			}
		}
	}()
	return out
}

// cpuTime is this process's user and system CPU time so far, in µs (every thread).
type cpuTime struct {
	UserUs   float64 `json:"userUs"`
	SystemUs float64 `json:"systemUs"`
}

func processCPU() cpuTime {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return cpuTime{}
	}
	us := func(t syscall.Timeval) float64 { return float64(t.Sec)*1e6 + float64(t.Usec) }
	return cpuTime{UserUs: us(ru.Utime), SystemUs: us(ru.Stime)}
}

func (c cpuTime) minus(o cpuTime) cpuTime {
	return cpuTime{UserUs: c.UserUs - o.UserUs, SystemUs: c.SystemUs - o.SystemUs}
}

// peakRSS is this process's resident-set high-water mark (getrusage maxrss), in bytes.
func peakRSS() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) * 1024
}
