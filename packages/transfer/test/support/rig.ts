import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServerProcess } from "@nearwire/conformance";
import type { Client, ClientConnection, Codec } from "@nearwire/core";
import { createMemoryTransport } from "@nearwire/core";
import { createUdsTransport } from "@nearwire/uds";
import { transferCodec } from "../../src/codecs/index.js";
import {
  createTransferClient,
  createTransferHandlers,
  type TransferClient,
  type TransferHandlersOptions,
  TransferService,
  type TransferServiceDefinition,
} from "../../src/index.js";

/** A temporary directory removed by `cleanup()`. */
export function tmpDir(prefix = "nwt-"): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes `bytes` random bytes to `path` and returns their SHA-256 (hex). */
export function randomFile(path: string, bytes: number): string {
  const data = randomBytes(bytes);
  writeFileSync(path, data);
  return sha256(data);
}

/** SHA-256 (hex) of bytes or of a file's contents. */
export function sha256(dataOrPath: Uint8Array | string): string {
  const data = typeof dataOrPath === "string" ? readFileSync(dataOrPath) : dataOrPath;
  return createHash("sha256").update(data).digest("hex");
}

/** A server root, a local dir and a client over the memory transport; `close()` removes all. */
export interface MemoryRig {
  root: string;
  local: string;
  client: TransferClient;
  /** The raw RPC client of the service (no client-side checks). */
  raw: Client<TransferServiceDefinition>;
  /** The connection `client` and `raw` use (for a client with other options). */
  connection: ClientConnection;
  close(): Promise<void>;
}

/** Starts the transfer service over `createMemoryTransport()` with `codec`. */
export async function memoryRig(
  codec: Codec,
  options: Partial<TransferHandlersOptions> = {},
): Promise<MemoryRig> {
  const tmp = tmpDir();
  const root = join(tmp.dir, "root");
  const local = join(tmp.dir, "local");
  mkdirSync(root);
  mkdirSync(local);
  const transport = createMemoryTransport();
  const server = transport.createServer();
  server.addService(TransferService, createTransferHandlers({ root, ...options }), { codec });
  await server.listen();
  const connection = await transport.connect();
  return {
    root,
    local,
    // The resume tests use files below the default resumeFromBytes (4 MiB): this client asks
    // for a partial upload whatever the size (the default is tested in transfer.test.ts).
    client: createTransferClient({ connection, codec, resumeFromBytes: 0 }),
    raw: connection.client(TransferService, { codec }),
    connection,
    async close() {
      await connection.close();
      await server.close({ graceMs: 100 });
      tmp.cleanup();
    },
  };
}

/** Polls status until no upload of `name` is active (the server has seen the call end). */
export async function waitIdle(rig: { client: TransferClient }, name: string) {
  for (let i = 0; i < 200; i++) {
    const st = await rig.client.status(name);
    if (!st.active) return st;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`upload of ${name} still active`);
}

/** A transfer server in another process (the CLI, raw codec, no fsync) and a uds client of it. */
export interface ProcessRig {
  /** The temporary directory (the server's root is `root` in it). */
  readonly dir: string;
  readonly client: TransferClient;
  /** Closes the connection, stops the server and removes the directory. */
  close(): Promise<void>;
}

/** Starts a {@link ProcessRig} whose client sends and asks for `chunkBytes` chunks. */
export async function processRig(chunkBytes: number): Promise<ProcessRig> {
  const tmp = tmpDir();
  const root = join(tmp.dir, "root");
  const address = join(tmp.dir, "t.sock");
  mkdirSync(root);
  const cli = fileURLToPath(new URL("../../src/cli/cli.ts", import.meta.url));
  const server = await startServerProcess(
    cli,
    ["serve", "--root", root, "--address", address, "--codec", "raw", "--durable", "none"],
    { readyPrefix: "serving" },
  );
  const connection = await createUdsTransport({ address }).connect();
  const client = createTransferClient({ connection, codec: transferCodec("raw"), chunkBytes });
  return {
    dir: tmp.dir,
    client,
    async close() {
      await connection.close();
      await server.stop();
      tmp.cleanup();
    },
  };
}
