package main

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"math/rand"
	"net/rpc"
	"sort"
	"sync"
	"time"
)

// netrpcResult is the client's figures of the measured window.
type netrpcResult struct {
	Uploads      int     `json:"uploads"`
	ElapsedNs    float64 `json:"elapsedNs"`
	MeanNs       float64 `json:"meanNs"`
	P99Ns        float64 `json:"p99Ns"`
	CPUUs        float64 `json:"cpuUs"`
	PeakRssBytes float64 `json:"peakRssBytes"`
}

// uploadOnce sends data as name: Begin, one Chunk call per chunk, Commit.
func uploadOnce(c *rpc.Client, name string, data []byte, chunk int) error {
	var id uint64
	if err := c.Call("Transfer.Begin", BeginArgs{Name: name, Size: int64(len(data))}, &id); err != nil {
		return err
	}
	h := sha256.New()
	var written int64
	for off := 0; off < len(data); off += chunk {
		end := off + chunk
		if end > len(data) {
			end = len(data)
		}
		piece := data[off:end]
		h.Write(piece)
		args := ChunkArgs{ID: id, Offset: int64(off), Data: piece, CRC32C: crc32.Checksum(piece, castagnoli)}
		if err := c.Call("Transfer.Chunk", args, &written); err != nil {
			return err
		}
	}
	var size int64
	return c.Call("Transfer.Commit", CommitArgs{ID: id, SHA256: h.Sum(nil)}, &size)
}

func netrpcClientMain(args []string) error {
	fs := flag.NewFlagSet("netrpc-client", flag.ExitOnError)
	target := fs.String("target", "", "socket path or unix:<path>")
	clients := fs.Int("clients", 10, "concurrent clients, one connection each")
	size := fs.Int("size", 2<<20, "bytes per upload")
	chunk := fs.Int("chunk", 64<<10, "bytes per chunk")
	warmup := fs.Duration("warmup", time.Second, "uploads before the window")
	duration := fs.Duration("duration", 2*time.Second, "the measured window")
	control := fs.Bool("control", false, "driven by nearwire-bench over stdin/stdout (control.go)")
	fs.Parse(args)
	if *target == "" {
		return errors.New("netrpc-client: -target is required")
	}
	data := make([]byte, *size)
	rand.New(rand.NewSource(1)).Read(data)

	var mu sync.Mutex
	var measuring bool
	var windowEnd time.Time
	var latencies []float64
	var firstErr error
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < *clients; i++ {
		conn, err := dial(*target)
		if err != nil {
			return err
		}
		c := rpc.NewClient(conn)
		defer c.Close()
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			name := fmt.Sprintf("seed/c%d.bin", i)
			for {
				select {
				case <-stop:
					return
				default:
				}
				t0 := time.Now()
				if err := uploadOnce(c, name, data, *chunk); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				done := time.Now()
				mu.Lock()
				if measuring && !done.After(windowEnd) {
					latencies = append(latencies, float64(done.Sub(t0).Nanoseconds()))
				}
				mu.Unlock()
			}
		}(i)
	}
	time.Sleep(*warmup)
	if *control {
		cmds := commands()
		emit(map[string]string{"t": "warmed"})
		if t := <-cmds; t != "go" {
			return fmt.Errorf("expected go, got %q", t)
		}
	}
	cpu0 := processCPU()
	start := time.Now()
	mu.Lock()
	measuring = true
	windowEnd = start.Add(*duration)
	mu.Unlock()
	time.Sleep(*duration)
	cpu := processCPU().minus(cpu0)
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	mu.Lock()
	res := netrpcResult{Uploads: len(latencies), ElapsedNs: float64(elapsed.Nanoseconds()), CPUUs: cpu.UserUs + cpu.SystemUs}
	mu.Unlock()
	if res.Uploads > 0 {
		sort.Float64s(latencies)
		sum := 0.0
		for _, l := range latencies {
			sum += l
		}
		res.MeanNs = sum / float64(len(latencies))
		res.P99Ns = latencies[(len(latencies)*99)/100]
	}
	res.PeakRssBytes = peakRSS()
	if *control {
		emit(map[string]interface{}{"t": "result", "result": res})
	} else {
		emit(res)
	}
	return nil
}
