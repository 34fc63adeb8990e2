import { parseArgs } from "node:util";
import { TRANSFER_CODEC_NAMES, type TransferCodecName } from "../codecs/names.js";
import { DEFAULT_MAX_CHUNK_BYTES } from "../limits.js";
import { DURABILITY_MODES, type Durability } from "../server/served-root.js";
import { RETRY_BASE_MS, RETRY_MAX_MS } from "./backoff.js";
import { DEFAULT_ADDRESS } from "./transport.js";

/** The usage text: printed by `--help` (stdout) and after a usage error (stderr). */
export const USAGE = `usage:
  nearwire-transfer serve --root DIR [--address A] [--codec C] [--sync-every-bytes N]
                          [--durable full|commit|none] [--page-cache]
  nearwire-transfer put FILE NAME [--address A] [--codec C] [--chunk-bytes N] [--retries N]
  nearwire-transfer get NAME FILE [--address A] [--codec C] [--chunk-bytes N] [--retries N]
                          [--page-cache]
  nearwire-transfer status NAME [--address A] [--codec C] [--retries N]
  nearwire-transfer --help | --version
--address A: a uds/tcp address (default $NEARWIRE_TRANSFER_ADDRESS or ${DEFAULT_ADDRESS})
--codec C: ${TRANSFER_CODEC_NAMES.join(", ")} (default msgpack); the same on both sides
--chunk-bytes N: bytes per chunk, 1 to ${DEFAULT_MAX_CHUNK_BYTES} (default 65536)
--durable: full (default) checkpoints uploads every --sync-every-bytes and fsyncs commits,
  commit only fsyncs commits, none never fsyncs (see the README)
--page-cache: write received files through the page cache; by default whole 512 KiB writes
  go past it (O_DIRECT) where the file system allows, which costs far less CPU
--retries N: after a lost connection, reconnect and resume up to N times (default 0), waiting
  ${RETRY_BASE_MS} ms, then twice as long each time (at most ${RETRY_MAX_MS} ms), with random jitter
exit status: 0 done, 1 failed (CODE: message on stderr), 2 usage error, 130 interrupted (Ctrl-C)`;

/** Flags every command but `serve`'s own take. */
interface Common {
  address: string;
  codec: TransferCodecName;
}

/** What the command line asks for. */
export type Invocation =
  | { command: "help" | "version" }
  | { command: "usage-error"; message: string }
  | (Common & {
      command: "serve";
      root: string;
      syncEveryBytes?: number;
      durable?: Durability;
      /** `--page-cache`: the server's `directWrites: false`. */
      pageCache?: true;
    })
  | (Common & {
      command: "put" | "get";
      /** put: the local file; get: the remote name. */
      from: string;
      /** put: the remote name; get: the local file. */
      to: string;
      chunkBytes?: number;
      retries: number;
      /** get's `--page-cache`: the download's `directWrites: false`. */
      pageCache?: true;
    })
  | (Common & { command: "status"; name: string; retries: number });

/** The flags each command accepts besides `--address` and `--codec`. */
const COMMANDS: Record<string, { args: number; flags: readonly string[] }> = {
  serve: { args: 0, flags: ["root", "sync-every-bytes", "durable", "page-cache"] },
  put: { args: 2, flags: ["chunk-bytes", "retries"] },
  get: { args: 2, flags: ["chunk-bytes", "retries", "page-cache"] },
  status: { args: 1, flags: ["retries"] },
};

/** Reads `argv` (without node and the script). Anything malformed is a `usage-error`. */
export function parseCli(argv: string[], env: NodeJS.ProcessEnv): Invocation {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    return usageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help === true) return { command: "help" };
  if (values.version === true) return { command: "version" };
  const [command, ...args] = positionals;
  if (command === undefined) return usageError("no command given");
  const spec = COMMANDS[command];
  if (spec === undefined) return usageError(`unknown command ${JSON.stringify(command)}`);
  if (args.length !== spec.args)
    return usageError(`${command} takes ${spec.args} argument(s), got ${args.length}`);
  for (const flag of [
    "root",
    "sync-every-bytes",
    "durable",
    "chunk-bytes",
    "retries",
    "page-cache",
  ] as const)
    if (values[flag] !== undefined && !spec.flags.includes(flag))
      return usageError(`--${flag} is not an option of ${command}`);
  const codec = values.codec ?? "msgpack";
  if (!(TRANSFER_CODEC_NAMES as readonly string[]).includes(codec))
    return usageError(`--codec ${codec} is not one of ${TRANSFER_CODEC_NAMES.join(", ")}`);
  const common: Common = {
    address: values.address ?? env.NEARWIRE_TRANSFER_ADDRESS ?? DEFAULT_ADDRESS,
    codec: codec as TransferCodecName,
  };
  try {
    return invocation(command, args, values, common);
  } catch (err) {
    return usageError((err as Error).message);
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      root: { type: "string" },
      address: { type: "string" },
      codec: { type: "string" },
      "chunk-bytes": { type: "string" },
      "sync-every-bytes": { type: "string" },
      durable: { type: "string" },
      retries: { type: "string" },
      "page-cache": { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean" },
    },
  });
}

/** The invocation of a known command whose arguments were counted; a bad number throws. */
function invocation(
  command: string,
  args: string[],
  values: ReturnType<typeof parse>["values"],
  common: Common,
): Invocation {
  const [a, b] = args as [string, string];
  const retries = whole("retries", values.retries, 0) ?? 0;
  const pageCache = values["page-cache"] === true ? { pageCache: true as const } : {};
  if (command === "serve") {
    if (values.root === undefined) throw new Error("serve needs --root DIR");
    const syncEveryBytes = whole("sync-every-bytes", values["sync-every-bytes"], 0);
    const durable = values.durable;
    if (durable !== undefined && !(DURABILITY_MODES as readonly string[]).includes(durable))
      throw new Error(`--durable ${durable} is not one of ${DURABILITY_MODES.join(", ")}`);
    return {
      ...common,
      command,
      root: values.root,
      ...(syncEveryBytes === undefined ? {} : { syncEveryBytes }),
      ...(durable === undefined ? {} : { durable: durable as Durability }),
      ...pageCache,
    };
  }
  if (command === "status") return { ...common, command, name: a, retries };
  const chunkBytes = whole("chunk-bytes", values["chunk-bytes"], 1, DEFAULT_MAX_CHUNK_BYTES);
  return {
    ...common,
    command: command === "put" ? "put" : "get",
    from: a,
    to: b,
    retries,
    ...(chunkBytes === undefined ? {} : { chunkBytes }),
    ...pageCache,
  };
}

/** `--name v` as a whole number in [min, max]; undefined when not given. */
function whole(
  name: string,
  v: string | undefined,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (v === undefined) return undefined;
  const n = /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new Error(`--${name} ${v} is not a whole number from ${min} to ${max}`);
  return n;
}

function usageError(message: string): Invocation {
  return { command: "usage-error", message };
}
