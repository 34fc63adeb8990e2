package main

import (
	"context"
	"net"
	"sync"
	"time"

	"google.golang.org/grpc"
)

// grpcCaller calls one unary method on one connection: a goroutine per call in flight, each
// making its calls back to back, as grpc-go users do.
type grpcCaller struct {
	conn    *grpc.ClientConn
	method  string
	payload []byte
}

func (g *grpcCaller) calls(inFlight int, w *window) (int, error) {
	var wg sync.WaitGroup
	counts := make([]int, inFlight)
	errs := make([]error, inFlight)
	for i := 0; i < inFlight; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var reply []byte
			for {
				t0 := time.Now()
				if (!t0.Before(w.end) && counts[i] > 0) || w.full(i) {
					return
				}
				if err := g.conn.Invoke(context.Background(), g.method, &g.payload, &reply); err != nil {
					errs[i] = err
					return
				}
				if w.samples != nil {
					w.samples[i] = append(w.samples[i], float64(time.Since(t0)))
				}
				counts[i]++
			}
		}(i)
	}
	wg.Wait()
	total := 0
	for i, n := range counts {
		if errs[i] != nil {
			return total, errs[i]
		}
		total += n
	}
	return total, nil
}

func grpcClientMain(args []string) error {
	f := newClientFlags("grpc-client")
	method := f.fs.String("method", "/nearwire.bench.Echo/Unary", "full method name of a unary method that echoes bytes")
	counts, err := f.parse(args)
	if err != nil {
		return err
	}
	network, where := splitAddress(*f.target)
	opts := []grpc.DialOption{
		grpc.WithInsecure(),
		grpc.WithBlock(),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)),
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, where)
		}),
	}
	if network == "unix" {
		// grpc-go 1.33 has no unix:// resolver: dial the path ourselves, name the authority as later versions do.
		opts = append(opts, grpc.WithAuthority("localhost"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := grpc.DialContext(ctx, "passthrough:///"+where, opts...)
	if err != nil {
		return err
	}
	defer conn.Close()
	return runClient(&grpcCaller{conn: conn, method: *method, payload: pattern(*f.size, 1)}, f, counts)
}
