/**
 * A conformance client run as a child process by the peer-death suite, to be killed:
 *
 * ```
 * node [--import tsx] client-main.(ts|js) <config JSON>
 * ```
 *
 * config: {@link ClientMainConfig}. Connects, starts one call of each streaming kind and a
 * unary `sleep`, all tagged `tag` (stats), prints `STARTED` and waits to be killed (at most
 * 60 s, then exits 4).
 */
import { conformanceService } from "./conformance-service.js";
import { type CodecRef, loadCodec, loadFactory } from "./module-refs.js";

/** The JSON argument of the client child. */
export interface ClientMainConfig {
  factoryModule: string;
  address: string;
  codec?: CodecRef;
  tag: string;
}

const MAX_LIFETIME_MS = 60_000;

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "") as ClientMainConfig;
  const factory = await loadFactory(config.factoryModule);
  const codec = await loadCodec(config.codec);
  const transport = await factory.createTransport(config.address);
  const conn = await transport.connect();
  const client = conn.client(conformanceService, { codec });
  const { tag } = config;
  const hold = new Promise<void>((resolve) => setTimeout(resolve, MAX_LIFETIME_MS));
  async function* open() {
    yield { seq: 0, text: "", note: "" };
    await hold;
  }
  client.sleep({ tag, ms: MAX_LIFETIME_MS }).catch(() => undefined);
  const stream = client
    .produce({ tag, n: 1_000_000, payloadBytes: 64, failAfter: 0, failCode: 0 })
    [Symbol.asyncIterator]();
  await stream.next();
  client.sum(open(), { metadata: { "x-tag": tag } }).catch(() => undefined);
  const bidi = client.bidi(open(), { metadata: { "x-tag": tag } })[Symbol.asyncIterator]();
  await bidi.next();
  process.stdout.write("STARTED\n");
  await hold;
  process.exit(4);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `client-main failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
