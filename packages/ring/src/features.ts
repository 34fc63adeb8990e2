/** The set-up's `features` (PROTOCOL.md §6.1, §6.4): HELLO's feature bits as a handshake value. */
import { Code, NearwireError } from "@nearwire/core";
import { FEATURE_BATCH, FEATURE_CREDIT_BYTES } from "@nearwire/core/protocol";

/**
 * A set-up message's `features` (shm-ring handshake, worker offer and answer): undefined when
 * absent, else a u32 of feature bits; any other value is INVALID_ARGUMENT `bad-preface`,
 * naming `what` (`client features`, `listener features`, …).
 */
export function readFeatures(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw new NearwireError(
      Code.InvalidArgument,
      `${what} ${JSON.stringify(value)} is not an integer in [0, 4294967295]`,
      { reason: "bad-preface" },
    );
  }
  return value;
}

/** True when `features` (as {@link readFeatures} returns them) announce BATCH. */
export function announcesBatch(features: number | undefined): boolean {
  return ((features ?? 0) & FEATURE_BATCH) !== 0;
}

/** True when `features` announce credit by bytes (PROTOCOL.md §4.1, §5.4). */
export function announcesCreditBytes(features: number | undefined): boolean {
  return ((features ?? 0) & FEATURE_CREDIT_BYTES) !== 0;
}

/**
 * The feature bits the RPC engine's side of a set-up announces: BATCH and credit by bytes when
 * `batches`, else credit by bytes alone.
 */
export function engineFeatures(batches: boolean): number {
  return (batches ? FEATURE_BATCH : 0) | FEATURE_CREDIT_BYTES;
}
