package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// clientFlags are the flags both clients take.
type clientFlags struct {
	fs       *flag.FlagSet
	target   *string
	size     *int
	inFlight *string
	duration *time.Duration
	warmup   *time.Duration
	control  *bool
	samples  *string
}

func newClientFlags(name string) clientFlags {
	fs := flag.NewFlagSet(name, flag.ExitOnError)
	return clientFlags{
		fs:       fs,
		target:   fs.String("target", "", "socket path, unix:<path> or tcp:<host>:<port>"),
		size:     fs.Int("size", 64, "payload bytes per call"),
		inFlight: fs.String("inflight", "1,64", "calls in flight: one run per comma-separated value"),
		duration: fs.Duration("duration", time.Second, "measured window per run"),
		warmup:   fs.Duration("warmup", 500*time.Millisecond, "least warm-up per run (then until steady)"),
		control:  fs.Bool("control", false, "driven by nearwire-bench over stdin/stdout (control.go); one -inflight value"),
		samples:  fs.String("samples", "", "write every round trip (float64 ns, little-endian) of the last run to this file"),
	}
}

// parse reads args; returns the in-flight counts.
func (f clientFlags) parse(args []string) ([]int, error) {
	f.fs.Parse(args)
	if *f.target == "" {
		return nil, fmt.Errorf("%s: -target is required", f.fs.Name())
	}
	var counts []int
	for _, s := range strings.Split(*f.inFlight, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 || n > 4096 {
			return nil, fmt.Errorf("%s: -inflight %q: want counts of 1…4096", f.fs.Name(), *f.inFlight)
		}
		counts = append(counts, n)
	}
	if *f.control && len(counts) != 1 {
		return nil, errors.New("-control measures one -inflight value")
	}
	if *f.size < 0 || *f.size > maxMessage {
		return nil, fmt.Errorf("%s: -size %d outside 0…%d", f.fs.Name(), *f.size, maxMessage)
	}
	return counts, nil
}

// runClient warms up and measures c once per in-flight count and prints each result.
func runClient(c caller, f clientFlags, counts []int) error {
	var cmds <-chan string
	if *f.control {
		cmds = commands()
	}
	for _, n := range counts {
		warm, err := warmUp(c, n, *f.warmup)
		if err != nil {
			return err
		}
		if *f.control {
			emit(map[string]string{"t": "warmed"})
			if t := <-cmds; t != "go" {
				return fmt.Errorf("expected go, got %q", t)
			}
		}
		res, samples, err := measure(c, n, *f.duration, *f.size, warm)
		if err != nil {
			return err
		}
		res.Target = *f.target
		if *f.samples != "" {
			if err := writeSamples(*f.samples, samples); err != nil {
				return err
			}
		}
		if *f.control {
			emit(map[string]interface{}{"t": "result", "result": res})
		} else {
			emit(res)
		}
	}
	return nil
}

func writeSamples(path string, samples []float64) error {
	b := make([]byte, 8*len(samples))
	for i, v := range samples {
		binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
	}
	return os.WriteFile(path, b, 0o600)
}
