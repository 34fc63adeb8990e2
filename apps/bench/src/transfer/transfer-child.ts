/**
 * One process of a transfer-mode run (spawned by `transfer-bench.ts` with an IPC channel):
 * `node transfer-child.js <role> <json args>`.
 *
 * Roles: `serve` (the transfer service over `root`), `client` (a seed, large or many run),
 * `bare-serve` / `bare-client` (the `node:net` + `stream.pipeline` baseline), `floor` (what a
 * receiving server must do per byte without any transfer: the receiver-floor baseline),
 * `floor-sender` (what an uploading client must do per byte: the sender-floor baseline).
 *
 * Parent → child: `mark` (start the window: CPU and RSS marks), `go` (clients: run), `report`
 * (servers: send the window's figures). Child → parent: `ready`, `warmed`, `marked`, `done`,
 * `result`, `error`.
 */
import { createHash } from "node:crypto";
import { once } from "node:events";
import {
  constants,
  createReadStream,
  createWriteStream,
  read,
  readFileSync,
  rmSync,
} from "node:fs";
import { open } from "node:fs/promises";
import { createConnection, createServer } from "node:net";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ClientConnection } from "@nearwire/core";
import { crc32c } from "@nearwire/frame";
import {
  createTransferClient,
  createTransferHandlers,
  DOWNLOAD_PART_SUFFIX,
  type Durability,
  TransferService,
} from "@nearwire/transfer";
import { transferCodec } from "@nearwire/transfer/codecs";
import { loadPlugins, packageOf } from "../measure/plugins.js";
import { largeName, type TransferCase } from "./transfer-plan.js";

/** Figures of one process over the measured window. */
export interface ProcessFigures {
  /** CPU time over the window, µs (user + system). */
  cpuUs: number;
  /**
   * CPU time of the JavaScript thread alone over the window, µs (Linux `/proc/thread-self/stat`;
   * absent elsewhere): the process's figure without its file writes (libuv's thread pool, where
   * the kernel's page-cache cost lands) and GC helper threads.
   */
  mainThreadCpuUs?: number;
  /** RSS when the window began, bytes. */
  rssAtMarkBytes: number;
  /** Peak RSS of the process's life (VmHWM, `process.resourceUsage().maxRSS`), bytes. */
  peakRssBytes: number;
}

/** What a client reports. */
export interface ClientResult extends ProcessFigures {
  /** Wall time of the window, ns (until the last transfer of the window completed). */
  elapsedNs: number;
  /** Transfers completed in the window. */
  count: number;
  /** Payload bytes moved in the window. */
  bytes: number;
  /** Mean and p99 latency of one transfer, ns (seed runs). */
  meanNs?: number;
  p99Ns?: number;
}

/** Arguments of a `serve` process. */
export interface ServeArgs {
  transport: string;
  codec: string;
  address: string;
  root: string;
  /** The server's `durable` option. */
  durable: Durability;
  /** The case (its kind decides the byte window: {@link tuningFor}). */
  spec: TransferCase;
}

/** Arguments of a `client` process. */
export interface ClientArgs {
  spec: TransferCase;
  address: string;
  /** Upload source file (file-to-file uploads). */
  src: string;
  /** Download destination file prefix (file-to-file downloads). */
  dest: string;
  warmupMs: number;
  durationMs: number;
}

/** Arguments of the receiver-floor and sender-floor processes. */
export interface FloorArgs {
  /**
   * The file written (receiver: in the root a server of the same rows would write to) or read
   * (sender: the rows' source file).
   */
  file: string;
  bytes: number;
}

/** Arguments of the bare pipeline's processes. */
export interface BareArgs {
  address: string;
  /** Server: the file written; client: the file read. */
  file: string;
  fsync: boolean;
}

/** Messages a child sends. */
export type FromChild =
  | { t: "ready"; address: string }
  | { t: "warmed" }
  | { t: "marked" }
  | { t: "done"; figures: ProcessFigures }
  | { t: "result"; result: ClientResult }
  | { t: "figures"; figures: ProcessFigures }
  | { t: "error"; message: string };

/** Messages the parent sends. */
export type ToChild = { t: "mark" } | { t: "go" } | { t: "report" };

