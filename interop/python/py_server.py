#!/usr/bin/env python3
"""The Python server: nearwire.example.Greeter and nearwire.interop.Test (JSON), the same
services as node-server.mjs, plus nearwire.interop.Quirks (legal-but-unusual and illegal
answers that a nearwire client must handle as §5.10 says).

usage: py_server.py MAIN_PATH [LIMITS_PATH|-] [lifetime_s] [BAD_PREFIX]
  BAD_PREFIX: one listener per mode of BAD_MODES at BAD_PREFIX-<mode>.sock (client preface checks)
  LIMITS: max_concurrent_calls 4, max message 1024 B, handshake timeout 0.3 s
Prints "ready"; SIGTERM: graceful close (§4.3, grace 0.5 s) and exit; exits after lifetime_s.
"""

from __future__ import annotations

import os
import signal
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nearwire_spec as nw  # noqa: E402
from nearwire_spec import jdec, jenc  # noqa: E402

G = "/nearwire.example.Greeter/"
T = "/nearwire.interop.Test/"
Q = "/nearwire.interop.Quirks/"


def build(server: nw.RpcServer, max_message: int | None = None):
    events = server.events

    def limit(b: bytes) -> bytes:
        if max_message is not None and len(b) > max_message:
            raise nw.NearwireError(nw.RESOURCE_EXHAUSTED, f"message {len(b)} B > {max_message}",
                                   "message-too-large")
        return b

    def say(req, call):
        return jenc({"text": f"hello, {jdec(limit(req))['name']}"})

    def hold(reqs, call):
        try:
            while not call.cancelled.wait(0.05):
                pass
        finally:
            events.append(("abort", call.method, call.cancel_code))
        raise nw.Cancelled()

    def echo(req, call):
        r = jdec(limit(req))
        call.trailers.update((r or {}).get("trailers") or {})
        return jenc({"value": (r or {}).get("value"), "metadata": call.metadata,
                     "hasDeadline": call.deadline is not None, "method": call.method})

    def count(req, call):
        r = jdec(req)
        for i in range(r["n"]):
            pad = r.get("size", 0) - (len(str(i)) if r.get("fixed") else 0)
            yield jenc({"i": i, "pad": "x" * pad})

    def sum_(reqs, call):
        s = c = 0
        for m in reqs:
            s += jdec(m)["v"]
            c += 1
        return jenc({"sum": s, "count": c})

    def chat(reqs, call):
        for i, m in enumerate(reqs):
            yield jenc({"v": jdec(m)["v"], "i": i})

    def fail(req, call):
        r = jdec(req)
        raise nw.NearwireError(r["code"], r.get("detail", ""), r.get("reason"), r.get("trailers"))

    def crash(req, call):
        raise RuntimeError("boom")

    def sleep(req, call):
        ms = jdec(req)["ms"]
        try:
            call.sleep(ms / 1000)
        except nw.Cancelled:
            events.append(("abort", call.method, call.cancel_code))
            raise
        return jenc({"slept": ms})

    def events_(req, call):
        out = [{"event": e[0], "detail": list(e[1:])} for e in events
               if e[0] in ("abort", "cancel", "deadline", "goaway-received", "goaway-sent",
                           "credit-received", "bad", "request")]
        events.clear()
        return jenc({"events": out})

    # -- quirks: legal answers a client must accept, and violations it must detect
    def unary_as_message(req, call):
        call.send(jenc({"text": "from MESSAGE"}))  # MESSAGE then STATUS without message (§5.2)
        return None

    def error_with_message(req, call):
        # STATUS code 5 carrying a message: the receiver ignores it and fails (§5.2)
        call.conn.end_call(call, nw.NOT_FOUND, "no such thing", None, jenc({"text": "ignored"}))
        return None

    def dup_trailers(req, call):
        st = nw.encode_status(call.id, nw.NOT_FOUND, "dup", [("k", "first"), ("k", "last")])
        with call.conn.lock:
            call.ended = True
            call.conn.calls.pop(call.id, None)
        call.conn.fs.send(nw.STATUS, st)
        raise nw.Cancelled()

    def unknown_reason(req, call):
        raise nw.NearwireError(nw.ABORTED, "new reason", "brand-new-reason")

    def late_frames(req, call):
        # answers, then sends a MESSAGE, STATUS and CREDIT for the ended call: ignored (§5.10)
        call.conn.end_call(call, nw.OK, "", None, jenc({"text": "done"}))
        fs = call.conn.fs
        fs.send(nw.MESSAGE, nw.encode_message(call.id, jenc({"text": "late"})))
        fs.send(nw.STATUS, nw.encode_status(call.id, nw.INTERNAL, "late status"))
        fs.send(nw.CREDIT, nw.encode_credit(call.id, 5))
        return None

    def status_unused_id(req, call):
        # a STATUS for an id the client never used: a violation the client must answer (§5.10)
        call.conn.fs.send(nw.STATUS, nw.encode_status(call.id + 1000, nw.OK, ""))
        call.sleep(2)
        return jenc({"text": "not reached"})

    def request_at_client(req, call):
        call.conn.fs.send(nw.REQUEST, nw.encode_request(1, G + "Say", b"{}", True))
        call.sleep(2)
        return jenc({"text": "not reached"})

    def big_credit_grant(req, call):
        # grants 2^32-1 credit on the client-stream call: any grant must be accepted (§5.4)
        call.window.granted += 0xFFFFFFFF  # this side's own count of what it granted
        call.conn.fs.send(nw.CREDIT, nw.encode_credit(call.id, 0xFFFFFFFF))
        return sum_(req, call)

    def flood(req, call):
        # n MESSAGEs at once, ignoring credit: more than 32 past credit is a violation (§5.4)
        r = jdec(req)
        for i in range(r["n"]):
            call.conn.fs.send(nw.MESSAGE, nw.encode_message(call.id, jenc({"i": i})))
        yield from ()

    def trailing_status(req, call):
        # a STATUS without HAS_MESSAGE but with bytes after its fields (§5.2 does not say)
        st = nw.encode_status(call.id, nw.OK, "") + b"xyz"
        with call.conn.lock:
            call.ended = True
            call.conn.calls.pop(call.id, None)
        call.conn.fs.send(nw.STATUS, st)
        raise nw.Cancelled()

    server.add(G + "Say", "unary", say)
    server.add(G + "Hold", "client_streaming", hold)
    server.add(T + "Echo", "unary", echo)
    server.add(T + "Count", "server_streaming", count)
    server.add(T + "Sum", "client_streaming", sum_)
    server.add(T + "Chat", "bidi_streaming", chat)
    server.add(T + "Fail", "unary", fail)
    server.add(T + "Crash", "unary", crash)
    server.add(T + "Sleep", "unary", sleep)
    server.add(T + "Events", "unary", events_)
    server.add(Q + "UnaryAsMessage", "unary", unary_as_message)
    server.add(Q + "ErrorWithMessage", "unary", error_with_message)
    server.add(Q + "DupTrailers", "unary", dup_trailers)
    server.add(Q + "UnknownReason", "unary", unknown_reason)
    server.add(Q + "LateFrames", "unary", late_frames)
    server.add(Q + "StatusUnusedId", "unary", status_unused_id)
    server.add(Q + "RequestAtClient", "unary", request_at_client)
    server.add(Q + "BigCredit", "client_streaming", big_credit_grant)
    server.add(Q + "Flood", "server_streaming", flood)
    server.add(Q + "TrailingStatus", "unary", trailing_status)


