/** Names a connect that found no listener: UNAVAILABLE nothing-listens, with the address. */
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

/** A nearwire client HELLO (PROTOCOL.md §4.5 `hello-client`), to see what a listener answers. */
const HELLO = Buffer.from(
  "00000010" + "01" + "4e45415257495245" + "0001" + "0000" + "00400000" + "bb189a75",
  "hex",
);

/**
 * Connects to `path` (a socket path, `\0name` for an abstract name) or `host:port` once, to
 * learn why a connection through another stack (grpc-js) failed: the `nothing-listens` error;
 * FAILED_PRECONDITION `transport-mismatch` when the listener answers a nearwire HELLO with
 * nearwire frames (a `@nearwire/uds` server) or with an shm-ring handshake frame (a
 * `@nearwire/shm-ring` server); undefined otherwise. Gives up after `waitMs` without an answer.
 */
export function probeListener(
  target: { path: string } | { host: string; port: number },
  address: string,
  waitMs = 1000,
): Promise<NearwireError | undefined> {
  return new Promise((resolve) => {
    const socket = net.connect(target);
    let head = Buffer.alloc(0);
    const done = (result: NearwireError | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(undefined), waitMs);
    socket.once("connect", () => socket.write(HELLO));
    socket.on("data", (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      if (head.length < 5) return;
      const speaks =
        head[4] === 0x7b ? "shm-ring" : head[4] === 0x01 || head[4] === 0x02 ? "uds" : undefined;
      done(
        speaks === undefined
          ? undefined
          : new NearwireError(
              Code.FailedPrecondition,
              `the server at ${address} speaks ${speaks === "uds" ? "nearwire frames" : "the shm-ring handshake"}, not gRPC: connect with @nearwire/${speaks}`,
              { reason: "transport-mismatch" },
            ),
      );
    });
    socket.once("close", () => done(undefined));
    socket.once("error", (err) => done(nothingListens(err, address)));
  });
}