const send = (m: FromChild) => process.send?.(m);
const inbox: ToChild[] = [];
let wake: (() => void) | undefined;
process.on("message", (m) => {
  inbox.push(m as ToChild);
  wake?.();
});
process.on("disconnect", () => process.exit(0));

async function next(t: ToChild["t"]): Promise<void> {
  for (;;) {
    const i = inbox.findIndex((m) => m.t === t);
    if (i >= 0) {
      inbox.splice(i, 1);
      return;
    }
    await new Promise<void>((r) => {
      wake = r;
    });
  }
}

/**
 * CPU time of the calling thread so far, µs: utime + stime of `/proc/thread-self/stat` in clock
 * ticks (100 per second on Linux), or undefined where that file does not exist.
 */
function threadCpuUs(): number | undefined {
  try {
    const stat = readFileSync("/proc/thread-self/stat", "latin1");
    // The fields after the command name (which may hold spaces) start after its closing ")".
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * 10_000;
  } catch {
    return undefined;
  }
}

/** The window's marks: CPU and RSS now; `figures()` later. */
function markWindow(): () => ProcessFigures {
  const cpu0 = process.cpuUsage();
  const thread0 = threadCpuUs();
  const rssAtMarkBytes = process.memoryUsage.rss();
  return () => {
    const d = process.cpuUsage(cpu0);
    const thread = threadCpuUs();
    return {
      cpuUs: d.user + d.system,
      ...(thread === undefined || thread0 === undefined
        ? {}
        : { mainThreadCpuUs: thread - thread0 }),
      rssAtMarkBytes,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
    };
  };
}

async function transportOf(id: string) {
  const pkg = packageOf(id);
  const plugins = await loadPlugins(pkg === undefined ? [] : [pkg]);
  const plugin = plugins.transports.find((t) => t.id === id && t.transport !== undefined);
  if (plugin?.transport === undefined) {
    const why = plugins.availability.map((a) => `${a.name}: ${a.status} ${a.detail ?? ""}`);
    throw new Error(`transport ${id} not available${why.length > 0 ? ` (${why.join("; ")})` : ""}`);
  }
  return plugin.transport;
}

/**
 * The byte window of one stream at both ends of a transfer (PROTOCOL.md §5.4 on uds and
 * shm-ring, HTTP/2's stream window on grpc-uds), as the transfer README advises: 512 KiB for
 * many transfers at once (the seed scenario's ten clients, ten 100 MiB files), so ten 64 KiB-chunk
 * streams hold 10 × 512 KiB on the way to the receiver instead of 10 × 2 MiB; the transports'
 * default for one large transfer, which a 512 KiB window held to the pace of the receiver's
 * slowest write: a 1 GiB file upload over uds ran at 0.37–0.38 GB/s with it and 0.43–0.45
 * without, alternating.
 */
function tuningFor(spec: TransferCase): { creditWindowBytes?: number } {
  return spec.kind === "large" ? {} : { creditWindowBytes: 512 * 1024 };
}

async function serve(args: ServeArgs): Promise<void> {
  const make = await transportOf(args.transport);
  const server = make(args.address, tuningFor(args.spec)).createServer();
  server.addService(
    TransferService,
    createTransferHandlers({ root: args.root, durable: args.durable }),
    {
      codec: transferCodec(args.codec),
    },
  );
  await server.listen();
  send({ t: "ready", address: server.address });
  await next("mark");
  const figures = markWindow();
  send({ t: "marked" });
  await next("report");
  send({ t: "figures", figures: figures() });
}

/** A generated source of `bytes` bytes: one random MiB, yielded again and again. */
async function* generated(bytes: number): AsyncGenerator<Uint8Array> {
  const block = Buffer.alloc(1024 * 1024);
  for (let i = 0; i < block.length; i += 4) block.writeUInt32LE((i * 2654435761) >>> 0, i);
  let left = bytes;
  while (left > 0) {
    const n = Math.min(left, block.length);
    yield n === block.length ? block : block.subarray(0, n);
    left -= n;
  }
}

const discard = () =>
  new Writable({
    highWaterMark: 1024 * 1024,
    write(_chunk, _enc, cb) {
      cb();
    },
  });

