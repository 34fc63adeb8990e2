package main

import (
	"math"
	"runtime"
	"sort"
	"time"
)

// The measuring loops, the same procedure as nearwire-bench's drive.ts: warm up until steady,
// then one window of `duration` in which every call is timed and recorded.

// caller makes calls until a window ends: inFlight of them in flight at a time.
type caller interface {
	calls(inFlight int, w *window) (int, error)
}

// window is one warm-up or measuring window: no call starts after end. When samples is set, a
// caller appends each call's round trip (ns) to samples[i] for its in-flight slot i.
type window struct {
	end     time.Time
	samples [][]float64
}

// full is true when slot i has recorded its share of maxSamples.
func (w *window) full(i int) bool {
	return w.samples != nil && len(w.samples[i]) >= maxSamples/len(w.samples)
}

const (
	minWarmupCalls  = 5000                   // V8 optimises by call counts; kept for like with like
	warmupWindow    = 100 * time.Millisecond // warm-up is judged in windows of this length
	steadyWindows   = 3                      // the case is steady when this many windows agree
	steadyTolerance = 0.1                    // within this relative distance of their median
	warmupCapFloor  = 5 * time.Second        // warm-up stops after max(10 × warmup, this)
	maxSamples      = 4 << 20                // most samples one run keeps (as latency.ts)
)

// warmState is what the warm-up did (the JSON's "warmup").
type warmState struct {
	Ns     float64 `json:"ns"`
	Calls  int     `json:"calls"`
	Steady bool    `json:"steady"`
	rate   float64 // calls/s of the last window, to size the sample buffers
}

// warmUp calls until at least `warmup` and minWarmupCalls have passed and the last
// steadyWindows windows of 100 ms give rates within steadyTolerance of their median; capped.
func warmUp(c caller, inFlight int, warmup time.Duration) (warmState, error) {
	t0 := time.Now()
	capAt := t0.Add(maxDuration(10*warmup, warmupCapFloor))
	var rates []float64
	calls := 0
	for {
		w0 := time.Now()
		end := w0.Add(warmupWindow)
		if end.After(capAt) {
			end = capAt
		}
		n, err := c.calls(inFlight, &window{end: end})
		if err != nil {
			return warmState{}, err
		}
		calls += n
		rates = append(rates, float64(n)/time.Since(w0).Seconds())
		t := time.Now()
		done := !t.Before(capAt)
		isSteady := t.Sub(t0) >= warmup && calls >= minWarmupCalls && steady(rates)
		if done || isSteady {
			return warmState{Ns: float64(t.Sub(t0)), Calls: calls, Steady: isSteady, rate: rates[len(rates)-1]}, nil
		}
	}
}

func steady(rates []float64) bool {
	if len(rates) < steadyWindows {
		return false
	}
	last := append([]float64(nil), rates[len(rates)-steadyWindows:]...)
	sort.Float64s(last)
	mid := last[steadyWindows/2]
	for _, r := range last {
		if math.Abs(r-mid) > steadyTolerance*mid {
			return false
		}
	}
	return mid > 0
}

func maxDuration(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

// runResult is one measured window, named as nearwire-bench's RunResult (run-result.ts).
type runResult struct {
	Target       string  `json:"target"`
	InFlight     int     `json:"inFlight"`
	PayloadBytes int     `json:"payloadBytes"`
	Count        int     `json:"count"`
	ElapsedNs    float64 `json:"elapsedNs"`
	MsgsPerSec   float64 `json:"msgsPerSec"`
	MbPerSec     float64 `json:"mbPerSec"`
	WireBytes    int     `json:"wireBytes"`
	Client       cpuTime `json:"client"`
	// ClientCPUUsPerMsg is user+system µs per call, every thread of the client process.
	ClientCPUUsPerMsg float64 `json:"clientCpuUsPerMsg"`
	// ClientHeapBytesPerMsg is what the Go client allocated per call (runtime.MemStats.TotalAlloc).
	ClientHeapBytesPerMsg float64         `json:"clientHeapBytesPerMsg"`
	Warmup                warmState       `json:"warmup"`
	Latency               *latencySummary `json:"latency,omitempty"`
}

// measure runs one window of d and summarises it; samples are every call's round trip, ns.
func measure(c caller, inFlight int, d time.Duration, wireBytes int, warm warmState) (runResult, []float64, error) {
	w := &window{samples: make([][]float64, inFlight)}
	expect := int(math.Min(float64(maxSamples), warm.rate*d.Seconds()*2+1024))
	for i := range w.samples {
		w.samples[i] = make([]float64, 0, expect/inFlight+64)
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := processCPU()
	t0 := time.Now()
	w.end = t0.Add(d)
	count, err := c.calls(inFlight, w)
	elapsed := time.Since(t0)
	cpu := processCPU().minus(cpu0)
	runtime.ReadMemStats(&m1)
	if err != nil {
		return runResult{}, nil, err
	}
	all := make([]float64, 0, count)
	for _, s := range w.samples {
		all = append(all, s...)
	}
	rate := float64(count) / elapsed.Seconds()
	return runResult{
		InFlight:              inFlight,
		PayloadBytes:          wireBytes,
		Count:                 count,
		ElapsedNs:             float64(elapsed),
		MsgsPerSec:            rate,
		MbPerSec:              rate * float64(wireBytes) / 1e6,
		WireBytes:             wireBytes,
		Client:                cpu,
		ClientCPUUsPerMsg:     (cpu.UserUs + cpu.SystemUs) / float64(count),
		ClientHeapBytesPerMsg: float64(m1.TotalAlloc-m0.TotalAlloc) / float64(count),
		Warmup:                warm,
		Latency:               summarise(all),
	}, all, nil
}

// latencySummary holds percentiles of the sorted samples (nearest rank), ns.
type latencySummary struct {
	Count    int     `json:"count"`
	MinNs    float64 `json:"minNs"`
	P50Ns    float64 `json:"p50Ns"`
	P90Ns    float64 `json:"p90Ns"`
	P99Ns    float64 `json:"p99Ns"`
	P999Ns   float64 `json:"p999Ns"`
	MaxNs    float64 `json:"maxNs"`
	MeanNs   float64 `json:"meanNs"`
	StddevNs float64 `json:"stddevNs"`
}

func summarise(samples []float64) *latencySummary {
	n := len(samples)
	if n == 0 {
		return &latencySummary{}
	}
	s := append([]float64(nil), samples...)
	sort.Float64s(s)
	at := func(p float64) float64 {
		i := int(math.Ceil(p/100*float64(n))) - 1
		if i < 0 {
			i = 0
		}
		return s[i]
	}
	sum, sq := 0.0, 0.0
	for _, v := range s {
		sum += v
	}
	mean := sum / float64(n)
	for _, v := range s {
		sq += (v - mean) * (v - mean)
	}
	return &latencySummary{
		Count: n, MinNs: s[0], P50Ns: at(50), P90Ns: at(90), P99Ns: at(99), P999Ns: at(99.9),
		MaxNs: s[n-1], MeanNs: mean, StddevNs: math.Sqrt(sq / float64(n)),
	}
}

// pattern is size bytes of a fixed sequence (the content is irrelevant to an echo).
func pattern(size, seed int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i*31 + seed)
	}
	return b
}
