import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  Code,
  createCodec,
  defineService,
  type MessageCodec,
  messageType,
  NearwireError,
  type Server,
  unary,
} from "@nearwire/core";
import { parseAddress } from "@nearwire/socket";
import { createGrpcTransport, type GrpcTlsOptions, grpcTarget } from "../src/index.js";
import { tempDir } from "./support/servers.js";

/** Bytes in, bytes out: what any stock client can call without a schema. */
const passThrough: MessageCodec<Uint8Array> = {
  encode: (v) => v,
  decode: (b) => Uint8Array.prototype.slice.call(b),
  decodesInPlace: false,
};
const Bytes = messageType<Uint8Array>("tls.Bytes");
const bytesCodec = createCodec("bytes", { "tls.Bytes": passThrough as MessageCodec<unknown> });
const Who = defineService("nearwire.tls.Who", {
  echo: unary(Bytes, Bytes),
  subject: unary(Bytes, Bytes),
});

describe("grpc-uds over TLS and mutual TLS (TCP loopback)", () => {
  const tmp = tempDir();
  const pem = (name: string) => readFileSync(`${tmp.dir}/${name}`);
  let server: Server;
  let serverTls: GrpcTlsOptions;
  let clientTls: GrpcTlsOptions;

  before(async () => {
    const sh = (cmd: string) =>
      execFileSync("bash", ["-e", "-c", cmd], { cwd: tmp.dir, stdio: "ignore" });
    const ca = (name: string) =>
      sh(
        `openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=${name}" -keyout ${name}.key -out ${name}.crt`,
      );
    const leaf = (name: string, subject: string, caName: string, ext = "") => {
      sh(
        `openssl req -newkey rsa:2048 -nodes -subj "${subject}" -keyout ${name}.key -out ${name}.csr`,
      );
      sh(
        `openssl x509 -req -in ${name}.csr -CA ${caName}.crt -CAkey ${caName}.key -CAcreateserial -days 2 ${ext} -out ${name}.crt`,
      );
    };
    ca("ca");
    ca("other-ca");
    sh(`printf "subjectAltName=DNS:localhost,IP:127.0.0.1" > san.ext`);
    leaf("server", "/CN=localhost", "ca", "-extfile san.ext");
    leaf("client", "/O=acme/CN=worker-1", "ca");
    leaf("stranger", "/CN=stranger", "other-ca");
    serverTls = { key: pem("server.key"), cert: pem("server.crt"), ca: pem("ca.crt") };
    clientTls = {
      ca: pem("ca.crt"),
      key: pem("client.key"),
      cert: pem("client.crt"),
      serverName: "localhost",
    };
    server = createGrpcTransport({ address: "127.0.0.1:0", tls: serverTls }).createServer();
    server.addService(
      Who,
      {
        echo: (b) => b,
        subject: (_b, ctx) => new TextEncoder().encode(ctx.peer.subject ?? "none"),
      },
      { codec: bytesCodec },
    );
    await server.listen();
  });
  after(async () => {
    await server?.close({ graceMs: 100 });
    tmp.cleanup();
  });

  async function call(tls: GrpcTlsOptions | undefined): Promise<string> {
    const options =
      tls === undefined
        ? { address: server.address, connectTimeoutMs: 3000 }
        : { address: server.address, connectTimeoutMs: 3000, tls };
    const connection = await createGrpcTransport(options).connect();
    try {
      const who = connection.client(Who, { codec: bytesCodec });
      assert.deepEqual([...(await who.echo(new Uint8Array([1, 2, 3])))], [1, 2, 3]);
      return new TextDecoder().decode(await who.subject(new Uint8Array(0)));
    } finally {
      await connection.close();
    }
  }

  async function refused(tls: GrpcTlsOptions | undefined): Promise<void> {
    await assert.rejects(call(tls), (e: NearwireError) => {
      assert.ok(e instanceof NearwireError, String(e));
      assert.equal(e.code, Code.Unavailable, e.message);
      return true;
    });
  }

  it("a client with a certificate signed by the server's CA is served; ctx.peer.subject names it", async () => {
    assert.equal(await call(clientTls), "O=acme, CN=worker-1");
  });

  it("no client certificate, a certificate of another CA, or plaintext: UNAVAILABLE; others still served", async () => {
    await refused({ ca: pem("ca.crt"), serverName: "localhost" });
    await refused({ ...clientTls, key: pem("stranger.key"), cert: pem("stranger.crt") });
    await refused(undefined);
    assert.equal(await call(clientTls), "O=acme, CN=worker-1");
  });

  it("a client that does not trust the server's CA, or expects another name, refuses the server", async () => {
    await refused({ ...clientTls, ca: pem("other-ca.crt") });
    await refused({ ...clientTls, serverName: "elsewhere.example" });
    assert.equal(await call(clientTls), "O=acme, CN=worker-1");
  });

  it("a stock Python grpcio client calls over mutual TLS (and is refused without its certificate)", async () => {
    const client = fileURLToPath(new URL("./fixtures/tls-client.py", import.meta.url));
    const target = grpcTarget(parseAddress(server.address));
    const run = async (key: string, cert: string) =>
      JSON.parse(
        (
          await promisify(execFile)(
            "/usr/bin/python3",
            [client, target, `${tmp.dir}/ca.crt`, key, cert, "/nearwire.tls.Who/echo"],
            { timeout: 30_000 },
          )
        ).stdout,
      );
    assert.deepEqual(await run(`${tmp.dir}/client.key`, `${tmp.dir}/client.crt`), {
      reply: "0102030405",
    });
    assert.deepEqual(await run("", ""), { code: Code.Unavailable });
  });
});