async function client(args: ClientArgs): Promise<void> {
  const { spec } = args;
  if (spec.kind === "baseline") throw new Error("a baseline has no nearwire client");
  const make = await transportOf(spec.transport);
  const codec = transferCodec(spec.codec);
  const connections: ClientConnection[] = [];
  const nConnections = spec.kind === "seed" ? spec.clients : 1;
  for (let i = 0; i < nConnections; i++)
    connections.push(await make(args.address, tuningFor(spec)).connect());
  const chunkBytes = spec.kind === "seed" ? undefined : spec.chunkBytes;
  const clients = connections.map((connection) =>
    createTransferClient({
      connection,
      codec,
      ...(chunkBytes === undefined ? {} : { chunkBytes }),
    }),
  );
  try {
    if (spec.kind === "seed") {
      const file = Buffer.alloc(spec.fileBytes);
      for (let i = 0; i < file.length; i += 4) file.writeUInt32LE((i * 40503) >>> 0, i);
      const upload = (i: number) =>
        (clients[i] as (typeof clients)[number]).upload([file], `seed/c${i}.bin`, {
          sizeBytes: file.length,
        });
      const loop = async (i: number, untilNs: bigint, lat: number[] | undefined) => {
        while (process.hrtime.bigint() < untilNs) {
          const t0 = process.hrtime.bigint();
          await upload(i);
          lat?.push(Number(process.hrtime.bigint() - t0));
        }
      };
      const all = (untilNs: bigint, lat?: number[]) =>
        Promise.all(clients.map((_, i) => loop(i, untilNs, lat)));
      await all(process.hrtime.bigint() + BigInt(args.warmupMs) * 1_000_000n);
      send({ t: "warmed" });
      await next("go");
      const figures = markWindow();
      const lat: number[] = [];
      const t0 = process.hrtime.bigint();
      await all(t0 + BigInt(args.durationMs) * 1_000_000n, lat);
      const elapsedNs = Number(process.hrtime.bigint() - t0);
      lat.sort((a, b) => a - b);
      const mean = lat.reduce((a, b) => a + b, 0) / lat.length;
      send({
        t: "result",
        result: {
          ...figures(),
          elapsedNs,
          count: lat.length,
          bytes: lat.length * spec.fileBytes,
          meanNs: mean,
          p99Ns: lat[Math.min(lat.length - 1, Math.ceil(lat.length * 0.99) - 1)] as number,
        },
      });
      return;
    }
    const c = clients[0] as (typeof clients)[number];
    const one = async (i: number) => {
      const name = largeName(spec, i);
      if (spec.direction === "upload") {
        if (spec.where === "file") await c.upload(args.src, name);
        else await c.upload(generated(spec.bytes), name, { sizeBytes: spec.bytes });
      } else if (spec.where === "file") {
        const dest = `${args.dest}-${i}`;
        rmSync(dest, { force: true });
        rmSync(dest + DOWNLOAD_PART_SUFFIX, { force: true });
        await c.download(name, dest);
      } else {
        const sink = discard();
        await c.download(name, sink, { lendChunks: true }); // it is done with a chunk at once
        sink.end();
      }
    };
    send({ t: "warmed" });
    await next("go");
    const figures = markWindow();
    const t0 = process.hrtime.bigint();
    await Promise.all(Array.from({ length: spec.concurrency }, (_, i) => one(i)));
    const elapsedNs = Number(process.hrtime.bigint() - t0);
    send({
      t: "result",
      result: {
        ...figures(),
        elapsedNs,
        count: spec.concurrency,
        bytes: spec.concurrency * spec.bytes,
      },
    });
  } finally {
    for (const connection of connections) await connection.close().catch(() => {});
  }
}

async function bareServe(args: BareArgs): Promise<void> {
  let figures: (() => ProcessFigures) | undefined;
  const server = createServer((socket) => {
    pipeline(socket, createWriteStream(args.file))
      .then(async () => {
        if (args.fsync) {
          const fh = await open(args.file, "r+");
          await fh.sync();
          await fh.close();
        }
        send({ t: "done", figures: (figures ?? markWindow())() });
      })
      .catch((err: unknown) => send({ t: "error", message: String(err) }));
  });
  server.listen(args.address);
  await once(server, "listening");
  send({ t: "ready", address: args.address });
  await next("mark");
  figures = markWindow();
  send({ t: "marked" });
}

