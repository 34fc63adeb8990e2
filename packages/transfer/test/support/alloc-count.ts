import { createHook } from "node:async_hooks";
import { Socket } from "node:net";

/** What {@link countAllocations} saw while `run` ran. */
export interface AllocationCount {
  /** Promises created (async_hooks `PROMISE` inits). */
  promises: number;
  /** Byte arrays of at least `minBytes` made by JavaScript code (see {@link countAllocations}). */
  bigBuffers: number;
}

/**
 * Counts, while `run` runs, the promises created and the byte arrays of at least `minBytes`
 * made through `new Uint8Array(n)`, `new ArrayBuffer(n)`, `Buffer.alloc*`, `Buffer.concat`,
 * `Buffer.from(string)` and typed-array `slice()`, and the socket reads delivered as `data`
 * events: Node reads each into a new 64 KiB buffer of its own (a socket made with `onread`
 * reads into the caller's instead, and is not counted). Node's other native allocations are
 * not seen.
 */
export async function countAllocations(
  minBytes: number,
  run: () => Promise<void>,
): Promise<AllocationCount> {
  const stop = startCounting(minBytes);
  try {
    await run();
  } finally {
    stop();
  }
  return stop();
}

/**
 * Starts counting what {@link countAllocations} counts, until the returned function is called;
 * it returns the counts (calling it again returns them again). For a count that spans callbacks,
 * as a server process's does between its parent's signals.
 */
export function startCounting(minBytes: number): () => AllocationCount {
  const counts: AllocationCount = { promises: 0, bigBuffers: 0 };
  const big = (n: number) => {
    if (n >= minBytes) counts.bigBuffers++;
  };
  const hook = createHook({
    init(_id, type) {
      if (type === "PROMISE") counts.promises++;
    },
  });
  const g = globalThis as {
    Uint8Array: Uint8ArrayConstructor;
    ArrayBuffer: ArrayBufferConstructor;
  };
  const saved = {
    Uint8Array: g.Uint8Array,
    ArrayBuffer: g.ArrayBuffer,
    alloc: Buffer.alloc,
    allocUnsafe: Buffer.allocUnsafe,
    allocUnsafeSlow: Buffer.allocUnsafeSlow,
    concat: Buffer.concat,
    from: Buffer.from,
  };
  const typedProto = Object.getPrototypeOf(Uint8Array.prototype) as {
    slice: (...a: unknown[]) => ArrayBufferView;
  };
  const slice = typedProto.slice;
  const counting = <T extends object>(ctor: T): T =>
    new Proxy(ctor, {
      construct(target, args, newTarget) {
        if (typeof args[0] === "number") big(args[0]);
        return Reflect.construct(target as never, args, newTarget);
      },
    });
  g.Uint8Array = counting(saved.Uint8Array);
  g.ArrayBuffer = counting(saved.ArrayBuffer);
  Buffer.alloc = ((n: number, ...rest: never[]) => {
    big(n);
    return saved.alloc(n, ...rest);
  }) as typeof Buffer.alloc;
  Buffer.allocUnsafe = (n: number) => {
    big(n);
    return saved.allocUnsafe(n);
  };
  Buffer.allocUnsafeSlow = (n: number) => {
    big(n);
    return saved.allocUnsafeSlow(n);
  };
  Buffer.concat = ((list: readonly Uint8Array[], n?: number) => {
    const out = saved.concat(list, n);
    big(out.byteLength);
    return out;
  }) as typeof Buffer.concat;
  Buffer.from = ((...args: Parameters<typeof saved.from>) => {
    const out = saved.from(...args);
    if (typeof args[0] === "string") big(out.byteLength);
    return out;
  }) as typeof Buffer.from;
  typedProto.slice = function (this: ArrayBufferView, ...args: unknown[]) {
    const out = slice.apply(this, args);
    big(out.byteLength);
    return out;
  };
  const sockets = Socket.prototype as unknown as {
    push(chunk: unknown, ...rest: unknown[]): boolean;
  };
  const push = sockets.push;
  sockets.push = function (this: Socket, chunk: unknown, ...rest: unknown[]) {
    if (chunk instanceof Uint8Array) big(64 * 1024);
    return push.call(this, chunk, ...rest);
  };
  hook.enable();
  let stopped = false;
  return () => {
    if (stopped) return counts;
    stopped = true;
    hook.disable();
    g.Uint8Array = saved.Uint8Array;
    g.ArrayBuffer = saved.ArrayBuffer;
    Buffer.alloc = saved.alloc;
    Buffer.allocUnsafe = saved.allocUnsafe;
    Buffer.allocUnsafeSlow = saved.allocUnsafeSlow;
    Buffer.concat = saved.concat;
    Buffer.from = saved.from;
    typedProto.slice = slice;
    delete (sockets as { push?: unknown }).push; // back to Readable's
    return counts;
  };
}
