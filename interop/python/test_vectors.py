#!/usr/bin/env python3
"""Checks every `vector:` block of PROTOCOL.md against nearwire_spec.py.

Offline vectors (§1, §2, §4, §5.9 frames, §6 nonce/records) are re-encoded and decoded byte for
byte. Behavioural vectors (rpc-unary-exchange, rule-*) run against a live server given with
--server PATH (any number of times); each rule vector is replayed twice: `paced` (one frame
at a time, waiting until the server is quiet) and `burst` (all frames in one write).
Prints one line per check and a closing `N passed, N failed` line; exit 1 on any failure.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nearwire_spec as nw  # noqa: E402

HEX_KEYS = {"payload", "frame", "stream", "input", "crc32c", "client-stream", "server-stream",
            "client-frames", "record", "records", "bytes"}
TEXT_KEYS = {"message", "input-text", "method", "message-text", "detail", "reason", "nonce",
             "statuses"}
KEY_RE = re.compile(r"^([a-z][a-z0-9-]*):(?: (.*)|)$")


def kind_of(key: str, vector: str) -> str:
    if key == "frame" and vector.startswith("shm-"):
        return "words"
    if key in HEX_KEYS:
        return "hex"
    if key in TEXT_KEYS or key.startswith("metadata-") or key.startswith("trailer-"):
        return "text"
    return "number"


def parse_vectors(path: str):
    text = open(path, encoding="utf-8").read()
    vectors = []
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M):
        lines = block.split("\n")
        if not lines[0].startswith("vector: "):
            continue
        name = lines[0][len("vector: "):].strip()
        raw: dict[str, str] = {}
        order = []
        last = None
        for line in lines[1:]:
            if line == "":
                continue
            m = KEY_RE.match(line)
            if m:
                last = m.group(1)
                raw[last] = m.group(2) or ""
                order.append(last)
            else:
                assert last is not None, f"{name}: continuation before any key: {line!r}"
                raw[last] = raw[last] + " " + line
        vals = {}
        for k, v in raw.items():
            kind = kind_of(k, name)
            if kind == "hex":
                vals[k] = bytes.fromhex("".join(v.split()))
            elif kind == "text":
                vals[k] = v
            elif kind == "words":
                vals[k] = v
            else:
                v = v.strip()
                vals[k] = None if v == "none" else int(v, 16) if v.startswith("0x") else int(v)
        vectors.append((name, vals, order))
    return vectors


class Results:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.notes = []

    def check(self, label: str, ok: bool, detail: str = ""):
        if ok:
            self.passed += 1
            print(f"  ok    {label}")
        else:
            self.failed += 1
            print(f"  FAIL  {label}: {detail}")
            self.notes.append(f"{label}: {detail}")


def split_frames(stream: bytes, limit=1 << 30):
    d = nw.FrameDecoder(limit)
    d.feed(stream)
    out = []
    while True:
        f = d.next()
        if f is None:
            break
        out.append(f)
    assert d.pending() == 0, "trailing bytes"
    return out


def decode_all(stream: bytes, chunks):
    d = nw.FrameDecoder(1 << 20)
    out = []
    pos = 0
    for c in chunks:
        d.feed(stream[pos: pos + c])
        pos += c
        while (f := d.next()) is not None:
            out.append(f)
    return out


# --------------------------------------------------------------------------- offline


def offline(name: str, v: dict, r: Results):
    if "crc32c" in v:
        data = v["input"] if "input" in v else v["input-text"].encode()
        got = nw.crc32c(data)
        r.check(f"{name}: crc32c", got.to_bytes(4, "big") == v["crc32c"], f"got {got:08x}")
        return True
    if name.startswith("frame-"):
        f = nw.encode_frame(v["type"], v["payload"])
        r.check(f"{name}: encode", f == v["frame"], f.hex())
        got = split_frames(v["frame"])
        r.check(f"{name}: decode", got == [(v["type"], v["payload"])], repr(got))
        return True
    if name.startswith("reject-"):
        data = v["stream"] if "stream" in v else v["input-text"].encode()
        preface = v.get("reason") == "bad-preface"  # the vector has no key for the state (finding)
        d = nw.FrameDecoder(v["max-payload-bytes"])
        code = None
        at = None
        for i in range(len(data)):
            d.feed(data[i: i + 1])
            try:
                d.next()
            except nw.NearwireError as e:
                code = nw.INVALID_ARGUMENT if preface else e.code
                reason = "bad-preface" if preface else e.reason
                at = i + 1
                break
        r.check(f"{name}: code {v['code']} reason {v['reason']} within {v['reject-after-bytes']} B",
                code == v["code"] and at is not None and at <= v["reject-after-bytes"]
                and reason == v["reason"], f"code {code} after {at} B")
        return True
    if name.startswith("hello-"):
        f = nw.encode_frame(nw.HELLO, nw.encode_hello(v["max-frame-bytes"], v["version"], v["flags"]))
        r.check(f"{name}: encode", f == v["frame"], f.hex())
        (t, p), = split_frames(v["frame"])
        r.check(f"{name}: decode", t == nw.HELLO and nw.decode_hello(p) ==
                (v["version"], v["flags"], v["max-frame-bytes"]), repr(p))
        return True
    if name.startswith("goaway-"):
        f = nw.encode_frame(nw.GOAWAY, nw.encode_goaway(v["code"], v["message"]))
        r.check(f"{name}: encode", f == v["frame"], f.hex())
        (t, p), = split_frames(v["frame"])
        r.check(f"{name}: decode", t == nw.GOAWAY and nw.decode_goaway(p) == (v["code"], v["message"]),
                repr(p))
        return True
    if name.startswith("rpc-") and "type" in v:
        t = v["type"]
        md = {k[len("metadata-"):]: val for k, val in v.items() if k.startswith("metadata-")}
        tr = {k[len("trailer-"):]: val for k, val in v.items() if k.startswith("trailer-")}
        msg = v["message-text"].encode() if "message-text" in v else None
        if t == nw.REQUEST:
            p = nw.encode_request(v["call-id"], v["method"], msg, timeout_ms=v["timeout-ms"],
                                  metadata=md, flags=v["flags"])
            d = nw.decode_request(v["payload"])
            dec_ok = (d["call_id"], d["flags"], d["timeout_ms"], d["method"], d["metadata"], d["message"]) \
                == (v["call-id"], v["flags"], v["timeout-ms"], v["method"], md, msg)
            auto = nw.encode_request(v["call-id"], v["method"], msg, end_stream=bool(v["flags"] & 1),
                                     timeout_ms=v["timeout-ms"], metadata=md)
            r.check(f"{name}: flags derived from fields", auto == v["payload"], auto.hex())
        elif t == nw.STATUS:
            p = nw.encode_status(v["call-id"], v["code"], v.get("detail", ""), tr, msg, flags=v["flags"])
            d = nw.decode_status(v["payload"])
            dec_ok = (d["call_id"], d["flags"], d["code"], d["detail"], d["trailers"], d["message"]) \
                == (v["call-id"], v["flags"], v["code"], v.get("detail", ""), tr, msg)
        elif t == nw.MESSAGE:
            p = nw.encode_message(v["call-id"], msg)
            dec_ok = nw.decode_message(v["payload"]) == (v["call-id"], msg)
        elif t == nw.END:
            p = nw.encode_end(v["call-id"])
            dec_ok = nw.decode_end(v["payload"]) == v["call-id"]
        elif t == nw.CANCEL:
            p = nw.encode_cancel(v["call-id"], v["code"])
            dec_ok = nw.decode_cancel(v["payload"]) == (v["call-id"], v["code"])
        elif t == nw.CREDIT:
            p = nw.encode_credit(v["call-id"], v["credit"])
            dec_ok = nw.decode_credit(v["payload"]) == (v["call-id"], v["credit"])
        else:
            r.check(f"{name}: known type", False, f"type {t:#x}")
            return True
        r.check(f"{name}: encode payload", p == v["payload"], p.hex())
        r.check(f"{name}: encode frame", nw.encode_frame(t, p) == v["frame"], nw.encode_frame(t, p).hex())
        r.check(f"{name}: decode", dec_ok)
        return True
    if name == "rpc-unary-exchange":
        cf = split_frames(v["client-stream"])
        sf = split_frames(v["server-stream"])
        ok = [t for t, _ in cf] == [nw.HELLO, nw.REQUEST] and [t for t, _ in sf] == [nw.HELLO, nw.STATUS]
        ok = ok and nw.decode_hello(cf[0][1])[2] == 4259840 and nw.decode_request(cf[1][1])["method"] == v["method"]
        r.check(f"{name}: offline decode of both streams", ok)
        return False  # also live
    if name == "batch-hello":
        f = nw.encode_frame(nw.HELLO, nw.encode_hello(v["max-frame-bytes"], v["version"], v["flags"],
                                                      extra=nw.encode_features(v["features"])))
        r.check(f"{name}: encode", f == v["frame"], f.hex())
        (t, p), = split_frames(v["frame"])
        r.check(f"{name}: decode", t == nw.HELLO and nw.decode_hello(p) ==
                (v["version"], v["flags"], v["max-frame-bytes"])
                and nw.hello_features(p) == v["features"], repr(p))
        return True
    if name == "credit-window-hello":
        extra = nw.encode_features(v["features"]) + struct.pack(">I", v["credit-window-bytes"])
        f = nw.encode_frame(nw.HELLO, nw.encode_hello(v["max-frame-bytes"], v["version"], v["flags"],
                                                      extra=extra))
        r.check(f"{name}: encode", f == v["frame"], f.hex())
        (t, p), = split_frames(v["frame"])
        r.check(f"{name}: decode", t == nw.HELLO and nw.decode_hello(p) ==
                (v["version"], v["flags"], v["max-frame-bytes"])
                and nw.hello_features(p) == v["features"]
                and nw.hello_credit_window(p) == v["credit-window-bytes"]
                and nw.hello_credit_window(p[:27]) is None, repr(p))
        return True
    if name == "batch-frame":
        cid, msgs = nw.decode_batch(v["payload"])
        again = nw.encode_batch(cid, msgs)
        r.check(f"{name}: decode and re-encode", cid == v["call-id"] and len(msgs) >= 2
                and again == v["payload"], repr(msgs))
        r.check(f"{name}: frame", nw.encode_frame(v["type"], again) == v["frame"]
                and v["type"] == nw.BATCH)
        return True
    if name == "shm-nonce":
        b = struct.pack("<Q", int(v["nonce"], 16))
        r.check(f"{name}: u64 LE", b == v["bytes"], b.hex())
        return True
    if name in ("shm-record", "shm-fragment"):
        m = re.match(r'type 0x([0-9a-f]+), payload "(.*)" \(([0-9a-f ]+)\)', v["frame"])
        ftype, text, hx = int(m.group(1), 16), m.group(2), bytes.fromhex(m.group(3).replace(" ", ""))
        ok_words = text.encode() == hx

        def record(t, pl):
            body = struct.pack("<IB3x", 0x80000000 | len(pl), t) + pl
            return body + b"\0" * ((-len(body)) % 8)
        if name == "shm-record":
            got = record(ftype, hx)
            r.check(f"{name}: record", ok_words and got == v["record"], got.hex())
        else:
            got = record(0x01, hx[:3]) + record(ftype, hx[3:])
            r.check(f"{name}: fragment + last piece", ok_words and got == v["records"], got.hex())
            # reassemble as a reader
            recs, pos, frag = [], 0, b""
            while pos < len(got):
                word, t = struct.unpack_from("<IB", got, pos)
                n = word & 0x7FFFFFFF
                pl = got[pos + 8: pos + 8 + n]
                pos += (8 + n + 7) & ~7
                if t == 0x01:
                    frag += pl
                else:
                    recs.append((t, frag + pl))
                    frag = b""
            r.check(f"{name}: reader delivers one frame", recs == [(ftype, hx)], repr(recs))
        return True
    return False


def stream_split_check(vectors, r: Results):
    frames = [v for n, v, _ in vectors if n.startswith("frame-")]
    stream = b"".join(v["frame"] for v in frames)
    want = [(v["type"], v["payload"]) for v in frames]
    ok = True
    for i in range(len(stream) + 1):
        for j in range(i, len(stream) + 1):
            if decode_all(stream, [i, j - i, len(stream) - j]) != want:
                ok = False
    ok = ok and decode_all(stream, [1] * len(stream)) == want
    r.check("frame-* concatenated: identical at every split (all 2-cut splits, byte by byte)", ok)


# --------------------------------------------------------------------------- live


def raw_connect(path: str):
    """Connects and completes the preface; returns a FramedSocket."""
    return nw.client_preface(path, nw.DEFAULT_MAX_FRAME)


def collect(fs: nw.FramedSocket, quiet: float = 0.3, total: float = 3.0):
    """Reads frames until EOF or `quiet` s without a frame. -> (frames, eof)."""
    frames = []
    end = time.monotonic() + total
    while time.monotonic() < end:
        try:
            f = fs.read_frame(quiet)
        except socket.timeout:
            return frames, False
        except (ConnectionResetError, BrokenPipeError):
            return frames, True
        if f is None:
            return frames, True
        frames.append(f)
    return frames, False


def summarize(frames):
    statuses = []
    goaway = None
    for t, p in frames:
        if t == nw.STATUS:
            st = nw.decode_status(p)
            statuses.append(f"{st['call_id']}:{st['code']}")
        elif t == nw.GOAWAY:
            goaway = nw.decode_goaway(p)
    return statuses, goaway


def run_rule(path: str, client_frames: bytes, paced: bool, hello: bytes | None = None):
    fs = nw.client_preface(path, nw.DEFAULT_MAX_FRAME, hello=hello)
    frames = []
    eof = False
    try:
        if paced:
            for t, p in split_frames(client_frames):
                try:
                    fs.send_raw(nw.encode_frame(t, p))
                except OSError:
                    eof = True
                    break
                got, eof = collect(fs, quiet=0.08, total=2.0)
                frames += got
                if eof:
                    break
        else:
            fs.send_raw(client_frames)
        if not eof:
            got, eof = collect(fs, quiet=0.3, total=3.0)
            frames += got
    finally:
        fs.close()
    statuses, goaway = summarize(frames)
    return statuses, goaway, eof


def live(name: str, v: dict, path: str, label: str, r: Results):
    if name == "rpc-unary-exchange":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2.0)
        s.connect(path)
        s.sendall(v["client-stream"])
        got = b""
        try:
            while len(got) < len(v["server-stream"]):
                d = s.recv(65536)
                if not d:
                    break
                got += d
        except socket.timeout:
            pass
        s.close()
        r.check(f"[{label}] {name}: reply byte for byte", got == v["server-stream"],
                f"got {got.hex()}")
        return
    if name.startswith("rule-") or name.startswith("batch-rule-"):
        want_st = v["statuses"].split()
        want_ga = v["goaway"]
        hello, frames = None, v.get("client-frames")
        if name.startswith("batch-rule-"):  # the whole stream, its own HELLO first
            (t, p), *_ = split_frames(v["client-stream"])
            hello = p
            frames = v["client-stream"][len(nw.encode_frame(t, p)):]
        for paced in (True, False):
            st, ga, eof = run_rule(path, frames, paced, hello)
            ok = st == want_st and ((want_ga is None and ga is None and not eof)
                                    or (want_ga is not None and ga is not None and ga[0] == want_ga and eof))
            mode = "paced" if paced else "burst"
            r.check(f"[{label}] {name} ({mode}): statuses {want_st} goaway {want_ga}", ok,
                    f"got statuses {st} goaway {ga} eof {eof}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default=os.path.join(os.path.dirname(__file__), "..", "..", "PROTOCOL.md"))
    ap.add_argument("--server", action="append", default=[], help="LABEL=PATH of a live Greeter server")
    args = ap.parse_args()
    vectors = parse_vectors(args.spec)
    r = Results()
    names = [n for n, _, _ in vectors]
    print(f"{len(vectors)} vectors in PROTOCOL.md")
    assert len(set(names)) == len(names), "duplicate vector names"
    live_names = []
    for name, v, _ in vectors:
        if not offline(name, v, r):
            live_names.append(name)
    stream_split_check(vectors, r)
    for spec in args.server:
        label, path = spec.split("=", 1)
        for name, v, _ in vectors:
            if name in live_names:
                live(name, v, path, label, r)
    unchecked = [n for n in live_names if not args.server]
    if unchecked:
        print(f"  (no --server: {len(unchecked)} behavioural vectors not run)")
    print(f"vectors: {len(vectors)} total, {len(vectors) - len(live_names)} offline, {len(live_names)} live")
    print(f"{r.passed} passed, {r.failed} failed")
    sys.exit(1 if r.failed else 0)


if __name__ == "__main__":
    main()