async function bareClient(args: BareArgs): Promise<void> {
  const socket = createConnection(args.address);
  await once(socket, "connect");
  send({ t: "warmed" });
  await next("go");
  const figures = markWindow();
  const t0 = process.hrtime.bigint();
  await pipeline(createReadStream(args.file), socket);
  send({
    t: "result",
    result: { ...figures(), elapsedNs: Number(process.hrtime.bigint() - t0), count: 1, bytes: 0 },
  });
}

/** The one part of the WebAssembly API used here (the app's `lib` has no DOM types). */
declare const WebAssembly: {
  Memory: new (descriptor: { initial: number }) => { readonly buffer: ArrayBuffer };
};

/** Chunk, write batch and checkpoint of the receiver floor: the transfer server's defaults. */
const FLOOR_CHUNK = 64 * 1024;
const FLOOR_BATCH = 512 * 1024;
const FLOOR_SYNC_EVERY = 8 * 1024 * 1024;
/**
 * Where the receiver floor copies its chunks from, as a server copies a received chunk out of
 * its socket read or ring slot: 4 MiB, a shm-ring's ring, so the bytes are not in the core's
 * nearest caches.
 */
const FLOOR_SOURCE_BYTES = 4 * 1024 * 1024;

/** Sends a floor's figures: its window from `t0`, `bytes` worked on. */
function sendFloorResult(figures: () => ProcessFigures, t0: bigint, bytes: number): void {
  send({
    t: "result",
    result: { ...figures(), elapsedNs: Number(process.hrtime.bigint() - t0), count: 1, bytes },
  });
}

/**
 * The receiver floor: a transfer server's own work on `bytes` of received data, with no
 * transfer — each 64 KiB chunk copied into a 512 KiB write batch (from a 4 MiB source in
 * memory, as a server copies a received chunk out of its socket read or ring slot; the one
 * copy a receiver must make), then its CRC-32C and SHA-256; the batches written past the page
 * cache where the file system takes O_DIRECT, as the server's default `directWrites` (two in
 * flight while the next batch fills, as the server keeps there; one through the page cache),
 * an fdatasync every 8 MiB behind the writes and an fsync at the end. A row's server can be no
 * cheaper than this per GiB, nor faster on the same disk.
 */
async function floor(args: FloorArgs): Promise<void> {
  // Page-aligned batches, as O_DIRECT needs (a WebAssembly memory starts on a page): two
  // being written and one filling.
  const batches = [0, 1, 2].map(
    () => new Uint8Array(new WebAssembly.Memory({ initial: FLOOR_BATCH / 65536 }).buffer),
  );
  const source = new Uint8Array(FLOOR_SOURCE_BYTES);
  for (let i = 0; i < source.byteLength; i++) source[i] = (i * 131 + (i >> 9)) & 0xff;
  let from = 0;
  const fh = await open(args.file, "w");
  const direct = await open(
    `/proc/self/fd/${fh.fd}`,
    constants.O_WRONLY | constants.O_DIRECT,
  ).catch(() => undefined);
  try {
    send({ t: "warmed" });
    await next("go");
    const figures = markWindow();
    const t0 = process.hrtime.bigint();
    const hash = createHash("sha256");
    // Writes in flight at once: the server's (transfer's FileWrites.writesInFlight).
    const most = direct === undefined ? 1 : 2;
    const writing: Promise<unknown>[] = [];
    let syncing: Promise<unknown> = Promise.resolve();
    for (let pos = 0, k = 0; pos < args.bytes; pos += FLOOR_BATCH, k++) {
      const n = Math.min(FLOOR_BATCH, args.bytes - pos);
      // This batch's last write ended before the one before this one began (below).
      const batch = batches[k % batches.length] as Uint8Array;
      for (let at = 0; at < n; at += FLOOR_CHUNK) {
        const len = Math.min(FLOOR_CHUNK, n - at);
        batch.set(source.subarray(from, from + len), at);
        from = (from + FLOOR_CHUNK) % FLOOR_SOURCE_BYTES;
        const chunk = batch.subarray(at, at + len);
        crc32c(chunk);
        hash.update(chunk);
      }
      if (writing.length >= most) await writing.shift();
      writing.push((direct !== undefined && n % 4096 === 0 ? direct : fh).write(batch, 0, n, pos));
      if ((pos + n) % FLOOR_SYNC_EVERY === 0) {
        await syncing;
        syncing = Promise.all(writing).then(() => fh.datasync());
      }
    }
    await Promise.all(writing);
    await syncing;
    await fh.sync();
    hash.digest();
    sendFloorResult(figures, t0, args.bytes);
  } finally {
    await direct?.close();
    await fh.close();
  }
}

