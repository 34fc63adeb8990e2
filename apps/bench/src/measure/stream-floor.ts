/**
 * `node dist/measure/stream-floor.js`: how fast a server stream can be when the server yields from an
 * `async function*` and the client reads with `for await` — the bench's method for an RPC
 * stream row — with no RPC engine at all: no envelope, no codec, no credit, only a channel.
 *
 * It bounds the `stream:` engine targets from above. Six variants, each over the same channel
 * (or its RPC transport) between two pinned processes, 64 B one way, measured the same way:
 *
 * - `channel`: the bench's channel row (a send loop, a counter in the frame callback);
 * - `generator`: the frames come from an `async function*`, driven with `next().then(…)` as
 *   nearwire's message pump does, the client counts in the frame callback;
 * - `for-await`: a send loop; the client queues each frame (copied when the channel's payloads
 *   are transient, as anything that keeps a message must) and reads the queue with `for await`;
 * - `both`: generator and `for await` together — the floor of a server-streaming RPC;
 * - `batched`: `both`, with the generator's messages packed into frames of up to
 *   {@link BATCH_BYTES} (a u32 LE length before each), sent when full or when the generator
 *   pauses, and split again by the client: the floor of a stream sent in BATCH frames
 *   (PROTOCOL.md §5.2), as nearwire's engine sends it to a peer that takes them;
 * - `rpc`: the bench's RPC row (`raw` codec, the engine between the two, BATCH frames on).
 *
 * `both ÷ channel` is the best ratio an engine sending a frame per message could reach in a
 * `stream:` target row, `batched ÷ channel` the best with several messages per frame, and
 * `rpc ÷ batched` how much of that floor the engine keeps.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { Channel } from "@nearwire/core";
import { type CaseSpec, makeCase } from "./case-spec.js";
import {
  type BenchClient,
  type BenchServer,
  encodeStreamRequest,
  STREAM_FRAME,
  STREAM_REQUEST_FRAME,
} from "./endpoint.js";
import { defaultPin, machineInfo } from "./machine.js";
import {
  connectChannel,
  connectRpc,
  startChannelServer,
  startRpcServer,
} from "./nearwire-endpoints.js";
import { loadPluginsFor, type Plugins, pluginById, type TransportPlugin } from "./plugins.js";

const VARIANTS = ["channel", "generator", "for-await", "both", "batched", "rpc"] as const;
type Variant = (typeof VARIANTS)[number];
/** RPC transports measured, each with its channel layer (`<id>-channel`). */
const TRANSPORTS = ["uds", "shm-ring-spin"] as const;
type Transport = (typeof TRANSPORTS)[number];

/** Messages per stream; a window repeats streams until it is over. */
const STREAM_LENGTH = 100_000;
const PAYLOAD_BYTES = 64;
const SEED = 1;

/** Largest frame of the `batched` variant: a ring or socket batch takes it whole. */
const BATCH_BYTES = 4096;

const serverSends = (v: Variant) =>
  v === "batched" ? "batches" : v === "generator" || v === "both" ? "generator" : "loop";
const clientReads = (v: Variant) =>
  v === "batched" ? "batches" : v === "for-await" || v === "both" ? "for-await" : "callback";

/** The bench's 64 B stream case that `variant` runs: the RPC row, or else its channel row. */
function caseOf(transport: Transport, variant: Variant): CaseSpec {
  const rpc = variant === "rpc";
  return makeCase({
    mode: "stream",
    layer: rpc ? "rpc" : "channel",
    transport: rpc ? transport : `${transport}-channel`,
    codec: rpc ? "raw" : "frame",
    message: "chunk",
    payload: "64B",
    payloadBytes: PAYLOAD_BYTES,
    inFlight: 1,
  });
}

/** The server of `variant` at `address`. */
async function startServer(
  plugins: Plugins,
  spec: CaseSpec,
  variant: Variant,
  address: string,
): Promise<BenchServer> {
  const plugin = pluginById(plugins, spec.transport);
  if (variant === "rpc") return startRpcServer(plugin, spec, address, plugins.messages);
  const sends = serverSends(variant);
  if (sends === "loop") return startChannelServer(plugin, address);
  return startChannelServer(plugin, address, (ch, count, payload) =>
    sends === "generator"
      ? sendFromGenerator(ch, frames(payload, count))
      : sendBatchesFromGenerator(ch, frames(payload, count)),
  );
}

/** The client of `variant`, connected to `address`. */
async function connect(
  plugins: Plugins,
  spec: CaseSpec,
  variant: Variant,
  address: string,
): Promise<BenchClient> {
  const plugin = pluginById(plugins, spec.transport);
  if (variant === "rpc") return connectRpc(plugin, spec, address, plugins.messages, SEED);
  if (variant === "channel") return connectChannel(plugin, spec, address, SEED);
  return connectFloor(plugin, address, variant);
}

async function* frames(payload: Uint8Array, count: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < count; i++) yield payload;
}

