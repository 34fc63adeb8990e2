/**
 * Status codes: gRPC's code set, numerically identical, so that `@nearwire/grpc-uds`
 * maps one to one and the wire value of a code is the same in every transport.
 *
 * @see https://grpc.github.io/grpc/core/md_doc_statuscodes.html
 */
export enum Code {
  OK = 0,
  Canceled = 1,
  Unknown = 2,
  InvalidArgument = 3,
  DeadlineExceeded = 4,
  NotFound = 5,
  AlreadyExists = 6,
  PermissionDenied = 7,
  ResourceExhausted = 8,
  FailedPrecondition = 9,
  Aborted = 10,
  OutOfRange = 11,
  Unimplemented = 12,
  Internal = 13,
  Unavailable = 14,
  DataLoss = 15,
  Unauthenticated = 16,
}

/** Upper-snake name of a code as gRPC spells it (`DEADLINE_EXCEEDED`); `CODE_n` when unknown. */
export function codeName(code: number): string {
  const name = Code[code];
  if (name === undefined) return `CODE_${code}`;
  return name === "Canceled" ? "CANCELLED" : name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** True when `n` is one of the 17 defined codes. */
export function isCode(n: number): n is Code {
  return Number.isInteger(n) && n >= 0 && n <= 16;
}
