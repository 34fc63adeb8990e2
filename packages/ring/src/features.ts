/** The set-up's `features` (PROTOCOL.md §6.1, §6.4): HELLO's feature bits as a handshake value. */
import { Code, NearwireError } from "@nearwire/core";
import {
  announcedCreditWindow,
  FEATURE_BATCH,
  FEATURE_CREDIT_BYTES,
  MIN_CREDIT_WINDOW_BYTES,
  rpcFeatures,
  SEND_WINDOW_BYTES,
} from "@nearwire/core/protocol";

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
 * `batches`, else credit by bytes alone; with its own byte window when `window` (core's
 * `rpcFeatures`).
 */
export function engineFeatures(batches: boolean, window = false): number {
  return rpcFeatures(batches, window);
}

/**
 * A side's `creditWindowBytes` option, checked: undefined (announce none) or an integer in
 * 64 KiB … 2 MiB (`MIN_CREDIT_WINDOW_BYTES` … `SEND_WINDOW_BYTES`); else INVALID_ARGUMENT.
 */
export function checkCreditWindowOption(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < MIN_CREDIT_WINDOW_BYTES || value > SEND_WINDOW_BYTES) {
    throw new NearwireError(
      Code.InvalidArgument,
      `creditWindowBytes ${value} is not an integer in [${MIN_CREDIT_WINDOW_BYTES}, ${SEND_WINDOW_BYTES}]`,
    );
  }
  return value;
}

/**
 * The byte window a set-up message announces (its `creditWindowBytes` key beside `features`
 * with credit by bytes and the window bit, PROTOCOL.md §6.1), as both sides read it
 * (`creditWindowBytes` of core's protocol module), or undefined. A key that is not an integer
 * in [0, 2^32 − 1] is INVALID_ARGUMENT `bad-preface`, naming `what`.
 */
export function readCreditWindow(
  features: number | undefined,
  value: unknown,
  what: string,
): number | undefined {
  if (value === undefined) return undefined;
  return announcedCreditWindow(features, readFeatures(value, what));
}
