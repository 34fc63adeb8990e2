/**
 * The `grpc-timeout` header (gRPC over HTTP/2, "Requests"): `TimeoutValue TimeoutUnit`, at most
 * 8 ASCII digits then one of `H` (hours), `M` (minutes), `S` (seconds), `m` (ms), `u` (µs),
 * `n` (ns).
 */

const UNIT_MS: Record<string, number> = {
  H: 3_600_000,
  M: 60_000,
  S: 1000,
  m: 1,
  u: 1e-3,
  n: 1e-6,
};

const MAX_VALUE = 99_999_999;

/**
 * `grpc-timeout` for `timeoutMs` (> 0): the finest unit whose value fits 8 digits, rounded up
 * so that the server never ends a call before the client's deadline.
 */
export function encodeGrpcTimeout(timeoutMs: number): string {
  const us = Math.ceil(timeoutMs * 1000);
  if (us <= MAX_VALUE) return `${us}u`;
  const ms = Math.ceil(timeoutMs);
  if (ms <= MAX_VALUE) return `${ms}m`;
  const s = Math.ceil(timeoutMs / 1000);
  if (s <= MAX_VALUE) return `${s}S`;
  const m = Math.ceil(timeoutMs / 60_000);
  if (m <= MAX_VALUE) return `${m}M`;
  return `${Math.min(Math.ceil(timeoutMs / 3_600_000), MAX_VALUE)}H`;
}

/** The timeout in ms of a `grpc-timeout` value, or undefined when it is malformed. */
export function parseGrpcTimeout(value: string): number | undefined {
  const n = value.length;
  if (n < 2 || n > 9) return undefined;
  const unit = UNIT_MS[value[n - 1] as string];
  if (unit === undefined) return undefined;
  let digits = 0;
  for (let i = 0; i < n - 1; i++) {
    const c = value.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) return undefined;
    digits = digits * 10 + c;
  }
  return digits * unit;
}