BAD_MODES = ["version2", "smallmax", "http2", "shm", "goaway-empty", "goaway-200", "goaway-ok",
             "goaway-8", "garbage", "silent", "hello-extra", "hello-badcrc", "late-status-then-eof"]


def bad_listener(path: str, mode: str, events: list):
    """A server that answers the preface wrongly (or unusually) in one way; records what the
    client sends back in `events` as ("bad", mode, [frame types / GOAWAY codes])."""
    import socket as so
    if os.path.exists(path):
        os.unlink(path)
    ls = so.socket(so.AF_UNIX, so.SOCK_STREAM)
    ls.bind(path)
    ls.listen(8)

    def serve(s):
        fs = nw.FramedSocket(s, nw.DEFAULT_MAX_FRAME)
        seen = []
        try:
            hello = fs.read_frame(2.0)
            seen.append(("first", hello[0] if hello else None))
            ans = {
                "version2": nw.encode_frame(nw.HELLO, nw.encode_hello(version=2)),
                "smallmax": nw.encode_frame(nw.HELLO, nw.encode_hello(1000)),
                "http2": bytes.fromhex("000000040000000000"),
                "shm": (lambda j: struct.pack(">I", len(j)) + j)(jenc({"magic": "nearwire-shm", "layout": 1,
                                                                       "pid": os.getpid()})),
                "goaway-empty": nw.encode_frame(nw.GOAWAY, b""),
                "goaway-200": nw.encode_frame(nw.GOAWAY, b"\xc8two hundred"),
                "goaway-ok": nw.encode_frame(nw.GOAWAY, b"\x00"),
                "goaway-8": nw.encode_frame(nw.GOAWAY, b"\x08too-many-connections"),
                "garbage": nw.encode_frame(0x80, b"hi"),
                "silent": b"",
                "hello-extra": nw.encode_frame(nw.HELLO, nw.encode_hello(flags=0xFFFF, extra=b"future")),
                "hello-badcrc": nw.encode_frame(nw.HELLO, nw.encode_hello())[:-1] + b"\0",
                "late-status-then-eof": nw.encode_frame(nw.HELLO, nw.encode_hello()),
            }[mode]
            if ans:
                s.sendall(ans)
            end = time.monotonic() + 2.0
            while time.monotonic() < end:
                try:
                    f = fs.read_frame(max(0.01, end - time.monotonic()))
                except (OSError, nw.NearwireError) as e:
                    seen.append(("error", type(e).__name__))
                    break
                if f is None:
                    seen.append(("eof",))
                    break
                t, p = f
                if t == nw.GOAWAY:
                    seen.append(("goaway",) + nw.decode_goaway(p))
                elif t == nw.REQUEST and mode in ("hello-extra", "late-status-then-eof"):
                    r = nw.decode_request(p)
                    seen.append(("request", r["method"]))
                    name = jdec(r["message"])["name"]
                    st = nw.encode_status(r["call_id"], 0, "", None, jenc({"text": f"hello, {name}"}))
                    fs.send(nw.STATUS, st)
                    if mode == "late-status-then-eof":
                        break
                else:
                    seen.append(("frame", t))
        finally:
            events.append(("bad", mode, seen))
            try:
                s.close()
            except OSError:
                pass

    def loop():
        while True:
            try:
                s, _ = ls.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(s,), daemon=True).start()

    threading.Thread(target=loop, daemon=True).start()
    return ls


