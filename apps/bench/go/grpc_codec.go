package main

import (
	"fmt"

	"google.golang.org/grpc/encoding"
)

// bytesCodec passes a message's bytes through: the message is a *[]byte (or []byte). Registered
// under "proto", the codec grpc-go uses by default, so neither side needs protoc-generated code
// and the wire is what any gRPC peer sends: content-type application/grpc, the payload as is.
type bytesCodec struct{}

func (bytesCodec) Marshal(v interface{}) ([]byte, error) {
	switch m := v.(type) {
	case *[]byte:
		return *m, nil
	case []byte:
		return m, nil
	}
	return nil, fmt.Errorf("bytes codec: cannot marshal %T", v)
}

// Unmarshal keeps data: grpc-go hands each message its own buffer (1.33 allocates one per
// message; later versions pass a copy to a v1 codec).
func (bytesCodec) Unmarshal(data []byte, v interface{}) error {
	p, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("bytes codec: cannot unmarshal into %T", v)
	}
	*p = data
	return nil
}

func (bytesCodec) Name() string { return "proto" }

func init() { encoding.RegisterCodec(bytesCodec{}) }

// maxMessage is the largest message either side accepts (as nearwire-bench's grpc-js rows).
const maxMessage = 64 << 20
