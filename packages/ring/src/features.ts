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

/** The `features` and `creditWindowBytes` keys a set-up message carries (PROTOCOL.md §6.1). */
export interface FeatureKeys {
  features?: number;
  creditWindowBytes?: number;
}

/**
 * The keys of the opening message (shm-ring's client handshake, the worker offer) of a side
 * that takes BATCH frames when `batches` and announces `window` when set (core's
 * `rpcFeatures`): none when it does neither, as a HELLO without a features field.
 */
export function offerFeatureKeys(batches: boolean, window: number | undefined): FeatureKeys {
  return batches || window !== undefined ? featureKeys(batches, window) : {};
}

/**
 * The keys of the answer (shm-ring's server handshake, the worker `ready`) to an opening
 * message whose `features` were `offered`: none when it had none (as HELLO's features field,
 * answered only to a client's), else this side's bits and its `window`, if set.
 */
export function answerFeatureKeys(
  offered: number | undefined,
  batches: boolean,
  window: number | undefined,
): FeatureKeys {
  return offered === undefined ? {} : featureKeys(batches, window);
}

/** The RPC engine's bits (core's `rpcFeatures`) and `window`, if set. */
function featureKeys(batches: boolean, window: number | undefined): FeatureKeys {
  const features = rpcFeatures(batches, window !== undefined);
  return window === undefined ? { features } : { features, creditWindowBytes: window };
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