def main():
    main_path = sys.argv[1]
    limits_path = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] != "-" else None
    lifetime = float(sys.argv[3]) if len(sys.argv) > 3 else 55.0
    servers = []
    s = nw.RpcServer(main_path)
    build(s)
    s.listen()
    servers.append(s)
    if limits_path:
        s2 = nw.RpcServer(limits_path, max_frame_bytes=1024 + 65536, max_concurrent_calls=4,
                          handshake_timeout=0.3)
        build(s2, max_message=1024)
        s2.listen()
        servers.append(s2)
    bad = []
    if len(sys.argv) > 4:
        for mode in BAD_MODES:
            bad.append((bad_listener(f"{sys.argv[4]}-{mode}.sock", mode, s.events), f"{sys.argv[4]}-{mode}.sock"))
    print("ready", flush=True)
    done = threading.Event()

    def close(*_):
        threading.Thread(target=lambda: ([x.close(0.5) for x in servers], done.set()),
                         daemon=True).start()

    signal.signal(signal.SIGTERM, close)
    signal.signal(signal.SIGINT, close)
    if not done.wait(lifetime):
        for x in servers:
            x.close(0.0)
    for ls, p in bad:
        ls.close()
        if os.path.exists(p):
            os.unlink(p)
    time.sleep(0.05)
    print("closed", flush=True)


if __name__ == "__main__":
    main()
