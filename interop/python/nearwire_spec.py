"""An independent Python 3 (stdlib only) implementation of nearwire's PROTOCOL.md §1-§5.

Written from PROTOCOL.md alone (no nearwire source read). Sections:
  frames (§1), CRC-32C (§2), frame types (§3), preface / HELLO / GOAWAY (§4),
  RPC envelope: payload codecs (§5.2, §5.3), credit (§5.4), deadlines and cancellation (§5.5),
  status codes (§5.6), violations (§5.7), receiver rules (§5.10); a threaded client and server.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import struct
import threading
import time

# ---------------------------------------------------------------- §2 CRC-32C (table-driven)


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return tuple(table)


CRC_TABLE = _crc_table()


def crc32c(data, crc: int = 0) -> int:
    """CRC-32C (Castagnoli, reflected 0x82F63B78, init/xorout 0xFFFFFFFF). `crc` continues."""
    c = crc ^ 0xFFFFFFFF
    t = CRC_TABLE
    for b in data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


# ---------------------------------------------------------------- §3 frame types, §4.1 codes

HELLO, GOAWAY = 0x01, 0x02
REQUEST, MESSAGE, END, STATUS, CANCEL, CREDIT = 0x10, 0x11, 0x12, 0x13, 0x14, 0x15
BATCH = 0x16            # §5.2: only to a peer whose HELLO announced it (§4.1 features, bit 0)
FEATURES_TAG = b"FEAT"  # §4.1: HELLO bytes 16-19, then the u32 features
FEATURE_BATCH = 0x1
FEATURE_CREDIT_BYTES = 0x2
FEATURE_CREDIT_WINDOW = 0x4

OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND = 0, 1, 2, 3, 4, 5
ALREADY_EXISTS, PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION = 6, 7, 8, 9
ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS = 10, 11, 12, 13, 14, 15
UNAUTHENTICATED = 16
CODE_NAMES = [
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
]

# END_STREAM / HAS_MESSAGE / HAS_METADATA (§5.2)
F_END_STREAM, F_HAS_MESSAGE, F_HAS_METADATA = 0x01, 0x02, 0x04

MAGIC = b"NEARWIRE"
VERSION = 1
DEFAULT_MAX_FRAME = 4 * 1024 * 1024 + 64 * 1024  # what nearwire's RPC transports announce
PREFACE_MAX = 64        # §4.2 step 2: the server's limit on the first frame
PIPELINE_MAX = 1024     # §4.2 step 1: before the server's HELLO, client frames <= 1024 B
INITIAL_CREDIT = 32     # §5.4
MAX_CALL_ID = 0xFFFFFFFF


class NearwireError(Exception):
    """code (gRPC), reason (nearwire's closed sub-reason or None), detail, trailers."""

    def __init__(self, code: int, detail: str = "", reason: str | None = None, trailers=None):
        super().__init__(f"{CODE_NAMES[code] if 0 <= code <= 16 else code}: {detail}"
                         + (f" [{reason}]" if reason else ""))
        self.code, self.detail, self.reason = code, detail, reason
        self.trailers = dict(trailers or {})


class Violation(NearwireError):
    """§5.7 protocol violation: GOAWAY(13) and close."""

    def __init__(self, detail: str, reason: str = "protocol-violation"):
        super().__init__(INTERNAL, detail, reason)


# ---------------------------------------------------------------- §1 frames


def encode_frame(ftype: int, payload: bytes = b"") -> bytes:
    body = bytes([ftype]) + bytes(payload)
    return struct.pack(">I", len(payload)) + body + struct.pack(">I", crc32c(body))


class FrameDecoder:
    """Streaming decoder. `limit` (payload bytes) is checked as soon as 4 length bytes are in.

    next() returns (type, payload) or None; raises NearwireError(8 frame-too-large |
    15 crc-mismatch). `limit` may be changed between frames (preface -> session)."""

    def __init__(self, limit: int):
        self.limit = limit
        self.buf = bytearray()
        self.pos = 0
        self.seen = 0  # bytes fed so far

    def feed(self, data: bytes):
        self.seen += len(data)
        if self.pos and self.pos > 65536:
            del self.buf[: self.pos]
            self.pos = 0
        self.buf += data

    def pending(self) -> int:
        return len(self.buf) - self.pos

    def peek(self, n: int) -> bytes:
        return bytes(self.buf[self.pos: self.pos + n])

    def next(self):
        avail = len(self.buf) - self.pos
        if avail < 4:
            return None
        (n,) = struct.unpack_from(">I", self.buf, self.pos)
        if n > self.limit:
            raise NearwireError(RESOURCE_EXHAUSTED, f"frame {n} B > maxFrameBytes {self.limit}",
                                "frame-too-large")
        if avail < n + 9:
            return None
        p = self.pos
        body = self.buf[p + 4: p + 5 + n]
        (crc,) = struct.unpack_from(">I", self.buf, p + 5 + n)
        if crc32c(body) != crc:
            raise NearwireError(DATA_LOSS, "crc mismatch", "crc-mismatch")
        self.pos = p + 9 + n
        return body[0], bytes(body[1:])


# ---------------------------------------------------------------- §4.1 HELLO / GOAWAY


def encode_hello(max_frame_bytes: int = DEFAULT_MAX_FRAME, version: int = VERSION,
                 flags: int = 0, extra: bytes = b"", magic: bytes = MAGIC) -> bytes:
    return magic + struct.pack(">HHI", version, flags, max_frame_bytes) + extra


def encode_features(features: int) -> bytes:
    """HELLO's optional features field (§4.1), to pass as encode_hello(extra=...)."""
    return FEATURES_TAG + struct.pack(">I", features)


def hello_features(payload: bytes):
    """-> the features a HELLO announces, or None: the field is read only when the payload has
    at least 24 bytes and bytes 16-19 are FEAT (§4.1)."""
    if len(payload) >= 24 and payload[16:20] == FEATURES_TAG:
        return struct.unpack_from(">I", payload, 20)[0]
    return None


def hello_credit_window(payload: bytes):
    """-> the byte window W a HELLO announces, or None: read only when its features have bit 2
    (CREDIT_WINDOW) and the payload has at least 28 bytes (§4.1). Both sides then use
    clamp(W, 64 KiB, 2 MiB) (§5.4)."""
    features = hello_features(payload)
    if features is not None and features & FEATURE_CREDIT_WINDOW and len(payload) >= 28:
        return struct.unpack_from(">I", payload, 24)[0]
    return None


def decode_hello(payload: bytes):
    """-> (version, flags, maxFrameBytes); NearwireError(3 bad-preface) when malformed.
    The version is returned, not checked (the caller answers 9 on a mismatch)."""
    if len(payload) < 16:
        raise NearwireError(INVALID_ARGUMENT, f"HELLO of {len(payload)} B < 16", "bad-preface")
    if payload[:8] != MAGIC:
        raise NearwireError(INVALID_ARGUMENT, "wrong magic", "bad-preface")
    version, flags, mfb = struct.unpack_from(">HHI", payload, 8)
    if mfb < 1024:
        raise NearwireError(INVALID_ARGUMENT, f"maxFrameBytes {mfb} < 1024", "bad-preface")
    return version, flags, mfb


def encode_goaway(code: int, reason: str | bytes = b"") -> bytes:
    r = reason.encode() if isinstance(reason, str) else reason
    return bytes([code]) + r[:512]


def decode_goaway(payload: bytes):
    """-> (code, text). Empty payload: UNKNOWN; a code above 16: UNKNOWN (§4.1)."""
    if not payload:
        return UNKNOWN, ""
    code = payload[0]
    if code > 16:
        code = UNKNOWN
    return code, payload[1:].decode("utf-8", "replace")


# ---------------------------------------------------------------- §5.2 / §5.3 envelope


def _utf8(b: bytes, what: str) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        raise Violation(f"invalid UTF-8 in {what}") from None


def encode_metadata(md) -> bytes:
    items = list(md.items()) if isinstance(md, dict) else list(md)
    out = [struct.pack(">H", len(items))]
    for k, v in items:
        kb = k if isinstance(k, bytes) else k.encode()
        vb = v if isinstance(v, bytes) else v.encode()
        out.append(struct.pack(">H", len(kb)) + kb + struct.pack(">I", len(vb)) + vb)
    return b"".join(out)


def decode_metadata(p: bytes, off: int):
    """-> (dict, new offset). Duplicate keys: last value wins. Violation if it runs past p."""
    if off + 2 > len(p):
        raise Violation("metadata block runs past the payload")
    (count,) = struct.unpack_from(">H", p, off)
    off += 2
    md = {}
    for _ in range(count):
        if off + 2 > len(p):
            raise Violation("metadata block runs past the payload")
        (kl,) = struct.unpack_from(">H", p, off)
        off += 2
        if off + kl + 4 > len(p):
            raise Violation("metadata block runs past the payload")
        k = _utf8(p[off: off + kl], "metadata key")
        off += kl
        (vl,) = struct.unpack_from(">I", p, off)
        off += 4
        if off + vl > len(p):
            raise Violation("metadata block runs past the payload")
        md[k] = _utf8(p[off: off + vl], "metadata value")
        off += vl
    return md, off


def encode_request(call_id: int, method: str, message: bytes | None = None,
                   end_stream: bool = False, timeout_ms: int = 0, metadata=None,
                   flags: int | None = None) -> bytes:
    mb = method.encode() if isinstance(method, str) else method
    if flags is None:
        flags = (F_END_STREAM if end_stream else 0) | (F_HAS_MESSAGE if message is not None else 0) \
            | (F_HAS_METADATA if metadata else 0)
    out = struct.pack(">IBIB", call_id, flags, timeout_ms, len(mb)) + mb
    if flags & F_HAS_METADATA:
        out += encode_metadata(metadata or {})
    if flags & F_HAS_MESSAGE:
        out += message or b""
    return out


def decode_request(p: bytes) -> dict:
    if len(p) < 10:
        raise Violation(f"REQUEST of {len(p)} B is shorter than its fields")
    call_id, flags, timeout_ms, m = struct.unpack_from(">IBIB", p, 0)
    if m == 0:
        raise Violation("REQUEST with method length 0")
    if 10 + m > len(p):
        raise Violation("REQUEST shorter than its method length says")
    method = _utf8(p[10: 10 + m], "method")
    off = 10 + m
    md = {}
    if flags & F_HAS_METADATA:
        md, off = decode_metadata(p, off)
    msg = p[off:] if flags & F_HAS_MESSAGE else None
    if msg is None and off != len(p):
        # not said by §5.2/§5.7; nearwire treats it as a violation ('malformed REQUEST frame')
        raise Violation(f"REQUEST has {len(p) - off} B after its fields and no HAS_MESSAGE")
    return dict(call_id=call_id, flags=flags, timeout_ms=timeout_ms, method=method,
                metadata=md, message=msg, end_stream=bool(flags & F_END_STREAM))


def encode_message(call_id: int, message: bytes) -> bytes:
    return struct.pack(">I", call_id) + message


def decode_message(p: bytes):
    if len(p) < 4:
        raise Violation(f"MESSAGE of {len(p)} B")
    return struct.unpack_from(">I", p)[0], p[4:]


def encode_batch(call_id: int, messages) -> bytes:
    return struct.pack(">I", call_id) + b"".join(struct.pack(">I", len(m)) + m for m in messages)


def decode_batch(p: bytes):
    """-> (call id, [messages]); a Violation unless at least one entry fills the payload
    exactly (§5.2, §5.7)."""
    if len(p) < 8:
        raise Violation(f"BATCH of {len(p)} B")
    cid, at, out = struct.unpack_from(">I", p)[0], 4, []
    while at < len(p):
        if len(p) - at < 4:
            raise Violation(f"BATCH: {len(p) - at} B left, too few for a length")
        n = struct.unpack_from(">I", p, at)[0]
        at += 4
        if n > len(p) - at:
            raise Violation(f"BATCH: entry of {n} B past the end")
        out.append(p[at:at + n])
        at += n
    return cid, out


def encode_end(call_id: int) -> bytes:
    return struct.pack(">I", call_id)


def decode_end(p: bytes) -> int:
    if len(p) != 4:
        raise Violation(f"END of {len(p)} B")
    return struct.unpack(">I", p)[0]


def encode_status(call_id: int, code: int, detail: str = "", trailers=None,
                  message: bytes | None = None, flags: int | None = None) -> bytes:
    db = detail.encode() if isinstance(detail, str) else detail
    if flags is None:
        flags = (F_HAS_MESSAGE if message is not None else 0) | (F_HAS_METADATA if trailers else 0)
    out = struct.pack(">IBBH", call_id, flags, code, len(db)) + db
    if flags & F_HAS_METADATA:
        out += encode_metadata(trailers or {})
    if flags & F_HAS_MESSAGE:
        out += message or b""
    return out


def decode_status(p: bytes) -> dict:
    if len(p) < 8:
        raise Violation(f"STATUS of {len(p)} B is shorter than its fields")
    call_id, flags, code, d = struct.unpack_from(">IBBH", p, 0)
    if code > 16:
        raise Violation(f"STATUS code {code} > 16")
    if 8 + d > len(p):
        raise Violation("STATUS shorter than its detail length says")
    detail = _utf8(p[8: 8 + d], "detail")
    off = 8 + d
    tr = {}
    if flags & F_HAS_METADATA:
        tr, off = decode_metadata(p, off)
    msg = p[off:] if flags & F_HAS_MESSAGE else None
    if msg is None and off != len(p):
        raise Violation(f"STATUS has {len(p) - off} B after its fields and no HAS_MESSAGE")
    return dict(call_id=call_id, flags=flags, code=code, detail=detail, trailers=tr, message=msg)


def encode_cancel(call_id: int, code: int = CANCELLED) -> bytes:
    return struct.pack(">IB", call_id, code)


def decode_cancel(p: bytes):
    if len(p) != 5:
        raise Violation(f"CANCEL of {len(p)} B")
    call_id, code = struct.unpack(">IB", p)
    if code == 0 or code > 16:
        code = CANCELLED
    return call_id, code


def encode_credit(call_id: int, credit: int) -> bytes:
    return struct.pack(">II", call_id, credit)


def decode_credit(p: bytes):
    if len(p) != 8:
        raise Violation(f"CREDIT of {len(p)} B")
    return struct.unpack(">II", p)


# ---------------------------------------------------------------- §5.4 credit


WINDOW_MAX = 4096  # §5.4 (was 256 in the PROTOCOL.md first read; changed during this check)


class ReceiveWindow:
    """The reference receiver's window (§5.4): grant every half window; grow toward
    clamp(floor(1 MiB / average message bytes received so far), 32, 4096)."""

    def __init__(self, grow: bool = True):
        self.window = INITIAL_CREDIT
        self.granted = INITIAL_CREDIT   # total credit ever given to the peer
        self.received = 0
        self.bytes = 0
        self.consumed = 0               # since the last grant
        self.grow = grow

    def on_received(self, nbytes: int) -> bool:
        """Counts a message in; False when the peer is more than 32 past its credit."""
        self.received += 1
        self.bytes += nbytes
        return self.received <= self.granted + INITIAL_CREDIT

    def on_consumed(self) -> int:
        """The application took one message; returns a CREDIT to send (0: none)."""
        self.consumed += 1
        if self.consumed < self.window // 2:
            return 0
        growth = 0
        if self.grow:
            avg = max(1, self.bytes // max(1, self.received))
            target = max(32, min(WINDOW_MAX, (1 << 20) // avg))
            growth = max(0, target - self.window)
        self.window += growth
        n = self.consumed + growth
        self.consumed = 0
        self.granted += n
        return n


class SendCredit:
    def __init__(self):
        self.credit = INITIAL_CREDIT
        self.cv = threading.Condition()
        self.dead = False

    def add(self, n: int):
        with self.cv:
            self.credit += n
            self.cv.notify_all()

    def kill(self):
        with self.cv:
            self.dead = True
            self.cv.notify_all()

    def take(self, timeout: float | None = None) -> bool:
        """Waits for one credit; False when the call ended meanwhile."""
        with self.cv:
            end = None if timeout is None else time.monotonic() + timeout
            while self.credit <= 0 and not self.dead:
                left = None if end is None else end - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self.cv.wait(left)
            if self.dead:
                return False
            self.credit -= 1
            return True


# ---------------------------------------------------------------- a framed socket


class FramedSocket:
    """One byte stream + decoder + send lock. read_frame -> (type, payload) | None on EOF."""

    def __init__(self, sock: socket.socket, limit: int):
        self.sock = sock
        self.dec = FrameDecoder(limit)
        self.lock = threading.Lock()
        self.peer_max = PIPELINE_MAX
        self.closed = False

    def send_raw(self, data: bytes):
        with self.lock:
            if self.closed:
                raise NearwireError(UNAVAILABLE, "send after close", "peer-closed")
            self.sock.sendall(data)

    def send(self, ftype: int, payload: bytes = b""):
        if len(payload) > self.peer_max:
            raise NearwireError(RESOURCE_EXHAUSTED,
                                f"frame {len(payload)} B > peer's maxFrameBytes {self.peer_max}",
                                "frame-too-large")
        self.send_raw(encode_frame(ftype, payload))

    def fill(self, timeout: float | None = None) -> bool:
        """Reads once into the decoder; False on EOF."""
        self.sock.settimeout(timeout)
        data = self.sock.recv(65536)
        if not data:
            return False
        self.dec.feed(data)
        return True

    def read_frame(self, timeout: float | None = None):
        while True:
            f = self.dec.next()
            if f is not None:
                return f
            if not self.fill(timeout):
                return None

    def close(self):
        with self.lock:
            if self.closed:
                return
            self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def goaway_and_close(self, code: int, reason: str):
        try:
            self.send_raw(encode_frame(GOAWAY, encode_goaway(code, reason)))
        except (OSError, NearwireError):
            pass
        self.close()


def _looks_foreign(first: bytes):
    """§4.2 'a peer of another transport': name HTTP/2 SETTINGS or an shm-ring handshake."""
    if len(first) >= 9 and first[3] == 0x04 and first[5:9] == b"\0\0\0\0":
        return "HTTP/2 (a gRPC server: use @nearwire/grpc-uds)"
    if len(first) >= 5 and struct.unpack(">I", first[:4])[0] <= 4096 and first[4:5] == b"{":
        return "an shm-ring handshake (use @nearwire/shm-ring)"
    return None


def client_preface(path: str, max_frame_bytes: int = DEFAULT_MAX_FRAME,
                   timeout: float = 5.0, pipelined: bytes = b"", hello: bytes | None = None,
                   batch: bool = False):
    """Connects, sends HELLO (+ pipelined bytes), waits for the server's HELLO (§4.2 step 4).
    batch: the HELLO announces BATCH (§4.1 features). -> FramedSocket with peer_max,
    server_features and takes_batch set. Raises NearwireError (GOAWAY's code, or 3/9/14)."""
    if hello is None and batch:
        hello = encode_hello(max_frame_bytes, extra=encode_features(FEATURE_BATCH))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    except (FileNotFoundError, ConnectionRefusedError):
        s.close()
        raise NearwireError(UNAVAILABLE, f"nothing listens at {path}", "nothing-listens") from None
    fs = FramedSocket(s, max_frame_bytes)
    fs.send_raw(encode_frame(HELLO, hello if hello is not None else encode_hello(max_frame_bytes))
                + pipelined)
    end = time.monotonic() + timeout
    try:
        while True:
            first = fs.dec.peek(9)
            if len(first) >= 5:
                foreign = _looks_foreign(first)
                if foreign:
                    fs.close()
                    raise NearwireError(FAILED_PRECONDITION, f"the server speaks {foreign}",
                                        "transport-mismatch")
            try:
                f = fs.dec.next()
            except NearwireError as e:
                fs.goaway_and_close(INVALID_ARGUMENT, "bad-preface")
                raise NearwireError(INVALID_ARGUMENT, str(e), "bad-preface") from None
            if f is not None:
                break
            left = end - time.monotonic()
            if left <= 0:
                raise socket.timeout()
            if not fs.fill(left):
                fs.close()
                raise NearwireError(UNAVAILABLE, "server closed during the preface", "peer-closed")
    except socket.timeout:
        fs.close()
        raise NearwireError(UNAVAILABLE, "preface timeout") from None
    ftype, payload = f
    if ftype == GOAWAY:
        code, text = decode_goaway(payload)
        fs.close()
        if code == OK:  # a refusal 'without error': §4 does not say; nearwire reports UNAVAILABLE
            raise NearwireError(UNAVAILABLE, f"server closed the connection with GOAWAY(0): {text}")
        raise NearwireError(code, f"server refused: {text}", text if text else None)
    if ftype != HELLO:
        fs.goaway_and_close(INVALID_ARGUMENT, "bad-preface")
        raise NearwireError(INVALID_ARGUMENT, f"first frame type {ftype:#x}", "bad-preface")
    try:
        version, _flags, mfb = decode_hello(payload)
    except NearwireError as e:
        fs.goaway_and_close(INVALID_ARGUMENT, "bad-preface")
        raise e
    if version != VERSION:
        fs.goaway_and_close(FAILED_PRECONDITION, "version-mismatch")
        raise NearwireError(FAILED_PRECONDITION, f"server version {version}", "version-mismatch")
    fs.peer_max = mfb
    fs.server_hello = encode_frame(HELLO, payload)
    fs.server_features = hello_features(payload)
    sent = hello if hello is not None else encode_hello(max_frame_bytes)
    fs.takes_batch = bool((hello_features(sent) or 0) & FEATURE_BATCH)
    return fs


# ---------------------------------------------------------------- RPC client


class ClientCall:
    def __init__(self, client: "RpcClient", call_id: int, method: str):
        self.client, self.id, self.method = client, call_id, method
        self.q: queue.Queue = queue.Queue()
        self.send_credit = SendCredit()
        self.window = ReceiveWindow()
        self.ended = False        # STATUS received, cancelled, or failed locally
        self.status = None        # dict from decode_status, or NearwireError
        self.timer = None

    # --- sending
    def send(self, message: bytes, timeout: float | None = 10.0):
        if self.ended:
            raise self._error()
        if not self.send_credit.take(timeout):
            raise self._error() if self.ended else NearwireError(DEADLINE_EXCEEDED, "no credit")
        self.client.fs.send(MESSAGE, encode_message(self.id, message))

    def end(self):
        if not self.ended:
            self.client.fs.send(END, encode_end(self.id))

    def cancel(self, code: int = CANCELLED):
        if self.client._finish(self, NearwireError(code, "cancelled by the caller")):
            self.client.fs.send(CANCEL, encode_cancel(self.id, code))

    # --- receiving
    def _error(self):
        st = self.status
        if isinstance(st, NearwireError):
            return st
        if st is None:
            return NearwireError(UNAVAILABLE, "call ended")
        tr = dict(st["trailers"])
        reason = tr.pop("nearwire-reason", None) or None
        return NearwireError(st["code"], st["detail"], reason, st["trailers"])

    def responses(self, timeout: float = 10.0):
        """Yields response messages; returns normally on STATUS OK (its inline message, if any,
        is yielded last); raises NearwireError otherwise."""
        while True:
            try:
                kind, val = self.q.get(timeout=timeout)
            except queue.Empty:
                raise NearwireError(DEADLINE_EXCEEDED, "test timeout waiting for a response") from None
            if kind == "msg":
                n = self.window.on_consumed()
                if n and not self.ended:
                    try:
                        self.client.fs.send(CREDIT, encode_credit(self.id, n))
                    except (OSError, NearwireError):
                        pass
                yield val
            elif kind == "status":
                if val["code"] != OK:
                    raise self._error()
                if val["message"] is not None:
                    yield val["message"]
                return
            else:
                raise val

    def result(self, timeout: float = 10.0):
        msgs = list(self.responses(timeout))
        if len(msgs) != 1:
            raise NearwireError(INTERNAL, f"unary call got {len(msgs)} messages")
        return msgs[0]


class RpcClient:
    """A client connection (§4.2, §5). Calls multiplex on one socket; a reader thread applies
    the client-side receiver rules of §5.10."""

    def __init__(self, path: str, max_frame_bytes: int = DEFAULT_MAX_FRAME, **kw):
        self.fs = client_preface(path, max_frame_bytes, **kw)
        self.next_id = 1
        self.calls: dict[int, ClientCall] = {}
        self.lock = threading.Lock()
        self.error: NearwireError | None = None
        self.goaway_sent = None
        self.batches = 0          # BATCH frames received (taken only if our HELLO announced them)
        self.closed_event = threading.Event()
        self.reader = threading.Thread(target=self._read_loop, daemon=True)
        self.reader.start()

    # --- starting calls
    def start(self, method: str, first: bytes | None = None, end: bool = False,
              timeout_ms: int | None = None, metadata=None, call_id: int | None = None):
        with self.lock:
            if self.error:
                raise self.error
            if timeout_ms is not None and timeout_ms <= 0:
                raise NearwireError(DEADLINE_EXCEEDED, "deadline already passed")  # §5.5: not sent
            cid = self.next_id if call_id is None else call_id
            if cid > MAX_CALL_ID:
                raise NearwireError(UNAVAILABLE, "call ids exhausted", "call-ids-exhausted")
            self.next_id = cid + 1
            call = ClientCall(self, cid, method)
            self.calls[cid] = call
        wire_timeout = 0 if timeout_ms is None else min(int(-(-timeout_ms // 1)), MAX_CALL_ID)
        md = {k.lower(): v for k, v in (metadata or {}).items()}
        if first is not None:
            call.send_credit.take(0)  # the inline message consumes one credit (§5.4)
        self.fs.send(REQUEST, encode_request(cid, method, first, end, wire_timeout, md))
        if timeout_ms is not None:
            call.timer = threading.Timer(wire_timeout / 1000.0, self._deadline, (call,))
            call.timer.daemon = True
            call.timer.start()
        return call

    def _deadline(self, call: ClientCall):
        if self._finish(call, NearwireError(DEADLINE_EXCEEDED, "deadline exceeded")):
            try:
                self.fs.send(CANCEL, encode_cancel(call.id, DEADLINE_EXCEEDED))
            except (OSError, NearwireError):
                pass

    def _finish(self, call: ClientCall, outcome) -> bool:
        """Ends a call once; True if this was the end."""
        with self.lock:
            if call.ended:
                return False
            call.ended = True
            call.status = outcome
            self.calls.pop(call.id, None)
        if call.timer:
            call.timer.cancel()
        call.send_credit.kill()
        call.q.put(("status", outcome) if isinstance(outcome, dict) else ("error", outcome))
        return True

    # --- convenience
    def unary(self, method, request: bytes, **kw) -> bytes:
        return self.start(method, request, end=True, **kw).result()

    def server_stream(self, method, request: bytes, **kw):
        return self.start(method, request, end=True, **kw)

    def client_stream(self, method, requests, **kw) -> bytes:
        call = self.start(method, **kw)
        for r in requests:
            call.send(r)
        call.end()
        return call.result()

    # --- reading (§5.10, at a client)
    def _read_loop(self):
        err = None
        try:
            while True:
                f = self.fs.read_frame(None)
                if f is None:
                    err = NearwireError(UNAVAILABLE, "the server closed the connection", "peer-closed")
                    break
                err = self._dispatch(*f)
                if err:
                    break
        except Violation as v:
            self.goaway_sent = v.code
            self.fs.goaway_and_close(v.code, v.reason or "protocol-violation")
            err = v
        except NearwireError as e:
            if e.reason in ("frame-too-large", "crc-mismatch"):
                self.goaway_sent = e.code
                self.fs.goaway_and_close(e.code, e.reason)
            err = e
        except OSError as e:
            err = NearwireError(UNAVAILABLE, f"connection lost: {e}", "peer-closed")
        self.error = err
        with self.lock:
            calls = list(self.calls.values())
        for c in calls:
            self._finish(c, err)
        self.fs.close()
        self.closed_event.set()

    def _state(self, cid: int):
        if cid == 0 or cid >= self.next_id:
            return "unused"
        return "active" if cid in self.calls else "ended"

    def _dispatch(self, t: int, p: bytes):
        if t == GOAWAY:
            code, text = decode_goaway(p)
            return NearwireError(code, f"server sent GOAWAY: {text}", text or None) if code else \
                NearwireError(UNAVAILABLE, "closed cleanly by GOAWAY(0)", "peer-closed")
        if t == 0x00 or 0x03 <= t <= 0x0F:
            raise Violation(f"frame type {t:#04x}", "unknown-frame-type")
        if t == HELLO:
            raise Violation("HELLO after the preface")
        if t in (REQUEST, END, CANCEL):
            raise Violation(f"frame type {t:#04x} at a client")
        if t == MESSAGE:
            cid, msg = decode_message(p)
            st = self._state(cid)
            if st == "unused":
                raise Violation(f"MESSAGE for unused id {cid}")
            if st == "active":
                call = self.calls.get(cid)
                if call is None:
                    return None
                if not call.window.on_received(len(msg)):
                    raise Violation(f"call {cid}: more than 32 messages past credit")
                call.q.put(("msg", msg))
            return None
        if t == BATCH and self.fs.takes_batch:
            cid, msgs = decode_batch(p)
            st = self._state(cid)
            if st == "unused":
                raise Violation(f"BATCH for unused id {cid}")
            self.batches += 1
            call = self.calls.get(cid) if st == "active" else None
            for msg in msgs if call is not None else []:
                if not call.window.on_received(len(msg)):
                    raise Violation(f"call {cid}: more than 32 messages past credit")
                call.q.put(("msg", msg))
            return None
        if t == STATUS:
            st_ = decode_status(p)
            st = self._state(st_["call_id"])
            if st == "unused":
                raise Violation(f"STATUS for unused id {st_['call_id']}")
            if st == "active":
                call = self.calls.get(st_["call_id"])
                if call is not None:
                    if st_["code"] != OK:
                        st_["message"] = None
                    self._finish(call, st_)
            return None
        if t == CREDIT:
            cid, n = decode_credit(p)
            st = self._state(cid)
            if st == "unused":
                raise Violation(f"CREDIT for unused id {cid}")
            call = self.calls.get(cid)
            if call is not None:
                call.send_credit.add(n)
            return None
        raise Violation(f"frame type {t:#04x} on an RPC connection", "unknown-frame-type")

    def close(self):
        self.fs.close()
        self.closed_event.wait(2)


# ---------------------------------------------------------------- RPC server


class Cancelled(Exception):
    pass


class ServerCall:
    """What a handler sees: method, metadata, deadline (monotonic s or None), trailers,
    cancelled (Event), recv()/requests() and send()."""

    def __init__(self, conn: "ServerConn", req: dict, kind: str):
        self.conn, self.id, self.method, self.kind = conn, req["call_id"], req["method"], kind
        self.metadata = req["metadata"]
        self.timeout_ms = req["timeout_ms"]
        self.deadline = time.monotonic() + req["timeout_ms"] / 1000 if req["timeout_ms"] else None
        self.trailers: dict = {}
        self.cancelled = threading.Event()
        self.cancel_code = None
        self.q: queue.Queue = queue.Queue()
        self.half_closed = False
        self.n_received = 0
        self.window = ReceiveWindow()
        self.send_credit = SendCredit()
        self.ended = False
        self.timer = None

    def recv(self):
        """Next request message, or None at the client's END; raises Cancelled."""
        while True:
            if self.cancelled.is_set():
                raise Cancelled()
            try:
                kind, val = self.q.get(timeout=0.05)
            except queue.Empty:
                continue
            if kind == "end":
                return None
            if kind == "cancel":
                raise Cancelled()
            n = self.window.on_consumed()
            if n:
                self.conn.send_frame(CREDIT, encode_credit(self.id, n), self)
            return val

    def requests(self):
        while True:
            m = self.recv()
            if m is None:
                return
            yield m

    def send(self, message: bytes):
        while not self.send_credit.take(0.05):
            if self.cancelled.is_set() or self.ended:
                raise Cancelled()
        if self.cancelled.is_set():
            raise Cancelled()
        self.conn.send_frame(MESSAGE, encode_message(self.id, message), self)

    def sleep(self, seconds: float):
        if self.cancelled.wait(seconds):
            raise Cancelled()


class ServerConn:
    def __init__(self, server: "RpcServer", sock: socket.socket):
        self.server = server
        self.fs = FramedSocket(sock, PREFACE_MAX)
        self.last_id = 0
        self.calls: dict[int, ServerCall] = {}
        self.lock = threading.Lock()
        self.going_away = False
        self.events = server.events
        self.takes_batch = False  # this side's HELLO announced BATCH (§4.1)

    def log(self, *ev):
        self.events.append(ev)

    def send_frame(self, t, payload, call: ServerCall | None = None):
        """Sends unless the connection is going away or the call has ended."""
        with self.lock:
            if self.going_away or (call is not None and call.ended):
                return False
        try:
            self.fs.send(t, payload)
            return True
        except (OSError, NearwireError):
            return False

    def end_call(self, call: ServerCall, code, detail="", trailers=None, message=None,
                 send=True):
        with self.lock:
            if call.ended:
                return False
            call.ended = True
            self.calls.pop(call.id, None)
        if call.timer:
            call.timer.cancel()
        call.cancelled.set()
        call.send_credit.kill()
        if send and not self.going_away:
            try:
                self.fs.send(STATUS, encode_status(call.id, code, detail, trailers, message))
            except (OSError, NearwireError):
                pass
        return True

    # ---- preface (§4.2 step 2, 3)
    def preface(self) -> bool:
        fs = self.fs
        deadline = time.monotonic() + self.server.handshake_timeout
        try:
            while True:
                head = fs.dec.peek(5)
                if len(head) == 5 and struct.unpack(">I", head[:4])[0] <= 4096 and head[4:5] == b"{":
                    # an shm-ring client (§4.2): answer in its protocol (§6.1 error frame)
                    err = json.dumps({"error": {"code": FAILED_PRECONDITION, "reason": "transport-mismatch",
                                                "message": "this is a nearwire uds server (frame v1), "
                                                "not shm-ring: use @nearwire/uds"}}).encode()
                    try:
                        fs.send_raw(struct.pack(">I", len(err)) + err)
                    except OSError:
                        pass
                    fs.close()
                    return False
                if len(head) == 4 and PREFACE_MAX < struct.unpack(">I", head)[0] <= 4096:
                    f = None  # could be an shm-ring handshake: wait for its 5th byte
                else:
                    try:
                        f = fs.dec.next()
                    except NearwireError as e:
                        self.log("preface-reject", INVALID_ARGUMENT, e.reason)
                        fs.goaway_and_close(INVALID_ARGUMENT, "bad-preface")
                        return False
                if f is not None:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise socket.timeout()
                if not fs.fill(left):
                    fs.close()
                    return False
        except socket.timeout:
            fs.goaway_and_close(UNAVAILABLE, "preface timeout")
            return False
        except OSError:
            fs.close()
            return False
        t, p = f
        if t != HELLO:
            fs.goaway_and_close(INVALID_ARGUMENT, "bad-preface")
            return False
        try:
            version, _flags, mfb = decode_hello(p)
        except NearwireError:
            fs.goaway_and_close(INVALID_ARGUMENT, "bad-preface")
            return False
        if version != VERSION:
            fs.goaway_and_close(FAILED_PRECONDITION, "version-mismatch")
            return False
        fs.peer_max = mfb
        fs.dec.limit = self.server.max_frame_bytes
        if hello_features(p) is None:  # §4.1: the features field only answers a client's
            fs.send(HELLO, encode_hello(self.server.max_frame_bytes))
        else:
            self.takes_batch = self.server.batch
            bits = FEATURE_BATCH if self.takes_batch else 0
            fs.send(HELLO, encode_hello(self.server.max_frame_bytes, extra=encode_features(bits)))
        return True

    def run(self):
        try:
            if not self.preface():
                return
            if self.server.closing:
                self.fs.goaway_and_close(UNAVAILABLE, "server-closing")
                return
            self.fs.sock.settimeout(None)
            while True:
                f = self.fs.read_frame(None)
                if f is None:
                    break
                if self.dispatch(*f) == "close":
                    break
        except Violation as v:
            self.log("goaway-sent", v.code, v.reason, str(v))
            with self.lock:
                self.going_away = True
            self.fs.goaway_and_close(v.code, v.reason or "protocol-violation")
        except NearwireError as e:
            self.log("goaway-sent", e.code, e.reason, str(e))
            with self.lock:
                self.going_away = True
            self.fs.goaway_and_close(e.code, e.reason or "")
        except OSError:
            pass
        finally:
            with self.lock:
                self.going_away = True
                calls = list(self.calls.values())
            for c in calls:
                self.end_call(c, UNAVAILABLE, send=False)
            self.fs.close()
            self.server._forget(self)

    def _state(self, cid: int):
        if cid == 0 or cid > self.last_id:
            return "unused"
        c = self.calls.get(cid)
        if c is None:
            return "ended"
        return "half-closed" if c.half_closed else "active"

    # ---- §5.10 at a server
    def dispatch(self, t: int, p: bytes):
        if t == GOAWAY:
            code, text = decode_goaway(p)
            self.log("goaway-received", code, text)
            return "close"
        if t == 0x00 or 0x03 <= t <= 0x0F:
            raise Violation(f"frame type {t:#04x}", "unknown-frame-type")
        if t == HELLO:
            raise Violation("HELLO after the preface")
        if t == REQUEST:
            return self.on_request(decode_request(p))
        if t == MESSAGE:
            cid, msg = decode_message(p)
            st = self._state(cid)
            if st == "unused":
                raise Violation(f"MESSAGE for unused id {cid}")
            if st == "half-closed":
                raise Violation(f"MESSAGE after END on call {cid}")
            if st == "active":
                self.deliver(self.calls[cid], msg)
            return None
        if t == BATCH and self.takes_batch:  # §5.2: each message as a MESSAGE of the call
            cid, msgs = decode_batch(p)
            st = self._state(cid)
            if st == "unused":
                raise Violation(f"BATCH for unused id {cid}")
            if st == "half-closed":
                raise Violation(f"BATCH after END on call {cid}")
            for msg in msgs:
                call = self.calls.get(cid)
                if call is None:  # the call ended on an earlier message of this BATCH
                    break
                self.deliver(call, msg)
            return None
        if t == END:
            cid = decode_end(p)
            st = self._state(cid)
            if st == "unused":
                raise Violation(f"END for unused id {cid}")
            if st == "half-closed":
                raise Violation(f"second END on call {cid}")
            if st == "active":
                self.half_close(self.calls[cid])
            return None
        if t == CANCEL:
            cid, code = decode_cancel(p)
            st = self._state(cid)
            if st == "unused":
                raise Violation(f"CANCEL for unused id {cid}")
            if st in ("active", "half-closed"):
                c = self.calls[cid]
                c.cancel_code = code
                self.log("cancel", cid, c.method, code)
                self.end_call(c, code, send=False)
                c.q.put(("cancel", code))
            return None
        if t == CREDIT:
            cid, n = decode_credit(p)
            st = self._state(cid)
            if st == "unused":
                raise Violation(f"CREDIT for unused id {cid}")
            call = self.calls.get(cid)
            if call is not None:
                call.send_credit.add(n)
            self.log("credit-received", cid, call.method if call else None, n)
            return None
        if t == STATUS:
            raise Violation("STATUS at a server")
        raise Violation(f"frame type {t:#04x} on an RPC connection", "unknown-frame-type")

    def on_request(self, req: dict):
        cid = req["call_id"]
        if cid == 0 or cid <= self.last_id:
            raise Violation(f"REQUEST id {cid} not above the last ({self.last_id})")
        self.last_id = cid
        self.log("request", cid, req["method"], req["flags"], req["timeout_ms"], req["metadata"])
        srv = self.server
        if srv.closing:
            self.fs.send(STATUS, encode_status(cid, UNAVAILABLE, "server is closing",
                                               {"nearwire-reason": "server-closing"}))
            return None
        entry = srv.lookup(req["method"])
        if entry is None:
            self.fs.send(STATUS, encode_status(cid, UNIMPLEMENTED,
                                               f"method {req['method']} not found"))
            return None
        if len(self.calls) >= srv.max_concurrent_calls:
            self.fs.send(STATUS, encode_status(cid, RESOURCE_EXHAUSTED,
                                               f"more than {srv.max_concurrent_calls} calls"))
            return None
        kind, fn = entry
        call = ServerCall(self, req, kind)
        with self.lock:
            self.calls[cid] = call
        if req["timeout_ms"]:
            call.timer = threading.Timer(req["timeout_ms"] / 1000.0, self.on_deadline, (call,))
            call.timer.daemon = True
            call.timer.start()
        if req["message"] is not None:
            self.deliver(call, req["message"])
        if req["end_stream"]:
            self.half_close(call)
        threading.Thread(target=self.run_handler, args=(call, fn), daemon=True).start()
        return None

    def on_deadline(self, call: ServerCall):
        if self.end_call(call, DEADLINE_EXCEEDED, f"deadline of {call.timeout_ms} ms exceeded"):
            self.log("deadline", call.id, call.method)

    def deliver(self, call: ServerCall, msg: bytes):
        if not call.window.on_received(len(msg)):
            raise Violation(f"call {call.id}: more than 32 messages past credit")
        call.n_received += 1
        if call.kind in ("unary", "server_streaming") and call.n_received > 1:
            self.end_call(call, INVALID_ARGUMENT, f"{call.kind} call with more than one request message")
            return
        call.q.put(("msg", msg))

    def half_close(self, call: ServerCall):
        call.half_closed = True
        call.q.put(("end", None))

    def run_handler(self, call: ServerCall, fn):
        try:
            if call.kind in ("unary", "server_streaming"):
                req = call.recv()
                if req is None:
                    self.end_call(call, INVALID_ARGUMENT, f"{call.kind} call with no request message")
                    return
                if call.recv() is not None:  # wait for the half-close
                    self.end_call(call, INVALID_ARGUMENT, f"{call.kind} call with more than one request message")
                    return
                if call.kind == "unary":
                    self.finish_ok(call, fn(req, call))
                else:
                    for m in fn(req, call):
                        call.send(m)
                    self.finish_ok(call, None)
            elif call.kind == "client_streaming":
                self.finish_ok(call, fn(call.requests(), call))
            else:
                for m in fn(call.requests(), call):
                    call.send(m)
                self.finish_ok(call, None)
        except Cancelled:
            pass
        except NearwireError as e:
            tr = dict(e.trailers)
            if e.reason:
                tr["nearwire-reason"] = e.reason
            self.end_call(call, e.code, e.detail, tr or None)
        except Exception as e:  # noqa: BLE001 - a handler's bug is UNKNOWN (§5.6)
            self.end_call(call, UNKNOWN, f"{type(e).__name__}: {e}")

    def finish_ok(self, call: ServerCall, message):
        self.end_call(call, OK, "", call.trailers or None, message)


class RpcServer:
    def __init__(self, path: str, max_frame_bytes: int = DEFAULT_MAX_FRAME,
                 max_concurrent_calls: int = 4096, handshake_timeout: float = 5.0,
                 batch: bool = True):
        self.path = path
        self.batch = batch  # §4.1: announce BATCH to a client whose HELLO has the features field
        self.max_frame_bytes = max_frame_bytes
        self.max_concurrent_calls = max_concurrent_calls
        self.handshake_timeout = handshake_timeout
        self.methods: dict[str, tuple[str, object]] = {}
        self.conns: set[ServerConn] = set()
        self.lock = threading.Lock()
        self.events: list = []
        self.closing = False
        self.sock = None

    def add(self, path: str, kind: str, fn):
        self.methods[path] = (kind, fn)

    def lookup(self, path: str):
        return self.methods.get(path)

    def listen(self):
        if os.path.exists(self.path):
            os.unlink(self.path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        os.chmod(self.path, 0o600)
        self.sock.listen(64)
        threading.Thread(target=self._accept_loop, daemon=True).start()

    def _accept_loop(self):
        while True:
            try:
                s, _ = self.sock.accept()
            except OSError:
                return
            conn = ServerConn(self, s)
            with self.lock:
                self.conns.add(conn)
            threading.Thread(target=conn.run, daemon=True).start()

    def _forget(self, conn):
        with self.lock:
            self.conns.discard(conn)

    def close(self, grace: float = 1.0):
        """§4.3 graceful close: stop listening, refuse new REQUESTs with 14 server-closing,
        after `grace` end open calls with 14 server-closing, then EOF."""
        self.closing = True
        try:
            self.sock.close()
        finally:
            if os.path.exists(self.path):
                os.unlink(self.path)
        end = time.monotonic() + grace
        while time.monotonic() < end:
            with self.lock:
                if not any(c.calls for c in self.conns):
                    break
            time.sleep(0.02)
        with self.lock:
            conns = list(self.conns)
        for c in conns:
            for call in list(c.calls.values()):
                c.end_call(call, UNAVAILABLE, "server closing", {"nearwire-reason": "server-closing"})
            c.fs.close()


# ---------------------------------------------------------------- JSON helpers


def jenc(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def jdec(b: bytes):
    try:
        return json.loads(b.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise NearwireError(INVALID_ARGUMENT, f"json decode: {e}", "decode-failed",
                            {"nearwire-codec": "json"}) from None
