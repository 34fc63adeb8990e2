package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"

	"google.golang.org/grpc"
)

// echoService is nearwire.bench.Echo, written out by hand (no protoc):
// Unary echoes its request; ServerStream answers an 8-byte request (u32 BE count, u32 BE size)
// with count messages of size bytes, as the bench's other stream servers do.
var echoService = grpc.ServiceDesc{
	ServiceName: "nearwire.bench.Echo",
	HandlerType: (*interface{})(nil),
	Methods:     []grpc.MethodDesc{{MethodName: "Unary", Handler: unaryEcho}},
	Streams: []grpc.StreamDesc{
		{StreamName: "ServerStream", Handler: serverStream, ServerStreams: true},
	},
}

func unaryEcho(srv interface{}, ctx context.Context, dec func(interface{}) error, interceptor grpc.UnaryServerInterceptor) (interface{}, error) {
	var in []byte
	if err := dec(&in); err != nil {
		return nil, err
	}
	if interceptor == nil {
		return &in, nil
	}
	info := &grpc.UnaryServerInfo{Server: srv, FullMethod: "/nearwire.bench.Echo/Unary"}
	return interceptor(ctx, &in, info, func(_ context.Context, req interface{}) (interface{}, error) { return req, nil })
}

func serverStream(_ interface{}, stream grpc.ServerStream) error {
	var req []byte
	if err := stream.RecvMsg(&req); err != nil {
		return err
	}
	if len(req) != 8 {
		return errors.New("ServerStream: the request is 8 bytes (u32 BE count, u32 BE size)")
	}
	count := binary.BigEndian.Uint32(req[0:4])
	payload := pattern(int(binary.BigEndian.Uint32(req[4:8])), 7)
	for i := uint32(0); i < count; i++ {
		if err := stream.SendMsg(&payload); err != nil {
			return err
		}
	}
	return nil
}

func grpcServerMain(args []string) error {
	fs := flag.NewFlagSet("grpc-server", flag.ExitOnError)
	addr := fs.String("listen", "", "socket path, unix:<path> or tcp:<host>:<port>")
	control := fs.Bool("control", false, "driven by nearwire-bench over stdin/stdout (control.go)")
	fs.Parse(args)
	if *addr == "" {
		return errors.New("grpc-server: -listen is required")
	}
	l, address, err := listen(*addr)
	if err != nil {
		return err
	}
	s := grpc.NewServer(grpc.MaxRecvMsgSize(maxMessage), grpc.MaxSendMsgSize(maxMessage))
	s.RegisterService(&echoService, struct{}{})
	go s.Serve(l)
	serveUntilDone(address, *control, s.Stop)
	return nil
}