/** Drives `source` the way nearwire's message pump does: promise callbacks, no `for await`. */
function sendFromGenerator(ch: Channel, source: AsyncGenerator<Uint8Array>): void {
  const onResult = (r: IteratorResult<Uint8Array>): void => {
    if (r.done === true || ch.closed) return;
    if (ch.send(STREAM_FRAME, r.value)) source.next().then(onResult);
    else ch.drained().then(() => source.next().then(onResult));
  };
  source.next().then(onResult);
}

/**
 * Like {@link sendFromGenerator}, but packs the messages into frames of up to {@link BATCH_BYTES}
 * (u32 LE length, bytes), sent when the next message would not fit, at the end of the stream, or
 * at `process.nextTick` — after the generator's run of microtasks, when it pauses.
 */
function sendBatchesFromGenerator(ch: Channel, source: AsyncGenerator<Uint8Array>): void {
  const batch = new Uint8Array(BATCH_BYTES);
  const view = new DataView(batch.buffer);
  let used = 0;
  let scheduled = false;
  // The channel copies a payload this small before `send` returns: the buffer is free again.
  const flush = (): boolean => {
    if (used === 0) return true;
    const n = used;
    used = 0;
    return ch.send(STREAM_FRAME, batch.subarray(0, n));
  };
  const flushLater = (): void => {
    scheduled = false;
    flush();
  };
  const pull = (): void => {
    source.next().then(onResult);
  };
  const onResult = (r: IteratorResult<Uint8Array>): void => {
    if (ch.closed) return;
    if (r.done === true) {
      flush();
      return;
    }
    const m = r.value;
    if (used + 4 + m.byteLength > BATCH_BYTES && !flush()) {
      ch.drained().then(() => onResult(r));
      return;
    }
    view.setUint32(used, m.byteLength, true);
    batch.set(m, used + 4);
    used += 4 + m.byteLength;
    if (!scheduled) {
      scheduled = true;
      process.nextTick(flushLater);
    }
    pull();
  };
  pull();
}

/** A minimal async queue of received frames: what any `for await` consumer needs at least. */
class FrameQueue implements AsyncIterator<Uint8Array> {
  #items: Uint8Array[] = [];
  #head = 0;
  #waiter: ((r: IteratorResult<Uint8Array>) => void) | undefined;

  push(frame: Uint8Array): void {
    const waiter = this.#waiter;
    if (waiter === undefined) this.#items.push(frame);
    else {
      this.#waiter = undefined;
      waiter({ value: frame, done: false });
    }
  }

  next(): Promise<IteratorResult<Uint8Array>> {
    if (this.#head < this.#items.length) {
      const value = this.#items[this.#head++] as Uint8Array;
      if (this.#head === this.#items.length) {
        this.#items = [];
        this.#head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this;
  }
}

/** A channel client that counts in the frame callback or reads a queue with `for await`. */
async function connectFloor(
  plugin: TransportPlugin,
  address: string,
  variant: Variant,
): Promise<BenchClient> {
  if (plugin.channel === undefined) throw new Error(`${plugin.id} has no channel provider`);
  const ch = await plugin.channel(address).connect();
  const queue = new FrameQueue();
  const byCallback = clientReads(variant) === "callback";
  const inBatches = clientReads(variant) === "batches";
  let left = 0;
  let done: (() => void) | undefined;
  ch.start({
    onFrame(type, p) {
      if (type !== STREAM_FRAME) return;
      if (byCallback) {
        if (--left === 0) done?.();
      } else if (!inBatches) queue.push(ch.transientPayloads ? p.slice() : p);
      else {
        // One copy of a transient frame; each message a view of it.
        const frame = ch.transientPayloads ? p.slice() : p;
        const view = new DataView(frame.buffer, frame.byteOffset, frame.byteLength);
        for (let at = 0; at < frame.byteLength; ) {
          const n = view.getUint32(at, true);
          queue.push(new Uint8Array(frame.buffer, frame.byteOffset + at + 4, n));
          at += 4 + n;
        }
      }
    },
    onClose() {},
  });
  const messages = { [Symbol.asyncIterator]: () => queue };
  return {
    wireBytes: PAYLOAD_BYTES,
    roundTrip: () => Promise.reject(new Error("stream-floor measures streams only")),
    async stream(count) {
      if (byCallback) {
        const finished = new Promise<void>((resolve) => {
          left = count;
          done = resolve;
        });
        ch.send(STREAM_REQUEST_FRAME, encodeStreamRequest(count, PAYLOAD_BYTES));
        return finished;
      }
      ch.send(STREAM_REQUEST_FRAME, encodeStreamRequest(count, PAYLOAD_BYTES));
      let got = 0;
      for await (const _ of messages) if (++got === count) break;
    },
    close: () => ch.close(),
  };
}

/** Messages per second of `client`'s streams in `rounds` windows of `seconds`, after a warm-up. */
async function measure(
  client: BenchClient,
  warmupSeconds: number,
  seconds: number,
  rounds: number,
): Promise<number[]> {
  const runFor = async (ns: number): Promise<number> => {
    const t0 = process.hrtime.bigint();
    let n = 0;
    let elapsed = 0;
    while (elapsed < ns) {
      await client.stream(STREAM_LENGTH);
      n += STREAM_LENGTH;
      elapsed = Number(process.hrtime.bigint() - t0);
    }
    return n / (elapsed / 1e9);
  };
  await runFor(warmupSeconds * 1e9);
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) rates.push(await runFor(seconds * 1e9));
  return rates;
}

/** Pinned to `core` as the bench pins its workers, when taskset works and there are two cores. */
let pin: boolean | undefined;

function child(role: string, args: string[], core: number): ChildProcess {
  const file = fileURLToPath(import.meta.url);
  // execArgv: the same loader (tsx) when this file runs from source.
  const argv = [...process.execArgv, file, role, ...args];
  pin ??= defaultPin(machineInfo());
  const [cmd, cmdArgs] = pin
    ? ["taskset", ["-c", String(core), process.execPath, ...argv]]
    : [process.execPath, argv];
  return spawn(cmd, cmdArgs, { stdio: ["ignore", "inherit", "inherit", "ipc"] });
}

/** The next IPC message of `proc`; rejects when it exits first. */
function reply<T>(proc: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    proc.once("message", (m) => resolve(m as T));
    proc.once("exit", (code) => reject(new Error(`child exited (${code}) before reporting`)));
  });
}

