// A file transfer server and client (@nearwire/transfer's library API) over a Unix socket: the
// client uploads a file, asks its status, downloads it back and checks the SHA-256.
//
//   node --import tsx transfer/transfer.ts serve /tmp/files     # terminal 1 (Ctrl-C stops it)
//   node --import tsx transfer/transfer.ts client ./some-file   # terminal 2
//
// TRANSFER_ADDRESS sets the socket path. Without a file, the client sends 3 MiB of random bytes.
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import {
  createTransferClient,
  createTransferHandlers,
  loadTransferCodec,
  TransferService,
} from "@nearwire/transfer";
import { createUdsTransport } from "@nearwire/uds";

const transport = createUdsTransport({
  address: process.env.TRANSFER_ADDRESS ?? "/tmp/nearwire-transfer-example.sock",
});
const codec = await loadTransferCodec("msgpack"); // the same on both sides
const [mode, path] = process.argv.slice(2);

if (mode === "serve" && path !== undefined) {
  mkdirSync(path, { recursive: true });
  const server = transport.createServer();
  server.addService(TransferService, createTransferHandlers({ root: path }), { codec });
  await server.listen();
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => void server.close({ graceMs: 1000 }));
  console.log(`serving on ${server.address}, root ${path}`);
} else if (mode === "client") {
  const work = mkdtempSync(join(tmpdir(), "nearwire-transfer-example-"));
  try {
    let source = path;
    if (source === undefined) {
      source = join(work, "random.bin");
      writeFileSync(source, randomBytes(3 * 1024 * 1024));
    }
    const name = `uploads/${basename(source)}`;
    await using connection = await transport.connect();
    const client = createTransferClient({ connection, codec });

    let reported = 0;
    const up = await client.upload(source, name, {
      onProgress: ({ transferredBytes }) => {
        reported = transferredBytes; // after each chunk: drive a progress bar from here
      },
    });
    console.log(`uploaded ${name}: ${up.sizeBytes} B (progress reached ${reported} B)`);
    const status = await client.status(name);
    console.log(`status: committed ${status.committed}, ${status.sizeBytes} B`);

    const copy = join(work, "copy.bin");
    const down = await client.download(name, copy);
    const sha = createHash("sha256").update(readFileSync(copy)).digest("hex");
    console.log(
      `downloaded ${down.sizeBytes} B, sha256 ${sha === up.sha256 ? "matches" : "DIFFERS"}`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
} else {
  console.error("usage: transfer.ts serve <root-dir> | client [file]");
  process.exit(2);
}
