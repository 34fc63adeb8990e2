import net from "node:net";

/**
 * Preloaded (`--import`) into the current side's workers by `--self-test-slowdown <µs>`: a
 * busy-wait of that many µs before every socket write, the injected regression that shows the
 * A/B gate fails on a real slowdown (see README "CI mode").
 */
const us = Number(process.env.NEARWIRE_BENCH_SLOWDOWN_US ?? 0);
if (us > 0) {
  const write = net.Socket.prototype.write;
  net.Socket.prototype.write = function slowWrite(this: net.Socket, ...args: unknown[]) {
    const until = performance.now() + us / 1000;
    while (performance.now() < until);
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as typeof write;
}
