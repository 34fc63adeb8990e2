import { once } from "node:events";
import net from "node:net";
import { seededBytes } from "@nearwire/conformance/seeded";
import type { CaseSpec } from "./case-spec.js";
import {
  type BenchClient,
  type BenchServer,
  decodeStreamRequest,
  encodeStreamRequest,
  ReplyQueue,
} from "./endpoint.js";

/**
 * Baseline: a bare `node:net` length-prefixed echo, written as a careful user would without
 * nearwire. Wire: `u32 BE length | payload`, no type, no CRC, no RPC. The client's first byte
 * picks the connection's job: `E` echoes every frame back; `S` answers each 8-byte request
 * (u32 count, u32 size) with `count` frames of `size` bytes.
 */

const COPY_LIMIT = 16 * 1024;

/** Writes one frame: small payloads copied into one buffer, large ones as two writes in one writev. */
function writeFrame(sock: net.Socket, payload: Uint8Array): boolean {
  if (payload.byteLength <= COPY_LIMIT) {
    const buf = Buffer.allocUnsafe(4 + payload.byteLength);
    buf.writeUInt32BE(payload.byteLength, 0);
    buf.set(payload, 4);
    return sock.write(buf);
  }
  const hdr = Buffer.allocUnsafe(4);
  hdr.writeUInt32BE(payload.byteLength, 0);
  sock.cork();
  sock.write(hdr);
  const ok = sock.write(payload);
  sock.uncork();
  return ok;
}

/** Splits a byte stream into frames; copies bytes only when a frame spans chunks. */
function frameReader(onFrame: (payload: Buffer) => void): (chunk: Buffer) => void {
  let chunks: Buffer[] = [];
  let have = 0;
  let need = -1;
  return (chunk) => {
    chunks.push(chunk);
    have += chunk.length;
    for (;;) {
      if (need < 0) {
        if (have < 4) return;
        const head =
          (chunks[0] as Buffer).length >= 4 ? (chunks[0] as Buffer) : Buffer.concat(chunks, have);
        need = head.readUInt32BE(0);
      }
      if (have < 4 + need) return;
      const all = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, have);
      const payload = all.subarray(4, 4 + need);
      const rest = all.subarray(4 + need);
      chunks = rest.length > 0 ? [rest] : [];
      have = rest.length;
      need = -1;
      onFrame(payload);
    }
  };
}

function listenAddress(address: string): { path: string } | { host: string; port: number } {
  if (address.startsWith("tcp:")) {
    const [host, port] = address.slice(4).split(":");
    return { host: host ?? "127.0.0.1", port: Number(port ?? 0) };
  }
  return { path: address };
}

/** Starts the bare echo server on a socket path or `tcp:127.0.0.1:port`. */
export async function startBareNetServer(address: string): Promise<BenchServer> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((sock) => {
    sockets.add(sock);
    sock.on("close", () => sockets.delete(sock));
    sock.on("error", () => sock.destroy());
    if (address.startsWith("tcp:")) sock.setNoDelay(true);
    let mode = 0;
    const echo = frameReader((payload) => writeFrame(sock, payload));
    const stream = frameReader((payload) => {
      const { count, size } = decodeStreamRequest(payload);
      void sendStream(sock, count, seededBytes(7, size));
    });
    sock.on("data", (chunk: Buffer) => {
      if (mode === 0) {
        mode = chunk[0] as number;
        chunk = chunk.subarray(1);
        if (chunk.length === 0) return;
      }
      (mode === 0x45 ? echo : stream)(chunk);
    });
  });
  const where = listenAddress(address);
  server.listen(where);
  await once(server, "listening");
  const bound = server.address();
  const actual =
    typeof bound === "string" || bound === null ? address : `tcp:${bound.address}:${bound.port}`;
  return {
    address: actual,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function sendStream(sock: net.Socket, count: number, payload: Uint8Array): Promise<void> {
  for (let i = 0; i < count; i++) {
    if (!writeFrame(sock, payload) && !sock.destroyed) await once(sock, "drain");
  }
}

/** Connects a bare client for `spec` (echo for latency/throughput, stream for stream). */
export async function connectBareNet(
  spec: CaseSpec,
  address: string,
  seed: number,
): Promise<BenchClient> {
  const sock = net.createConnection(listenAddress(address));
  await once(sock, "connect");
  if (address.startsWith("tcp:")) sock.setNoDelay(true);
  const replies = new ReplyQueue();
  let streamLeft = 0;
  let streamDone: (() => void) | undefined;
  const read = frameReader(() => {
    if (spec.mode !== "stream") {
      replies.reply();
      return;
    }
    if (--streamLeft === 0) streamDone?.();
  });
  sock.on("data", read);
  sock.on("error", (err) => replies.fail(err));
  sock.on("close", () => replies.fail(new Error("bare-net: connection closed")));
  sock.write(Buffer.from(spec.mode === "stream" ? "S" : "E"));
  const payload = seededBytes(seed, spec.payloadBytes);
  return {
    wireBytes: payload.byteLength,
    roundTrip() {
      const p = replies.next();
      writeFrame(sock, payload);
      return p;
    },
    stream(count) {
      return new Promise<void>((resolve) => {
        streamLeft = count;
        streamDone = resolve;
        writeFrame(sock, encodeStreamRequest(count, payload.byteLength));
      });
    },
    async close() {
      sock.removeAllListeners("close");
      sock.end();
      sock.destroy();
    },
  };
}