/** Runs one variant: server on core 1, client on core 0, each a fresh process. */
async function runVariant(
  transport: Transport,
  variant: Variant,
  timing: Timing,
): Promise<number[]> {
  const dir = mkdtempSync(join(tmpdir(), "nearwire-floor-"));
  const server = child("server", [transport, variant, join(dir, "floor.sock")], 1);
  try {
    const address = await reply<string>(server);
    const client = child("client", [transport, variant, address, JSON.stringify(timing)], 0);
    return await reply<number[]>(client);
  } finally {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once("exit", resolve));
      if (server.connected) server.disconnect();
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Warm-up and measuring windows of a client, in seconds. */
interface Timing {
  warmupSeconds: number;
  seconds: number;
  rounds: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
const mps = (x: number) => `${(x / 1e6).toFixed(2)} M`;

async function main(): Promise<void> {
  const [role, transport, variant, address, timingJson] = process.argv.slice(2) as [
    string,
    Transport,
    Variant,
    string,
    string,
  ];
  if (role === "server" || role === "client") {
    // Only what the case needs, as the bench's workers load it.
    const spec = caseOf(transport, variant);
    const plugins = await loadPluginsFor(spec);
    if (role === "server") {
      const server = await startServer(plugins, spec, variant, address);
      process.send?.(server.address);
      process.once("disconnect", () => void server.close());
      return;
    }
    const client = await connect(plugins, spec, variant, address);
    const t = JSON.parse(timingJson) as Timing;
    const rates = await measure(client, t.warmupSeconds, t.seconds, t.rounds);
    await client.close();
    process.send?.(rates, () => process.disconnect());
    return;
  }
  const { transports, timing } = parseCommandLine(process.argv.slice(2));
  const { seconds, rounds } = timing;
  console.log(`| transport | variant | msgs/s, median of ${rounds} × ${seconds} s | ÷ channel |`);
  console.log("| --- | --- | ---: | ---: |");
  for (const t of transports) {
    let base = 0;
    for (const v of VARIANTS) {
      const m = median(await runVariant(t, v, timing));
      if (v === "channel") base = m;
      console.log(`| ${t} | ${v} | ${mps(m)} | ${(m / base).toFixed(2)} |`);
    }
  }
}

const USAGE =
  "usage: stream-floor [--transport uds|shm-ring-spin]... [--warmup s] [--seconds s] [--rounds n]";

/** A bad command line: printed with {@link USAGE}, exit status 2. */
class UsageError extends Error {}

function parseCommandLine(args: string[]): { transports: Transport[]; timing: Timing } {
  let values: { transport?: string[]; warmup?: string; seconds?: string; rounds?: string };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        transport: { type: "string", multiple: true },
        warmup: { type: "string", default: "2" },
        seconds: { type: "string", default: "1" },
        rounds: { type: "string", default: "5" },
      },
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const transports = (values.transport ?? [...TRANSPORTS]) as Transport[];
  for (const t of transports)
    if (!TRANSPORTS.includes(t)) throw new UsageError(`--transport ${t}: one of ${TRANSPORTS}`);
  const timing: Timing = {
    warmupSeconds: Number(values.warmup),
    seconds: Number(values.seconds),
    rounds: Number(values.rounds),
  };
  if (!(timing.warmupSeconds >= 0) || !(timing.seconds > 0))
    throw new UsageError("--warmup must be ≥ 0 and --seconds > 0 (seconds)");
  if (!Number.isInteger(timing.rounds) || timing.rounds < 1)
    throw new UsageError("--rounds must be an integer ≥ 1");
  return { transports, timing };
}

try {
  await main();
} catch (err) {
  // One line for the person at the terminal (a child's own error is printed above it).
  console.error(`stream-floor: ${(err as Error).message}`);
  if (err instanceof UsageError) console.error(USAGE);
  process.exitCode = err instanceof UsageError ? 2 : 1;
  // A child that failed may leave the other one waiting for its IPC: end them.
  process.disconnect?.();
}
