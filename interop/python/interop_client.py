#!/usr/bin/env python3
"""Python client -> a server of nearwire.example.Greeter + nearwire.interop.Test (node-server.mjs
or py_server.py): call kinds, deadlines, cancellation, credit, metadata, errors, the receiver
rules of §5.10 and §5.7 (each bad frame on a fresh connection), the preface (§4.2) and limits.

usage: interop_client.py --label L --main PATH [--limits PATH] [--maxconn PATH]
                         [--impl node|python] [--shutdown-pid PID] [--only SUBSTR]
Prints ok/FAIL/info lines and a closing `N passed, N failed` line; exit 1 on a failure.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nearwire_spec as nw  # noqa: E402
from nearwire_spec import jdec, jenc  # noqa: E402
from test_vectors import Results, collect, split_frames, summarize  # noqa: E402

SAY = "/nearwire.example.Greeter/Say"
HOLD = "/nearwire.example.Greeter/Hold"
T = "/nearwire.interop.Test/"
ADA = b'{"name":"Ada"}'

R = Results()
INFO: list[str] = []


def info(msg: str):
    INFO.append(msg)
    print(f"  info  {msg}")


def check(label, ok, detail=""):
    R.check(label, ok, detail)


# ----------------------------------------------------------------- frame builders


def F(t, p=b""):
    return nw.encode_frame(t, p)


def REQ(cid, method, msg=None, end=False, timeout=0, md=None, flags=None):
    return F(nw.REQUEST, nw.encode_request(cid, method, msg, end, timeout, md, flags))


def SAYF(cid):
    return REQ(cid, SAY, ADA, end=True)


def HOLDF(cid):
    return REQ(cid, HOLD)


def MSG(cid, m=ADA):
    return F(nw.MESSAGE, nw.encode_message(cid, m))


def END(cid):
    return F(nw.END, nw.encode_end(cid))


def CAN(cid, code=1):
    return F(nw.CANCEL, nw.encode_cancel(cid, code))


def CRED(cid, n):
    return F(nw.CREDIT, nw.encode_credit(cid, n))


def split_raw(data: bytes):
    """Splits a byte string into frames by their length fields only (no CRC check)."""
    out, pos = [], 0
    while pos < len(data):
        n = struct.unpack_from(">I", data, pos)[0] if pos + 4 <= len(data) else 0
        end = min(len(data), pos + 9 + n) if pos + 4 <= len(data) else len(data)
        out.append(data[pos:end])
        pos = end
    return out


def exchange(path, data: bytes, paced=True, quiet=0.3):
    """After the preface: writes `data` (frame by frame when paced), reads until EOF or quiet.
    -> (frames, eof)"""
    fs = nw.client_preface(path)
    frames = []
    eof = False
    try:
        if paced:
            for raw in split_raw(data):
                try:
                    fs.send_raw(raw)
                except OSError:
                    eof = True
                    break
                got, eof = collect(fs, quiet=0.06, total=2.0)
                frames += got
                if eof:
                    break
        else:
            fs.send_raw(data)
        if not eof:
            got, eof = collect(fs, quiet=quiet, total=4.0)
            frames += got
    finally:
        fs.close()
    return frames, eof


def expect(label, path, data, statuses, goaway, paced=None):
    """statuses: list of 'id:code'; goaway: code or None (connection must stay open).
    paced (default: when at most 6 frames): one frame at a time, waiting until quiet."""
    if paced is None:
        paced = len(split_raw(data)) <= 6
    frames, eof = exchange(path, data, paced, quiet=0.2)
    st, ga = summarize(frames)
    ok = st == statuses and (
        (goaway is None and ga is None and not eof) or (goaway is not None and ga is not None
                                                         and ga[0] == goaway and eof))
    want = f"statuses {statuses} " + (f"GOAWAY {goaway}" if goaway is not None else "stays open")
    check(f"{label}: {want}", ok, f"got statuses {st} goaway {ga} eof {eof}")
    return frames, ga


def server_events(path):
    c = nw.RpcClient(path)
    try:
        return jdec(c.unary(T + "Events", b"{}"))["events"]
    finally:
        c.close()


# ----------------------------------------------------------------- call kinds


def test_calls(path, impl):
    c = nw.RpcClient(path)
    try:
        check("unary Say", jdec(c.unary(SAY, ADA)) == {"text": "hello, Ada"})
        # metadata: lower-cased by this client (§5.3); trailers on an OK STATUS
        call = c.start(T + "Echo", jenc({"value": 1, "trailers": {"t-one": "1"}}), end=True,
                       metadata={"X-Trace": "abc", "authorization": "Bearer t0k"}, timeout_ms=5000)
        r = jdec(call.result())
        check("unary Echo: metadata reaches the handler (keys lower-case)",
              r["metadata"] == {"x-trace": "abc", "authorization": "Bearer t0k"}, repr(r))
        check("unary Echo: the handler sees the deadline", r["hasDeadline"] is True, repr(r))
        check("unary Echo: trailers on the OK STATUS", call.status["trailers"] == {"t-one": "1"},
              repr(call.status))
        check("unary answered as one STATUS with the message inline (§5.2)",
              call.status["message"] is not None and call.status["flags"] & nw.F_HAS_MESSAGE,
              repr(call.status))
        # server streaming past the initial credit (our client grants as it consumes)
        call = c.server_stream(T + "Count", jenc({"n": 300}))
        got = [jdec(m)["i"] for m in call.responses()]
        check("server-streaming Count 300 (> 32 credits; this client grants credit)",
              got == list(range(300)), f"{len(got)} messages")
        call = c.server_stream(T + "Count", jenc({"n": 40, "size": 40000}))
        got = [jdec(m)["i"] for m in call.responses()]
        check("server-streaming Count 40 x 40 KB (window stays 32)", got == list(range(40)))
        # client streaming past the initial credit: the server must grant
        call = c.start(T + "Sum")
        for i in range(300):
            call.send(jenc({"v": i}))
        call.end()
        r = jdec(call.result())
        check("client-streaming Sum 300 (> 32 credits; the server grants)",
              r == {"sum": sum(range(300)), "count": 300}, repr(r))
        # client streaming, first message inline in REQUEST (HAS_MESSAGE without END_STREAM)
        call = c.start(T + "Sum", jenc({"v": 5}))
        call.send(jenc({"v": 6}))
        call.end()
        r = jdec(call.result())
        check("client-streaming with the first message inline in REQUEST", r == {"sum": 11, "count": 2}, repr(r))
        # client streaming with nothing: REQUEST(END_STREAM) only
        r = jdec(c.start(T + "Sum", end=True).result())
        check("client-streaming with zero messages (REQUEST END_STREAM)", r == {"sum": 0, "count": 0}, repr(r))
        # bidi, lock-step: one out, one back (a server that waits for END would deadlock)
        call = c.start(T + "Chat")
        it = call.responses()
        ok = True
        for i in range(100):
            call.send(jenc({"v": i}))
            if jdec(next(it)) != {"v": i, "i": i}:
                ok = False
        call.end()
        rest = list(it)
        check("bidi Chat 100 in lock-step", ok and rest == [], f"rest {rest}")
        # bidi, 300 at once
        call = c.start(T + "Chat")
        got = []
        t = threading.Thread(target=lambda: got.extend(jdec(m)["v"] for m in call.responses()))
        t.start()
        for i in range(300):
            call.send(jenc({"v": i}))
        call.end()
        t.join(10)
        check("bidi Chat 300 concurrently (credit both ways)", got == list(range(300)), f"{len(got)}")
        # many calls in flight on one connection
        calls = [c.start(SAY, jenc({"name": str(i)}), end=True) for i in range(50)]
        ok = all(jdec(k.result())["text"] == f"hello, {i}" for i, k in enumerate(calls))
        check("50 unary calls in flight on one connection", ok)
    finally:
        c.close()


def test_batch(path, impl):
    """§4.1 features and §5.2 BATCH, as a client that does not and one that does take BATCH."""
    plain = nw.RpcClient(path)
    try:
        check("a HELLO without features is answered without them (§4.1)",
              plain.fs.server_features is None, repr(plain.fs.server_features))
        got = [jdec(m)["i"] for m in plain.server_stream(T + "Count", jenc({"n": 300})).responses()]
        check("server-streaming Count 300 to a client without BATCH: MESSAGE frames only",
              got == list(range(300)) and plain.batches == 0, f"{len(got)} messages")
    finally:
        plain.close()
    c = nw.RpcClient(path, batch=True)
    try:
        feats = c.fs.server_features
        check("a HELLO announcing BATCH is answered with BATCH (bit 0)",
              feats is not None and feats & nw.FEATURE_BATCH, repr(feats))
        got = [jdec(m)["i"] for m in c.server_stream(T + "Count", jenc({"n": 3000})).responses()]
        check("server-streaming Count 3000 to a client that takes BATCH: every message, in order",
              got == list(range(3000)), f"{len(got)} messages")
        if impl == "node":  # this peer's own server takes BATCH but never sends it
            check("... several messages to a BATCH frame", c.batches > 0 and c.batches < 3000,
                  f"{c.batches} BATCH frames")
        check("unary Say after the stream", jdec(c.unary(SAY, ADA)) == {"text": "hello, Ada"})
    finally:
        c.close()


def test_errors(path, impl):
    c = nw.RpcClient(path)
    try:
        try:
            c.unary(T + "Fail", jenc({"code": 5, "detail": "no user Ada", "trailers": {"retry-after-ms": "100"}}))
            check("Fail 5: error", False, "no error")
        except nw.NearwireError as e:
            check("Fail: code, detail and trailers arrive", (e.code, e.detail, e.trailers.get("retry-after-ms")) ==
                  (5, "no user Ada", "100"), f"{e.code} {e.detail!r} {e.trailers}")
        for code in range(1, 17):
            try:
                c.unary(T + "Fail", jenc({"code": code, "detail": f"c{code}"}))
                ok = False
            except nw.NearwireError as e:
                ok = e.code == code and e.detail == f"c{code}"
            if not ok:
                check(f"Fail with code {code}", False, "mismatch")
        check("Fail with every code 1..16 arrives as that code", True)
        try:
            c.unary(T + "Crash", b"{}")
        except nw.NearwireError as e:
            check("handler throws a plain Error: UNKNOWN (2)", e.code == nw.UNKNOWN, str(e))
        call = c.start(T + "Nope", b"{}", end=True)
        try:
            call.result()
        except nw.NearwireError as e:
            check("unknown method: UNIMPLEMENTED, detail 'method <path> not found'",
                  e.code == 12 and e.detail == f"method {T}Nope not found", repr(e.detail))
        check("connection still serves after UNIMPLEMENTED", jdec(c.unary(SAY, ADA))["text"] == "hello, Ada")
        try:
            c.unary(SAY, b"{not json")
        except nw.NearwireError as e:
            check("undecodable request: INVALID_ARGUMENT, nearwire-reason decode-failed, nearwire-codec json",
                  e.code == 3 and e.reason == "decode-failed" and e.trailers.get("nearwire-codec") == "json",
                  f"{e.code} {e.reason} {e.trailers}")
        check("connection still serves after decode-failed", jdec(c.unary(SAY, ADA))["text"] == "hello, Ada")
        try:
            c.unary(SAY, ADA, timeout_ms=0)
            check("timeoutMs 0: fails at once", False)
        except nw.NearwireError as e:
            check("timeoutMs 0 fails locally with DEADLINE_EXCEEDED (nothing sent, §5.5)", e.code == 4)
    finally:
        c.close()


def test_deadline_cancel(path, impl):
    server_events(path)  # clear
    c = nw.RpcClient(path)
    try:
        t0 = time.monotonic()
        try:
            c.unary(T + "Sleep", jenc({"ms": 3000}), timeout_ms=200)
            check("deadline: Sleep 3000 ms with timeoutMs 200", False, "answered")
        except nw.NearwireError as e:
            dt = time.monotonic() - t0
            check("deadline: DEADLINE_EXCEEDED locally after ~200 ms, CANCEL(4) sent", e.code == 4 and 0.18 < dt < 1.0,
                  f"{e} after {dt:.3f}s")
        call = c.start(HOLD)
        for _ in range(3):
            call.send(ADA)
        time.sleep(0.1)
        call.cancel()
        time.sleep(0.2)
        check("connection serves after the cancel", jdec(c.unary(SAY, ADA))["text"] == "hello, Ada")
    finally:
        c.close()
    ev = server_events(path)
    aborts = [e for e in ev if e.get("event") == "abort"]
    info(f"server events after deadline+cancel: {json.dumps(aborts)}")
    check("server aborted the Sleep handler (deadline) and the Hold handler (cancel)",
          any("Sleep" in json.dumps(e) for e in aborts) and any("Hold" in json.dumps(e) for e in aborts),
          json.dumps(ev))
    # server-side deadline: the client never cancels; the server's timer answers STATUS 4
    fs = nw.client_preface(path)
    try:
        t0 = time.monotonic()
        fs.send_raw(REQ(1, T + "Sleep", jenc({"ms": 3000}), end=True, timeout=150))
        f = fs.read_frame(2.0)
        dt = time.monotonic() - t0
        frames = [f] if f else []
        st, ga = summarize(frames)
        check("server-side deadline (timeoutMs 150, no CANCEL): STATUS 1:4 from the server",
              st == ["1:4"] and ga is None, f"{st} {ga} after {dt:.3f}s")
        info(f"server deadline STATUS: {[nw.decode_status(p) for t, p in frames if t == nw.STATUS]} "
             f"after {dt:.3f}s")
    finally:
        fs.close()
    # the maximal u32 deadline is honoured (no overflow into 'expired')
    c = nw.RpcClient(path)
    try:
        fs_ok = jdec(c.unary(T + "Echo", b"{}", timeout_ms=0xFFFFFFFF))
        check("timeoutMs 2^32-1 on the wire: the call is served", fs_ok["hasDeadline"] is True, repr(fs_ok))
    finally:
        c.close()


def test_credit_raw(path, impl):
    """The server as a sender honours credit exactly (§5.4)."""
    fs = nw.client_preface(path)
    try:
        fs.send_raw(REQ(1, T + "Count", jenc({"n": 100}), end=True))
        frames, _ = collect(fs, quiet=0.3)
        n1 = sum(1 for t, _ in frames if t == nw.MESSAGE)
        fs.send_raw(CRED(1, 10))
        frames, _ = collect(fs, quiet=0.3)
        n2 = sum(1 for t, _ in frames if t == nw.MESSAGE)
        fs.send_raw(CRED(1, 100))
        frames, _ = collect(fs, quiet=0.3)
        n3 = sum(1 for t, _ in frames if t == nw.MESSAGE)
        st, _ = summarize(frames)
        check("server sender: 32 MESSAGEs with no CREDIT, +10 after CREDIT 10, rest + STATUS 0 after CREDIT 100",
              (n1, n2, n3, st) == (32, 10, 58, ["1:0"]), f"{n1} {n2} {n3} {st}")
    finally:
        fs.close()
    # the grants a server's receiver sends, against §5.4's reference window
    for size, total in ((7, 600), (1016, 2000), (40016, 100)):
        msg = MSG(1, jenc({"v": 1, "pad": "x" * (size - 16)}) if size > 7 else jenc({"v": 1}))
        assert len(msg) == size + 13
        model = nw.ReceiveWindow()
        want = []
        for _ in range(total):
            model.on_received(size)
            g = model.on_consumed()
            if g:
                want.append(g)
        fs = nw.client_preface(path)
        try:
            fs.send_raw(REQ(1, T + "Sum"))
            credits, sent, avail = [], 0, 32
            deadline = time.monotonic() + 5
            while sent < total and time.monotonic() < deadline:
                n = min(avail, total - sent)
                if n:
                    fs.send_raw(msg * n)
                    sent, avail = sent + n, avail - n
                try:
                    f = fs.read_frame(1.0)
                except socket.timeout:
                    break
                if f and f[0] == nw.CREDIT:
                    credits.append(nw.decode_credit(f[1])[1])
                    avail += credits[-1]
            fs.send_raw(END(1))
            frames, _ = collect(fs, quiet=0.3)
            credits += [nw.decode_credit(p)[1] for t, p in frames if t == nw.CREDIT]
            st, _ = summarize(frames)
            info(f"CREDIT grants for {total} messages of {size} B: {credits} (reference model: {want})")
            check(f"client-stream of {total} x {size} B messages, sender never past credit: summed",
                  st == ["1:0"] and sent == total, f"{st} sent {sent}")
            check(f"server receiver's grants for {size} B messages follow §5.4's reference window",
                  credits == want, f"{credits} vs {want}")
        finally:
            fs.close()


def test_metadata_raw(path, impl):
    fs = nw.client_preface(path)

    def echo(cid, md):
        fs.send_raw(F(nw.REQUEST, nw.encode_request(cid, T + "Echo", b"{}", True, 0, md)))
        frames, eof = collect(fs, quiet=0.3)
        st = [nw.decode_status(p) for t, p in frames if t == nw.STATUS]
        if not st or st[0]["code"] != 0:
            return None, (frames, eof)
        return jdec(st[0]["message"])["metadata"], None

    try:
        md, err = echo(1, [("X-Upper", "v")])
        check("metadata key sent upper-case reaches the handler byte for byte (no folding, §5.3)",
              md == {"X-Upper": "v"}, f"{md} {err}")
        md, err = echo(2, [("k", "1"), ("k", "2")])
        check("duplicate metadata key: the last value wins (§5.3)", md == {"k": "2"}, f"{md} {err}")
        md, err = echo(3, [("ключ", "v")])
        info(f"non-ASCII (valid UTF-8) metadata key: handler sees {md} (err {err and summarize(err[0])})")
        if md is None:
            fs.close()
            fs = nw.client_preface(path)
        md, err = echo(4, [("", "empty key")])
        info(f"empty metadata key: handler sees {md} (err {err and summarize(err[0])})")
        if md is None:
            fs.close()
            fs = nw.client_preface(path)
        md, err = echo(5, [("nearwire-reason", "x"), ("nearwire-foo", "y")])
        info(f"reserved nearwire-* keys in request metadata: handler sees {md} (err {err and summarize(err[0])})")
    finally:
        fs.close()


# ----------------------------------------------------------------- §5.10 / §5.7 misbehaviour


def test_receiver_rules(path, impl):
    S = SAY
    cases = [
        ("END for an unused id", SAYF(1) + END(2), ["1:0"], 13),
        ("CANCEL for an unused id", SAYF(1) + CAN(2), ["1:0"], 13),
        ("CREDIT for an unused id", SAYF(1) + CRED(2, 5), ["1:0"], 13),
        ("MESSAGE for id 0", SAYF(1) + MSG(0), ["1:0"], 13),
        ("REQUEST reusing the id of an active call", HOLDF(1) + SAYF(1), [], 13),
        ("REQUEST reusing the id of a half-closed call", HOLDF(1) + END(1) + SAYF(1), [], 13),
        ("REQUEST reusing the id of an ended call", SAYF(1) + SAYF(1), ["1:0"], 13),
        ("CANCEL on a half-closed call ends it silently", HOLDF(1) + END(1) + CAN(1) + SAYF(2), ["2:0"], None),
        ("CREDIT on an active call", HOLDF(1) + CRED(1, 5) + SAYF(2), ["2:0"], None),
        ("CREDIT on a half-closed call", HOLDF(1) + END(1) + CRED(1, 5) + SAYF(2), ["2:0"], None),
        ("STATUS at a server, active call", HOLDF(1) + F(nw.STATUS, nw.encode_status(1, 0)), [], 13),
        ("STATUS at a server, half-closed call", HOLDF(1) + END(1) + F(nw.STATUS, nw.encode_status(1, 0)), [], 13),
        ("STATUS at a server, ended call", SAYF(1) + F(nw.STATUS, nw.encode_status(1, 0)), ["1:0"], 13),
        ("unary with a second MESSAGE: the call fails INVALID_ARGUMENT, the connection stays",
         REQ(1, S) + MSG(1) + MSG(1) + SAYF(2), ["1:3", "2:0"], None),
        ("unary with no message (REQUEST END_STREAM only): INVALID_ARGUMENT",
         REQ(1, S, end=True) + SAYF(2), ["1:3", "2:0"], None),
        ("unary as REQUEST(0) + MESSAGE + END", REQ(1, S) + MSG(1) + END(1), ["1:0"], None),
        ("server-streaming with a second MESSAGE: INVALID_ARGUMENT",
         REQ(1, T + "Count") + MSG(1, b'{"n":1}') + MSG(1, b'{"n":1}') + END(1) + SAYF(2),
         ["1:3", "2:0"], None),
        ("END of 3 bytes (active call)", HOLDF(1) + F(nw.END, b"\0\0\0"), [], 13),
        ("END of 5 bytes (active call)", HOLDF(1) + F(nw.END, b"\0\0\0\1\0"), [], 13),
        ("CANCEL of 4 bytes (active call)", HOLDF(1) + F(nw.CANCEL, b"\0\0\0\1"), [], 13),
        ("CANCEL of 6 bytes (active call)", HOLDF(1) + F(nw.CANCEL, b"\0\0\0\1\1\0"), [], 13),
        ("CANCEL of 6 bytes (ended call: whatever the state)", SAYF(1) + F(nw.CANCEL, b"\0\0\0\1\1\0"), ["1:0"], 13),
        ("CREDIT of 7 bytes (active call)", HOLDF(1) + F(nw.CREDIT, b"\0\0\0\1\0\0\5"), [], 13),
        ("CREDIT of 9 bytes (active call)", HOLDF(1) + F(nw.CREDIT, b"\0\0\0\1\0\0\0\5\0"), [], 13),
        ("END of 3 bytes (ended call)", SAYF(1) + F(nw.END, b"\0\0\1"), ["1:0"], 13),
        ("REQUEST of 9 bytes", F(nw.REQUEST, b"\0\0\0\1\3\0\0\0\0"), [], 13),
        ("REQUEST whose method length runs past the payload",
         F(nw.REQUEST, struct.pack(">IBIB", 1, 3, 0, 40) + S.encode()), [], 13),
        ("REQUEST whose metadata block runs past the payload",
         F(nw.REQUEST, nw.encode_request(1, S, None, True, 0, {"k": "v"})[:-2]), [], 13),
        ("REQUEST with a metadata count above its entries",
         F(nw.REQUEST, struct.pack(">IBIB", 1, 5, 0, len(S)) + S.encode() + b"\0\2" + nw.encode_metadata({"k": "v"})[2:]),
         [], 13),
        ("REQUEST with invalid UTF-8 in the method",
         F(nw.REQUEST, struct.pack(">IBIB", 1, 3, 0, 3) + b"/\xff/" + ADA), [], 13),
        ("REQUEST with invalid UTF-8 in a metadata value",
         REQ(1, S, ADA, True, md=[("k", b"\xc3\x28")]), [], 13),
        ("REQUEST with invalid UTF-8 in a metadata key",
         REQ(1, S, ADA, True, md=[(b"\xff", "v")]), [], 13),
        ("REQUEST with unknown flag bits (0x80|0x03): ignored", REQ(1, S, ADA, flags=0x83), ["1:0"], None),
        ("REQUEST with call id 2^32-1", SAYF(0xFFFFFFFF), ["4294967295:0"], None),
        ("REQUEST after id 2^32-1 (nothing is above it)", SAYF(0xFFFFFFFF) + SAYF(1), ["4294967295:0"], 13),
        ("REQUEST with HAS_MESSAGE and a 0-byte message (JSON cannot decode it)",
         REQ(1, S, b"", True), ["1:3"], None),
        ("frame type 0x17 (reserved RPC)", F(0x17, b"\0\0\0\1"), [], 13),
        ("frame type 0x7F (reserved RPC)", F(0x7F), [], 13),
        ("frame type 0x80 (application) on an RPC connection", F(0x80, b"abc"), [], 13),
        ("frame type 0xFF (application) on an RPC connection", F(0xFF), [], 13),
        ("frame type 0x00", F(0x00), [], 13),
        ("frame type 0x03 (reserved control)", F(0x03), [], 13),
        ("frame type 0x0F (reserved control)", F(0x0F), [], 13),
        ("a second HELLO", F(nw.HELLO, nw.encode_hello()), [], 13),
        ("CRC mismatch after the preface", SAYF(1)[:-1] + bytes([SAYF(1)[-1] ^ 1]), [], 15),
        ("a MESSAGE more than 32 past credit (65 on a Hold that reads nothing)",
         HOLDF(1) + MSG(1) * 65, [], 13),
        ("the inline REQUEST message counts against credit (1 inline + 64 MESSAGEs)",
         REQ(1, HOLD, ADA) + MSG(1) * 64, [], 13),
        ("1 inline + 63 MESSAGEs: exactly 32 past credit, allowed",
         REQ(1, HOLD, ADA) + MSG(1) * 63 + SAYF(2), ["2:0"], None),
    ]
    for label, data, st, ga in cases:
        expect(label, path, data, st, ga)
    # exactly 32 past credit is allowed (64 messages, none consumed)
    expect("64 MESSAGEs on a Hold that reads nothing (32 past credit: allowed)",
           path, HOLDF(1) + MSG(1) * 64 + SAYF(2), ["2:0"], None)
    # corners the spec leaves open: record what the server does
    for label, data in [
        ("REQUEST without HAS_MESSAGE but with bytes after the method",
         F(nw.REQUEST, nw.encode_request(1, SAY, None, True) + ADA)),
        ("REQUEST with HAS_METADATA and a count of 0",
         F(nw.REQUEST, struct.pack(">IBIB", 1, 7, 0, len(T + "Echo")) + (T + "Echo").encode() + b"\0\0" + b"{}")),
        ("MESSAGE for a skipped id below the last (REQUEST 1, 7; MESSAGE 4): §5.7 says violation, "
         "§5.10's states say not 'unused'", SAYF(1) + SAYF(7) + MSG(4)),
        ("REQUEST with timeoutMs 1 (expires at once)", REQ(1, T + "Sleep", b'{"ms":500}', True, timeout=1)),
        ("END on a unary call already half-closed by END_STREAM", REQ(1, T + "Sleep", b'{"ms":300}', True) + END(1)),
        ("burst: REQUEST Sleep 50 ms (END_STREAM) + MESSAGE for it (half-closed: violation)",
         REQ(1, T + "Sleep", b'{"ms":50}', True) + MSG(1)),
    ]:
        frames, eof = exchange(path, data, paced=False)
        st, ga = summarize(frames)
        info(f"{label}: statuses {st} goaway {ga} eof {eof}")
    # GOAWAY reasons: record what nearwire writes
    for label, data in [("type 0x03", F(0x03)), ("type 0x80", F(0x80)), ("MESSAGE unused id", SAYF(1) + MSG(9))]:
        frames, eof = exchange(path, data)
        _, ga = summarize(frames)
        info(f"GOAWAY for {label}: {ga}")
    # N above the limit: rejected once the 4 length bytes are in, before any payload
    fs = nw.client_preface(path)
    try:
        fs.send_raw(struct.pack(">I", fs.peer_max + 1))
        frames, eof = collect(fs, quiet=1.0)
        _, ga = summarize(frames)
        check("length above the server's maxFrameBytes: GOAWAY 8 after only the 4 length bytes",
              ga is not None and ga[0] == 8 and eof, f"{ga} eof {eof}")
    finally:
        fs.close()
    # the client's GOAWAY after the preface: the server answers nothing and closes
    for label, data in [("GOAWAY(0)", F(nw.GOAWAY, b"\0")), ("GOAWAY(13, reason)", F(nw.GOAWAY, b"\x0dtest")),
                        ("GOAWAY with an empty payload", F(nw.GOAWAY))]:
        frames, eof = exchange(path, HOLDF(1) + data)
        check(f"client sends {label}: the server closes and answers nothing", frames == [] and eof,
              f"{[(t, p.hex()) for t, p in frames]} eof {eof}")
    # rpc-unimplemented vector: the exact STATUS bytes of a nearwire server
    frames, eof = exchange(path, SAYF(1) + REQ(2, "/nearwire.example.Greeter/Nope", ADA, True))
    want = bytes.fromhex("00000037 13 00000002000c002f6d6574686f64202f6e656172776972652e6578616d706c652e"
                         "477265657465722f4e6f7065206e6f7420666f756e64 e6f769a8".replace(" ", ""))
    got = [F(t, p) for t, p in frames if t == nw.STATUS][1:]
    check("unknown method: STATUS bytes equal the rpc-unimplemented vector", got == [want],
          f"{[g.hex() for g in got]}")
    # a frame for an ended call sent before the server could answer (burst): timing-dependent
    res = []
    for _ in range(10):
        frames, eof = exchange(path, SAYF(1) + MSG(1) + SAYF(2), paced=False, quiet=0.15)
        res.append((tuple(summarize(frames)[0]), summarize(frames)[1] is not None))
    info(f"burst REQUEST Say 1 + MESSAGE 1 + REQUEST Say 2, 10 runs: {sorted(set(res))}")


# ----------------------------------------------------------------- §4.2 preface


def raw_first_frames(path, data, wait=1.0, close_write=False):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(data)
    got = b""
    s.settimeout(wait)
    eof = False
    try:
        while True:
            d = s.recv(65536)
            if not d:
                eof = True
                break
            got += d
    except socket.timeout:
        pass
    except ConnectionResetError:
        eof = True
    s.close()
    return got, eof


def first_goaway(got: bytes):
    try:
        frames = split_frames(got)
    except Exception:  # noqa: BLE001
        return ("undecodable", got.hex())
    for t, p in frames:
        if t == nw.GOAWAY:
            return nw.decode_goaway(p)
        if t == nw.HELLO:
            return "HELLO"
    return None


def test_preface(path, impl):
    H = nw.encode_hello
    cases = [
        ("wrong magic", F(nw.HELLO, H(magic=b"NEARWIRX")), 3),
        ("version 2", F(nw.HELLO, H(version=2)), 9),
        ("maxFrameBytes 1023", F(nw.HELLO, H(1023)), 3),
        ("HELLO of 15 bytes", F(nw.HELLO, H()[:15]), 3),
        ("HELLO with a bad CRC", F(nw.HELLO, H())[:-1] + b"\0", 3),
        ("first frame MESSAGE", MSG(1), 3),
        ("first frame GOAWAY from the client", F(nw.GOAWAY, b"\x03x"), 3),
        ("first frame of 65 bytes (header only)", struct.pack(">IB", 65, 1), 3),
        ("first frame type 0x80 of 64 bytes", F(0x80, b"x" * 64), 3),
        ("HTTP/1 request", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 3),
        ("HTTP/2 client preface", b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 3),
        ("bad HELLO then a pipelined REQUEST (discarded)", F(nw.HELLO, H(version=0)) + SAYF(1), 9),
    ]
    for label, data, code in cases:
        got, eof = raw_first_frames(path, data)
        ga = first_goaway(got)
        frames = split_frames(got) if isinstance(ga, tuple) and ga[0] != "undecodable" else []
        if label in ("wrong magic", "version 2", "first frame of 65 bytes (header only)"):
            info(f"preface GOAWAY for {label}: {ga}")
        check(f"preface: {label}: GOAWAY {code} and close, nothing else",
              isinstance(ga, tuple) and ga[0] == code and eof and len(frames) == 1, f"{ga} eof {eof} ({got.hex()[:80]})")
    for label, hello in [("maxFrameBytes 1024", H(1024)), ("HELLO of 20 bytes", H(extra=b"\1\2\3\4")),
                         ("HELLO flags 0xffff", H(flags=0xFFFF))]:
        got, eof = raw_first_frames(path, F(nw.HELLO, hello) + SAYF(1), wait=0.25)
        frames = split_frames(got)
        check(f"preface: {label} accepted (HELLO back, the pipelined Say answered)",
              [t for t, _ in frames] == [nw.HELLO, nw.STATUS] and not eof, f"{[(t, p.hex()) for t, p in frames]}")
    got, _ = raw_first_frames(path, F(nw.HELLO, H()), wait=0.3)
    want = bytes.fromhex("00000010014e4541525749524500010000004100001e59080b")
    check("server HELLO announces 4,259,840 (= the rpc-unary-exchange vector's bytes)", got == want, got.hex())
    # 4 length bytes alone: > 4096 must be refused at once; 65..4096 might be an shm-ring frame
    for n in (65, 5000):
        got, eof = raw_first_frames(path, struct.pack(">I", n), wait=0.4)
        ga = first_goaway(got)
        if n == 5000:
            check("preface: 4 length bytes alone, N=5000: GOAWAY 3 at once", isinstance(ga, tuple) and ga[0] == 3 and eof,
                  f"{ga} eof {eof}")
        else:
            info(f"preface: 4 length bytes alone, N=65 (could still be an shm-ring handshake): "
                 f"{'GOAWAY ' + str(ga) if ga else 'no answer within 0.4 s'}, eof {eof}")
    # an shm-ring client meeting a uds server (§4.2 'A peer of another transport')
    hs = jenc({"magic": "nearwire-shm", "layout": 1, "pid": os.getpid()})
    got, eof = raw_first_frames(path, struct.pack(">I", len(hs)) + hs)
    txt = None
    if len(got) >= 4 and struct.unpack(">I", got[:4])[0] == len(got) - 4:
        try:
            txt = json.loads(got[4:])
        except ValueError:
            txt = None
    err = (txt or {}).get("error", {})
    check("preface: an shm-ring handshake gets the JSON error frame code 9 transport-mismatch",
          err.get("code") == 9 and err.get("reason") == "transport-mismatch" and eof, f"{got[:120]!r}")
    # the real shm-ring handshake (> 64 B) written in two pieces: the 4 length bytes, then the rest
    hs = jenc({"magic": "nearwire-shm", "layout": 1, "pid": 12345, "maxFrameBytes": 4259840})
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(struct.pack(">I", len(hs)))
    time.sleep(0.1)
    try:
        s.sendall(hs)
    except OSError:
        pass
    s.settimeout(0.5)
    got = b""
    try:
        while True:
            d = s.recv(4096)
            if not d:
                break
            got += d
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    info(f"shm-ring handshake of {len(hs)} B whose 4 length bytes arrive first: server answers {got[:160]!r}")
    # a client's HELLO then silence: the server waits (no timeout within 0.3 s)
    got, eof = raw_first_frames(path, F(nw.HELLO, H()), wait=0.3)
    check("HELLO then silence: the connection stays open", not eof and got == want, f"{got.hex()} eof {eof}")


def test_limits(limits, maxconn, impl):
    if limits:
        expect("maxConcurrentCalls 4: the 5th call is answered RESOURCE_EXHAUSTED, the connection stays",
               limits, b"".join(HOLDF(i) for i in range(1, 5)) + SAYF(5) + CAN(1) + SAYF(6), ["5:8", "6:0"], None)
        c = nw.RpcClient(limits)
        try:
            try:
                c.unary(T + "Echo", jenc({"value": "x" * 2000}))
                check("message over maxMessageBytes (1024)", False, "answered")
            except nw.NearwireError as e:
                check("message over maxMessageBytes: RESOURCE_EXHAUSTED message-too-large, connection stays",
                      e.code == 8 and e.reason == "message-too-large", f"{e} {e.trailers}")
            check("... and the next call works", jdec(c.unary(SAY, ADA))["text"] == "hello, Ada")
            try:
                c.unary(T + "Count", jenc({"n": 1, "size": 2000}))
            except nw.NearwireError as e:
                info(f"response over the server's maxMessageBytes: {e} trailers {e.trailers}")
            except StopIteration:
                pass
        finally:
            c.close()
        if impl == "node":
            fs = nw.client_preface(limits)
            try:
                t0 = time.monotonic()
                fs.send_raw(b"\0\0\0")
                frames, eof = collect(fs, quiet=2.0, total=3.0)
                dt = time.monotonic() - t0
                _, ga = summarize(frames)
                check("frameTimeoutMs 300: an incomplete frame gets GOAWAY 4 within 1-2x (+slack)",
                      ga is not None and ga[0] == 4 and eof and dt < 1.2, f"{ga} eof {eof} {dt:.2f}s")
            finally:
                fs.close()
        t0 = time.monotonic()
        got, eof = raw_first_frames(limits, b"", wait=2.0)
        dt = time.monotonic() - t0
        ga = first_goaway(got)
        check("preface timeout (300 ms) on a silent client: GOAWAY 14 UNAVAILABLE and close (§4.2)",
              isinstance(ga, tuple) and ga[0] == 14 and eof, f"{ga} raw {got.hex()} eof {eof} after {dt:.2f}s")
    if maxconn:
        first = nw.client_preface(maxconn)
        try:
            got, eof = raw_first_frames(maxconn, b"", wait=1.0)
            ga = first_goaway(got)
            check("maxConnections 1: a 2nd connection gets GOAWAY 8 without sending its HELLO",
                  isinstance(ga, tuple) and ga[0] == 8 and eof, f"{ga} eof {eof}")
        finally:
            first.close()


def test_shutdown(path, pid):
    """§4.3 graceful shutdown; the server must have graceMs 500."""
    fs = nw.client_preface(path)
    try:
        fs.send_raw(REQ(1, T + "Sleep", jenc({"ms": 5000}), end=True))
        time.sleep(0.1)
        os.kill(pid, signal.SIGTERM)
        time.sleep(0.15)
        refused = None
        try:
            nw.client_preface(path, timeout=1.0).close()
            refused = "connected"
        except nw.NearwireError as e:
            refused = (e.code, e.reason)
        fs.send_raw(SAYF(2))
        t0 = time.monotonic()
        frames, eof = collect(fs, quiet=1.5, total=4.0)
        dt = time.monotonic() - t0
        sts = [nw.decode_status(p) for t, p in frames if t == nw.STATUS]
        got = [(s["call_id"], s["code"], s["trailers"].get("nearwire-reason")) for s in sts]
        _, ga = summarize(frames)
        check("shutdown: a new connect finds nothing (UNAVAILABLE nothing-listens)",
              refused == (14, "nothing-listens"), repr(refused))
        check("shutdown: new REQUEST -> STATUS 14 server-closing; open call -> STATUS 14 server-closing after "
              "grace; then EOF without GOAWAY",
              got == [(2, 14, "server-closing"), (1, 14, "server-closing")] and ga is None and eof,
              f"{got} goaway {ga} eof {eof} after {dt:.2f}s")
    finally:
        fs.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", required=True)
    ap.add_argument("--main", required=True)
    ap.add_argument("--limits")
    ap.add_argument("--maxconn")
    ap.add_argument("--impl", default="node")
    ap.add_argument("--shutdown-pid", type=int)
    ap.add_argument("--only")
    a = ap.parse_args()
    suites = [("calls", lambda: test_calls(a.main, a.impl)),
              ("errors", lambda: test_errors(a.main, a.impl)),
              ("batch", lambda: test_batch(a.main, a.impl)),
              ("deadline-cancel", lambda: test_deadline_cancel(a.main, a.impl)),
              ("credit", lambda: test_credit_raw(a.main, a.impl)),
              ("metadata", lambda: test_metadata_raw(a.main, a.impl)),
              ("receiver-rules", lambda: test_receiver_rules(a.main, a.impl)),
              ("preface", lambda: test_preface(a.main, a.impl)),
              ("limits", lambda: test_limits(a.limits, a.maxconn, a.impl))]
    if a.shutdown_pid:
        suites.append(("shutdown", lambda: test_shutdown(a.main, a.shutdown_pid)))
    for name, fn in suites:
        if a.only and a.only not in name:
            continue
        print(f"[{a.label}] {name}")
        before = R.failed
        t0 = time.monotonic()
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            check(f"{name}: suite ran to the end", False, f"{type(e).__name__}: {e}")
        print(f"  ({name}: {R.failed - before} failed, {time.monotonic() - t0:.1f} s)")
    print(f"{R.passed} passed, {R.failed} failed")
    sys.exit(1 if R.failed else 0)


if __name__ == "__main__":
    main()
