#!/usr/bin/env python3
"""Reproduces, with exact bytes, each place where nearwire and PROTOCOL.md part (FINDINGS.md).

usage: python3 interop/python/repro.py [CASE ...]     (no CASE: all)
Starts its own nearwire server (node-server.mjs) and, for client cases, its own py_server.py,
on /tmp/pyspec-repro-<pid>-*.sock; stops them (by PID) and removes the sockets at the end.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import nearwire_spec as nw  # noqa: E402
from nearwire_spec import jenc  # noqa: E402

P = f"/tmp/pyspec-repro-{os.getpid()}"
SAY = "/nearwire.example.Greeter/Say"
ADA = b'{"name":"Ada"}'


def F(t, p=b""):
    return nw.encode_frame(t, p)


def show(label, data: bytes):
    print(f"  {label}: {data.hex(' ') if len(data) < 200 else data[:200].hex(' ') + ' …'}")
    try:
        d = nw.FrameDecoder(1 << 30)
        d.feed(data)
        while (f := d.next()) is not None:
            t, p = f
            extra = ""
            if t == nw.GOAWAY:
                extra = f" GOAWAY{nw.decode_goaway(p)}"
            elif t == nw.STATUS:
                st = nw.decode_status(p)
                extra = f" STATUS id {st['call_id']} code {st['code']} {st['detail']!r} {st['trailers']}"
            elif t == nw.HELLO:
                extra = f" HELLO{nw.decode_hello(p)}"
            print(f"      frame type {t:#04x} len {len(p)}{extra}")
    except Exception as e:  # noqa: BLE001
        print(f"      (not frame v1: {e})")


def converse(path, chunks, wait=0.5, hello=True):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.settimeout(wait)
    got = b""
    if hello:
        h = F(nw.HELLO, nw.encode_hello())
        s.sendall(h)
        show("sent", h)
        time.sleep(0.1)
    for c in chunks:
        try:
            s.sendall(c)
        except OSError:
            break
        show("sent", c)
        time.sleep(0.1)
    try:
        while True:
            d = s.recv(65536)
            if not d:
                print("  (EOF)")
                break
            got += d
    except socket.timeout:
        print(f"  (no EOF within {wait}s: connection open)")
    s.close()
    show("received", got)


def case_skipped_id():
    """§5.7: 'a frame for an id no REQUEST started' is a violation; REQUEST 1, 7 then MESSAGE 4."""
    req = lambda i: F(nw.REQUEST, nw.encode_request(i, SAY, ADA, True))  # noqa: E731
    converse(f"{P}-main.sock", [req(1), req(7), F(nw.MESSAGE, nw.encode_message(4, ADA))])


def case_shm_split():
    """§4.2: an shm-ring handshake (71 B) whose 4 length bytes arrive before its '{'."""
    hs = jenc({"magic": "nearwire-shm", "layout": 1, "pid": 12345, "maxFrameBytes": 4259840})
    print("  one write:")
    converse(f"{P}-main.sock", [struct.pack(">I", len(hs)) + hs], hello=False)
    print("  two writes (length, then JSON):")
    converse(f"{P}-main.sock", [struct.pack(">I", len(hs)), hs], hello=False)


def case_request_trailing():
    """§5.2/§5.7 say nothing of bytes after a REQUEST's fields without HAS_MESSAGE."""
    converse(f"{P}-main.sock", [F(nw.REQUEST, nw.encode_request(1, SAY, None, True) + ADA)])


def case_goaway_text():
    """§4.2 names reasons (bad-preface, version-mismatch); the GOAWAY text nearwire writes."""
    for label, hello in [("wrong magic", nw.encode_hello(magic=b"NEARWIRX")),
                         ("version 2", nw.encode_hello(version=2))]:
        print(f"  {label}:")
        converse(f"{P}-main.sock", [F(nw.HELLO, hello)], hello=False)


def case_server_stream_second():
    """§5.10 says 'a unary call's second' MESSAGE fails the call; a server-streaming call's?"""
    m = "/nearwire.interop.Test/Count"
    converse(f"{P}-main.sock", [F(nw.REQUEST, nw.encode_request(1, m)),
                                F(nw.MESSAGE, nw.encode_message(1, b'{"n":1}')),
                                F(nw.MESSAGE, nw.encode_message(1, b'{"n":1}'))])


NODE_CLIENT = r"""
import { createUdsTransport } from "UDS_DIST";
for (const [what, address] of JSON.parse(process.argv[1])) {
  try { const c = await createUdsTransport({ address, handshakeTimeoutMs: 500 }).connect(); console.log(`  ${what}: connected`); await c.close(); }
  catch (e) { console.log(`  ${what}: connect rejects code ${e.code} reason ${e.reason} message ${JSON.stringify(e.message)}`); }
}
"""


def case_client_connect():
    """nearwire client: GOAWAY(0) as the server's first frame; GOAWAY 8 at maxConnections."""
    hold = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hold.connect(f"{P}-maxconn.sock")
    hold.sendall(F(nw.HELLO, nw.encode_hello()))
    time.sleep(0.2)
    pairs = [["server answers HELLO with GOAWAY(0) (py_server bad mode goaway-ok)", f"{P}-bad-goaway-ok.sock"],
             ["nearwire server at maxConnections 1", f"{P}-maxconn.sock"]]
    uds = "file://" + os.path.join(HERE, "..", "..", "packages", "uds", "dist", "index.js")
    subprocess.run(["node", "--input-type=module", "-e", NODE_CLIENT.replace("UDS_DIST", uds),
                    jenc(pairs).decode()], timeout=10)
    hold.close()


CASES = {"skipped-id": case_skipped_id, "shm-split": case_shm_split,
         "request-trailing-bytes": case_request_trailing, "goaway-text": case_goaway_text,
         "server-stream-second-message": case_server_stream_second,
         "client-connect": case_client_connect}


def main():
    names = sys.argv[1:] or list(CASES)
    node = subprocess.Popen(["node", os.path.join(HERE, "node-server.mjs"), f"{P}-main.sock",
                             f"{P}-limits.sock", f"{P}-maxconn.sock", "20000"],
                            stdout=subprocess.PIPE, text=True)
    py = subprocess.Popen([sys.executable, os.path.join(HERE, "py_server.py"), f"{P}-py.sock", "-",
                           "20", f"{P}-bad"], stdout=subprocess.PIPE, text=True)
    try:
        node.stdout.readline()
        py.stdout.readline()
        for n in names:
            print(f"== {n}: {CASES[n].__doc__}")
            CASES[n]()
    finally:
        for proc in (node, py):
            proc.terminate()
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
        for f in os.listdir("/tmp"):
            if f.startswith(os.path.basename(P)) and f.endswith(".sock"):
                os.unlink(os.path.join("/tmp", f))


if __name__ == "__main__":
    main()