/** Read block of the sender floor: the upload's (transfer's `READ_BLOCK_BYTES`). */
const FLOOR_READ_BLOCK = 256 * 1024;

/** Reads `n` bytes at `pos` of `fd` into `into` (fewer only at the end of the file). */
function readBlock(fd: number, into: Uint8Array, pos: number, n: number): Promise<number> {
  return new Promise((resolve, reject) => {
    let got = 0;
    const more = (): void =>
      read(fd, into, got, n - got, pos + got, (err, k) => {
        if (err !== null) return reject(err);
        got += k;
        if (k > 0 && got < n) more();
        else resolve(got);
      });
    more();
  });
}

/**
 * The sender floor: an uploading client's own work on `bytes` of a file, with no transfer —
 * 256 KiB reads through the page cache into two reused blocks (the next read in flight while
 * the last block is worked on), and per 64 KiB chunk CRC-32C, SHA-256 and one copy into a reused
 * send buffer (where the upload encodes the chunk for its transport). A row's client can be no
 * cheaper than this per GiB.
 */
async function floorSender(args: FloorArgs): Promise<void> {
  const blocks = [new Uint8Array(FLOOR_READ_BLOCK), new Uint8Array(FLOOR_READ_BLOCK)];
  const slot = new Uint8Array(FLOOR_CHUNK);
  const fh = await open(args.file, "r");
  try {
    // Warm the page cache as a row's source is: the file was written or read just before.
    for (let pos = 0; pos < args.bytes; pos += FLOOR_READ_BLOCK)
      await readBlock(fh.fd, blocks[0] as Uint8Array, pos, FLOOR_READ_BLOCK);
    send({ t: "warmed" });
    await next("go");
    const figures = markWindow();
    const t0 = process.hrtime.bigint();
    const hash = createHash("sha256");
    let reading = readBlock(fh.fd, blocks[0] as Uint8Array, 0, FLOOR_READ_BLOCK);
    let total = 0;
    for (let pos = 0, i = 0; pos < args.bytes; pos += FLOOR_READ_BLOCK, i ^= 1) {
      const n = await reading;
      if (n === 0) throw new Error(`${args.file} ends at ${pos} B, expected ${args.bytes} B`);
      const block = blocks[i] as Uint8Array;
      if (pos + FLOOR_READ_BLOCK < args.bytes)
        reading = readBlock(
          fh.fd,
          blocks[i ^ 1] as Uint8Array,
          pos + FLOOR_READ_BLOCK,
          FLOOR_READ_BLOCK,
        );
      for (let at = 0; at < n; at += FLOOR_CHUNK) {
        const chunk = block.subarray(at, Math.min(at + FLOOR_CHUNK, n));
        crc32c(chunk);
        hash.update(chunk);
        slot.set(chunk);
      }
      total += n;
    }
    hash.digest();
    sendFloorResult(figures, t0, total);
  } finally {
    await fh.close();
  }
}

const [role, json] = process.argv.slice(2);
const roles: Record<string, (args: never) => Promise<void>> = {
  serve,
  client,
  "bare-serve": bareServe,
  "bare-client": bareClient,
  floor,
  "floor-sender": floorSender,
};
const run = roles[role ?? ""];
if (run === undefined || json === undefined) {
  process.stderr.write(
    "usage: transfer-child <serve|client|bare-serve|bare-client|floor|floor-sender> <json>\n",
  );
  process.exit(2);
}
run(JSON.parse(json) as never).catch((err: unknown) => {
  send({ t: "error", message: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  setTimeout(() => process.exit(1), 100);
});
