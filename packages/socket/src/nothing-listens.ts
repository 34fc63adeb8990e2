import net from "node:net";
import { Code, NearwireError } from "@nearwire/core";

/** errno values of a connect that found no listener: no socket file, or nobody accepting on it. */
const NOBODY_THERE = new Set(["ENOENT", "ECONNREFUSED"]);

/** The errno of `err` or of an error in its `cause` chain. */
function errnoOf(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === "string" && code.startsWith("E")) return code;
  }
  return undefined;
}

/**
 * UNAVAILABLE `nothing-listens` ("nothing listens at /path — is the server running?") when `err`,
 * from connecting to `address`, says that nobody listens there (ENOENT: no socket file;
 * ECONNREFUSED: a socket file or port nobody accepts on); undefined for any other failure.
 */
export function nothingListens(err: unknown, address: string): NearwireError | undefined {
  const errno = errnoOf(err);
  if (errno === undefined || !NOBODY_THERE.has(errno)) return undefined;
  return new NearwireError(
    Code.Unavailable,
    `nothing listens at ${address} — is the server running? (connect ${errno})`,
    { reason: "nothing-listens", cause: err },
  );
}

/**
 * Connects to `path` (a socket path, `\0name` for an abstract name) or `host:port` once and
 * closes at once, to learn why a connection through another stack (grpc-js) failed: the
 * `nothing-listens` error, or undefined when something does listen or the cause is another.
 */
export function probeNothingListens(
  target: { path: string } | { host: string; port: number },
  address: string,
): Promise<NearwireError | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(target);
    socket.once("connect", () => {
      socket.destroy();
      resolve(undefined);
    });
    socket.once("error", (err) => {
      socket.destroy();
      resolve(nothingListens(err, address));
    });
  });
}
