// Command nearwire-go-bench is the Go yardstick of nearwire-bench: echo servers and measuring
// clients written as a Go programmer would, run on the same machine as the Node.js rows.
//
//	nearwire-go-bench grpc-server -listen <addr> [-control]
//	nearwire-go-bench grpc-client -target <addr> [-size 64] [-inflight 1,64] [-duration 1s] [-warmup 500ms] [-method /nearwire.bench.Echo/Unary]
//	nearwire-go-bench uds-server  -listen <addr> [-control]
//	nearwire-go-bench uds-client  -target <addr> [-size 64] [-inflight 1,64] [-duration 1s] [-warmup 500ms]
//	nearwire-go-bench netrpc-server -listen <addr> -root <dir> [-fsync=false] [-control]
//	nearwire-go-bench netrpc-client -target <addr> [-clients 10] [-size 2097152] [-chunk 65536] [-warmup 1s] [-duration 2s] [-control]
//
// An address is a socket path, unix:<path>, or tcp:<host>:<port> (port 0 picks one). A server
// prints {"t":"ready","address":...} on stdout once it listens. A client prints one JSON line
// per in-flight count. -control puts either under nearwire-bench's orchestrator: see control.go.
//
// Built in GOPATH mode against Debian's grpc-go, no module proxy:
//
//	GOPATH=/usr/share/gocode GO111MODULE=off go build -o nearwire-go-bench .
package main

import (
	"fmt"
	"os"
)

const usage = `usage: nearwire-go-bench <grpc-server|grpc-client|uds-server|uds-client|netrpc-server|netrpc-client> [flags]
  (each subcommand's -h lists its flags)
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	args := os.Args[2:]
	var err error
	switch os.Args[1] {
	case "grpc-server":
		err = grpcServerMain(args)
	case "grpc-client":
		err = grpcClientMain(args)
	case "uds-server":
		err = udsServerMain(args)
	case "uds-client":
		err = udsClientMain(args)
	case "netrpc-server":
		err = netrpcServerMain(args)
	case "netrpc-client":
		err = netrpcClientMain(args)
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fail(err)
	}
}
