/** NearwireError, its closed reasons, and the one errno mapping (NearwireError.from). */
import { Code, codeName } from "./code.js";

/**
 * A closed set of sub-reasons for callers that must tell apart two causes sharing one code
 * (for example a frame over the limit versus a message over the limit). Never parse messages.
 */
export type ErrorReason =
  | "frame-too-large"
  | "message-too-large"
  | "crc-mismatch"
  | "malformed-frame"
  | "unknown-frame-type"
  | "bad-preface"
  | "version-mismatch"
  | "protocol-violation"
  | "peer-closed"
  | "closed"
  | "address-in-use"
  | "path-too-long"
  | "decode-failed"
  | "encode-failed"
  | "not-built"
  | "layout-mismatch"
  | "unsealed-segment"
  | "ring-full"
  | "server-closing"
  | "frame-timeout"
  | "too-many-connections"
  | "call-ids-exhausted"
  | "nothing-listens"
  | "codec-mismatch"
  | "transport-mismatch"
  | "symlink"
  | "crash-loop"
  | "changed-during-read"
  | "reconnect-exhausted";

/** Every {@link ErrorReason}, checked complete by the compiler. */
const ERROR_REASONS: Record<ErrorReason, true> = {
  "frame-too-large": true,
  "message-too-large": true,
  "crc-mismatch": true,
  "malformed-frame": true,
  "unknown-frame-type": true,
  "bad-preface": true,
  "version-mismatch": true,
  "protocol-violation": true,
  "peer-closed": true,
  closed: true,
  "address-in-use": true,
  "path-too-long": true,
  "decode-failed": true,
  "encode-failed": true,
  "not-built": true,
  "layout-mismatch": true,
  "unsealed-segment": true,
  "ring-full": true,
  "server-closing": true,
  "frame-timeout": true,
  "too-many-connections": true,
  "call-ids-exhausted": true,
  "nothing-listens": true,
  "codec-mismatch": true,
  "transport-mismatch": true,
  symlink: true,
  "crash-loop": true,
  "changed-during-read": true,
  "reconnect-exhausted": true,
};

/**
 * True when `value` is one of the {@link ErrorReason} values: for reasons read off the wire
 * (a peer's GOAWAY or error frame), which keep the closed set closed.
 */
export function isErrorReason(value: unknown): value is ErrorReason {
  return typeof value === "string" && Object.hasOwn(ERROR_REASONS, value);
}

/** Options of {@link NearwireError}. */
export interface NearwireErrorOptions extends ErrorOptions {
  /** A closed sub-reason; see {@link ErrorReason}. */
  reason?: ErrorReason;
  /** Metadata (trailers) that came with the error, if any. */
  metadata?: Record<string, string>;
}

/**
 * The one error class of nearwire. `code` is a gRPC status code; assert on it, never on the
 * message. Messages name the value and the limit: `frame 70000 B > maxFrameBytes 65536`.
 */
export class NearwireError extends Error {
  override name = "NearwireError";
  /** A closed sub-reason, when callers need to tell causes of one code apart. */
  readonly reason: ErrorReason | undefined;
  /** Trailers sent with the error by the peer (empty when none). */
  readonly metadata: Record<string, string>;

  constructor(
    readonly code: Code,
    message: string,
    opts?: NearwireErrorOptions,
  ) {
    super(message, opts);
    this.reason = opts?.reason;
    this.metadata = opts?.metadata ?? {};
  }

  /** `DEADLINE_EXCEEDED: message`, the form logs and reports show. */
  override toString(): string {
    return `${this.name} [${codeName(this.code)}]: ${this.message}`;
  }

  /**
   * What `util.inspect()` and `console.log` show: the stack headed by the code's name
   * (`NearwireError [DEADLINE_EXCEEDED]: …`), then `code: 4 (DEADLINE_EXCEEDED)` and the reason.
   */
  [Symbol.for("nodejs.util.inspect.custom")](
    _depth: number,
    options: { stylize?: (text: string, style: string) => string },
    inspect: (value: unknown, options?: unknown) => string,
  ): string {
    const head = `${this.name} [${codeName(this.code)}]`;
    const stack = this.stack ?? `${this.name}: ${this.message}`;
    const body = stack.startsWith(`${this.name}:`)
      ? head + stack.slice(this.name.length)
      : `${head}: ${this.message}\n${stack}`;
    const props: string[] = [`code: ${this.code} (${codeName(this.code)})`];
    if (this.reason !== undefined) props.push(`reason: '${this.reason}'`);
    if (Object.keys(this.metadata).length > 0)
      props.push(`metadata: ${inspect(this.metadata, options)}`);
    if (this.cause !== undefined) props.push(`cause: ${inspect(this.cause, options)}`);
    return `${body} {\n  ${props.map((p) => p.replace(/\n/g, "\n  ")).join(",\n  ")}\n}`;
  }

  /**
   * Turns any thrown value into a NearwireError. Node errno values map to codes in this one
   * place (for sockets and for the shm-ring addon alike): connection loss to UNAVAILABLE, address
   * in use to ALREADY_EXISTS, no memory or space to RESOURCE_EXHAUSTED, and so on; an unknown
   * errno or another Error to `fallback`. `context`, when given, prefixes the message
   * (`opening segment /proc/9/fd/3: ENOENT …`).
   */
  static from(reason: unknown, fallback: Code = Code.Unknown, context?: string): NearwireError {
    if (reason instanceof NearwireError) return reason;
    if (reason instanceof Error) {
      const message = context === undefined ? reason.message : `${context}: ${reason.message}`;
      const errno = (reason as NodeJS.ErrnoException).code;
      const mapped = errno === undefined ? undefined : errnoCode(errno);
      if (mapped !== undefined) {
        const opts: NearwireErrorOptions = { cause: reason };
        if (mapped.reason !== undefined) opts.reason = mapped.reason;
        return new NearwireError(mapped.code, message, opts);
      }
      if (reason.name === "AbortError")
        return new NearwireError(Code.Canceled, message, { cause: reason });
      return new NearwireError(fallback, message, { cause: reason });
    }
    return new NearwireError(
      fallback,
      context === undefined ? String(reason) : `${context}: ${String(reason)}`,
    );
  }
}

function errnoCode(errno: string): { code: Code; reason?: ErrorReason } | undefined {
  switch (errno) {
    case "ECONNRESET":
    case "ECONNREFUSED":
    case "ECONNABORTED":
    case "EPIPE":
    case "ENOENT":
    case "ESRCH":
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "ERR_STREAM_DESTROYED":
    case "ERR_SOCKET_CLOSED":
      return { code: Code.Unavailable, reason: "peer-closed" };
    case "EADDRINUSE":
      return { code: Code.AlreadyExists, reason: "address-in-use" };
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return { code: Code.PermissionDenied };
    case "ENOSPC":
    case "ENOMEM":
    case "EMFILE":
    case "ENFILE":
    case "EFBIG":
    case "EFAULT":
      return { code: Code.ResourceExhausted };
    case "ENOTDIR":
      return { code: Code.FailedPrecondition };
    case "EINVAL":
      return { code: Code.InvalidArgument };
    default:
      return undefined;
  }
}

/**
 * The message of anything thrown: an Error's `message`, else its string form (code may throw
 * strings, `undefined` or objects, and a message built from `(cause as Error).message` would read
 * "undefined" or throw a TypeError of its own).
 */
export function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
