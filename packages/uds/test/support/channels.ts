import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Channel, ChannelHandler, ChannelListener, NearwireError } from "@nearwire/core";
import { createUdsChannelProvider } from "../../src/index.js";

/** A temporary directory for socket files; `cleanup` removes it. */
export function tempDir(): { dir: string; path(name: string): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "nw-uds-"));
  return {
    dir,
    path: (name) => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

let counter = 0;
/** A unique Linux abstract socket name for this test process. */
export function abstractName(): string {
  return `unix-abstract:nearwire-test-${process.pid}-${counter++}`;
}

/** Frames and the close reason a channel delivered, with waiters. */
export class Recorder implements ChannelHandler {
  frames: { type: number; payload: Uint8Array }[] = [];
  closeError: NearwireError | undefined | null = null;
  closeCount = 0;
  #waiters: (() => void)[] = [];
  onFrame(type: number, payload: Uint8Array): void {
    this.frames.push({ type, payload: new Uint8Array(payload) });
    this.#wake();
  }
  onClose(error: NearwireError | undefined): void {
    this.closeCount++;
    this.closeError = error;
    this.#wake();
  }
  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }
  /** Resolves once `predicate` holds; rejects after `timeoutMs`. */
  async until(predicate: () => boolean, timeoutMs = 5000, what = "condition"): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 100));
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
  async closed(timeoutMs = 5000): Promise<NearwireError | undefined> {
    await this.until(() => this.closeCount > 0, timeoutMs, "onClose");
    return this.closeError ?? undefined;
  }
}

/** Starts a channel with a new Recorder. */
export function record(channel: Channel): Recorder {
  const r = new Recorder();
  channel.start(r);
  return r;
}

/** A u32 BE payload. */
export function u32(n: number, size = 4): Uint8Array {
  const b = new Uint8Array(size);
  new DataView(b.buffer).setUint32(0, n);
  return b;
}

/** A raw socket client collecting every byte it receives, for speaking bad protocol. */
export async function rawConnect(
  opts: net.NetConnectOpts,
): Promise<{ socket: net.Socket; received(): Buffer; ended: Promise<void> }> {
  const socket = net.connect(opts);
  const chunks: Buffer[] = [];
  socket.on("data", (d: Buffer) => chunks.push(d));
  socket.on("error", () => {});
  const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return { socket, received: () => Buffer.concat(chunks), ended };
}

/** Asserts `err` is a NearwireError with this code (and reason, when given). */
export function assertCode(err: unknown, code: number, reason?: string): void {
  assert.ok(
    err !== null && typeof err === "object" && "code" in err,
    `not an error: ${String(err)}`,
  );
  const e = err as NearwireError;
  assert.equal(e.name, "NearwireError", String(err));
  assert.equal(e.code, code, String(err));
  if (reason !== undefined) assert.equal(e.reason, reason, String(err));
}

/** Awaits `promise` and returns what it rejected with; fails if it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  assert.fail("expected a rejection");
}

/**
 * Listens on `address`, connects to it, and resolves once the server side has accepted the
 * channel: both ends, unstarted, and the listener.
 */
export async function connectedPair(
  address: string,
): Promise<{ client: Channel; server: Channel; listener: ChannelListener }> {
  const provider = createUdsChannelProvider({ address });
  let accept!: (c: Channel) => void;
  const accepted = new Promise<Channel>((r) => {
    accept = r;
  });
  const listener = await provider.listen(accept);
  const client = await provider.connect();
  return { client, server: await accepted, listener };
}
