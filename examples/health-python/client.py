"""Calls the nearwire grpc-uds server of server.ts from Python's stock gRPC library.

    python3 client.py /tmp/nearwire-health.sock

Health: grpc.health.v1.Health/Check for the whole server, the greeter and an unknown name.
The two health messages are tiny, so they are written by hand here (field 1: the service name,
a string; the reply's field 1: the status, a varint): no protoc, no generated code. The greeter
is bound to nearwire's JSON codec, so its messages are JSON bytes.
"""
import json
import sys

import grpc

STATUS = {0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}


def health_request(service):
    name = service.encode()
    assert len(name) < 128, "one-byte length"
    return (b"\x0a" + bytes([len(name)]) + name) if name else b""


def health_status(reply):
    # proto3 leaves out a zero field: an empty reply is UNKNOWN (0).
    return STATUS[reply[1]] if reply[:1] == b"\x08" else STATUS[0]


address = sys.argv[1] if len(sys.argv) > 1 else "/tmp/nearwire-health.sock"
with grpc.insecure_channel(f"unix:{address}") as channel:
    check = channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=health_request,
        response_deserializer=health_status,
    )
    for service in ["", "example.Greeter", "no.Such"]:
        try:
            print(f"health {service or '(server)'}: {check(service, timeout=10)}")
        except grpc.RpcError as err:
            print(f"health {service}: {err.code().name}")

    say = channel.unary_unary(
        "/example.Greeter/say",
        request_serializer=lambda message: json.dumps(message).encode(),
        response_deserializer=json.loads,
    )
    print("greeter:", say({"name": "Python"}, timeout=10)["text"])
