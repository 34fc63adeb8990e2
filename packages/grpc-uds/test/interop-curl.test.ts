/**
 * Interop matrix, curl: `curl --http2-prior-knowledge` (HTTP/2 without TLS, no gRPC library)
 * against the nearwire server over a Unix socket path, with hand-made 5-byte-prefixed bodies
 * (`--data-binary @file`). curl 7.88 writes HTTP/2 trailers into its `-D` header dump after the
 * headers, so `grpc-status`, `grpc-message`, `grpc-status-details-bin` and the echoed metadata
 * are read from there; the response body is checked byte for byte. Skipped, with the reason,
 * when curl is missing or has no HTTP/2.
 */
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { gunzipSync, gzipSync } from "node:zlib";
import { Code, type Server } from "@nearwire/core";
import { createGrpcTransport } from "../src/index.js";
import {
  ALL_BYTES,
  bytesCodec,
  Echo,
  echoHandlers,
  failRequest,
  patternBytes,
  statusDetails,
  statusMessage,
} from "./support/interop/echo-service.js";
import { FOUR_MIB, MAX_MESSAGE } from "./support/interop/peers.js";
import { tempDir } from "./support/servers.js";

function curlMissing(): string | undefined {
  const v = spawnSync("curl", ["--version"], { encoding: "utf8" });
  if (v.status !== 0) return "curl not found (apt-get install curl)";
  if (!/\bHTTP2\b/.test(v.stdout)) return `this curl has no HTTP/2: ${v.stdout.split("\n")[0]}`;
  return undefined;
}

/** `flag + length + message` for each message. */
function frame(messages: readonly Uint8Array[], compressed = false): Buffer {
  return Buffer.concat(
    messages.map((m) => {
      const prefix = Buffer.alloc(5);
      prefix[0] = compressed ? 1 : 0;
      prefix.writeUInt32BE(m.length, 1);
      return Buffer.concat([prefix, m]);
    }),
  );
}

/** The messages of a response body. */
function unframe(body: Buffer): { compressed: boolean; message: Buffer }[] {
  const out: { compressed: boolean; message: Buffer }[] = [];
  let at = 0;
  while (at < body.length) {
    assert.ok(at + 5 <= body.length, `truncated message prefix at ${at} of ${body.length}`);
    const n = body.readUInt32BE(at + 1);
    out.push({ compressed: body[at] === 1, message: body.subarray(at + 5, at + 5 + n) });
    at += 5 + n;
  }
  return out;
}

interface CurlResponse {
  /** Header and trailer fields, in order (`:status` as curl's status line is left out). */
  fields: [string, string][];
  body: Buffer;
  ms: number;
}

const field = (r: CurlResponse, name: string): string | undefined =>
  r.fields.find(([k]) => k === name)?.[1];

let seq = 0;

describe("interop: curl --http2-prior-knowledge → nearwire server (unix socket path)", () => {
  const tmp = tempDir();
  const why = curlMissing();
  let server: Server | undefined;
  let socket = "";

  /**
   * One POST of `body` to `method`; resolves with curl's header dump and body. `body` null: a
   * POST without a body (END_STREAM on its HEADERS), for requests the server answers from their
   * headers alone. With a body, such an answer can beat curl's upload, and curl 7.88 then never
   * ends the transfer (it sends the body, the stream closes, curl keeps waiting; a
   * RST_STREAM(NO_ERROR) after the answer instead makes it report a framing error). The
   * server's side of that race is tested with a raw client in hostile-peers.test.ts.
   */
  function curl(
    method: string,
    body: Buffer | null,
    headers: Record<string, string> = {},
  ): Promise<CurlResponse> {
    const n = seq++;
    const req = join(tmp.dir, `req-${n}.bin`);
    const dump = join(tmp.dir, `headers-${n}.txt`);
    const out = join(tmp.dir, `body-${n}.bin`);
    if (body !== null) writeFileSync(req, body);
    const args = [
      "-sS",
      "--http2-prior-knowledge",
      "--max-time",
      "10",
      "--unix-socket",
      socket,
      `http://localhost/nearwire.interop.Echo/${method}`,
      ...(body === null ? ["-X", "POST"] : ["--data-binary", `@${req}`]),
      "-H",
      "content-type: application/grpc",
      "-H",
      "te: trailers",
      "-D",
      dump,
      "-o",
      out,
    ];
    for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
    const start = Date.now();
    return new Promise((resolve, reject) => {
      execFile("curl", args, { timeout: 15_000 }, (err, _stdout, stderr) => {
        if (err !== null) {
          reject(new Error(`curl ${method}: ${err.message} ${stderr}`));
          return;
        }
        const fields: [string, string][] = [];
        for (const line of readFileSync(dump, "utf8").split(/\r?\n/)) {
          const colon = line.indexOf(":");
          if (line.startsWith("HTTP/") || colon <= 0) continue;
          fields.push([line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()]);
        }
        resolve({ fields, body: readFileSync(out), ms: Date.now() - start });
      });
    });
  }

  before(async () => {
    if (why !== undefined) return;
    server = createGrpcTransport({
      address: `unix:${tmp.dir}/nw.sock`,
      maxMessageBytes: MAX_MESSAGE,
    }).createServer();
    server.addService(Echo, echoHandlers(), { codec: bytesCodec });
    await server.listen();
    socket = server.address;
  });
  after(async () => {
    await server?.close({ graceMs: 100 });
    tmp.cleanup();
  });

  it("unary: body byte for byte, grpc-status 0 and metadata (text, -bin 0x00..0xff) in the trailers", async (t) => {
    if (why !== undefined) return t.skip(why);
    const request = frame([Buffer.from("hello from curl")]);
    const r = await curl("Unary", request, {
      "x-text": "text-value",
      "x-data-bin": Buffer.from(ALL_BYTES).toString("base64"),
    });
    assert.deepEqual(r.body, request, "response body = the request's framed message");
    assert.equal(field(r, "content-type"), "application/grpc");
    assert.equal(field(r, "grpc-status"), "0", JSON.stringify(r.fields));
    assert.equal(field(r, "x-echo-text"), "text-value");
    const bin = field(r, "x-echo-bin");
    assert.ok(bin !== undefined, JSON.stringify(r.fields));
    assert.deepEqual(Buffer.from(bin, "base64"), Buffer.from(ALL_BYTES));
  });

  it("server streaming, client streaming and bidi (half-duplex) bodies", async (t) => {
    if (why !== undefined) return t.skip(why);
    const ss = await curl("ServerStream", frame([Uint8Array.of(3)]));
    assert.equal(field(ss, "grpc-status"), "0");
    assert.deepEqual(
      unframe(ss.body).map((m) => m.message.toString()),
      ["msg-0", "msg-1", "msg-2"],
    );
    const parts = ["a", "bc", "def"].map((s) => Buffer.from(s));
    const cs = await curl("ClientStream", frame(parts));
    assert.equal(field(cs, "grpc-status"), "0");
    assert.deepEqual(cs.body, frame([Buffer.from("abcdef")]));
    const bd = await curl("Bidi", frame(parts));
    assert.equal(field(bd, "grpc-status"), "0");
    assert.deepEqual(bd.body, frame(parts));
  });

  let failResponses: Promise<CurlResponse[]> | undefined;
  const failAll = () => {
    failResponses ??= Promise.all(
      Array.from({ length: 16 }, (_, i) => curl("Fail", frame([failRequest(i + 1)]))),
    );
    return failResponses;
  };

  it("every status code 1..16 with its grpc-message percent-encoded", async (t) => {
    if (why !== undefined) return t.skip(why);
    const problems: string[] = [];
    (await failAll()).forEach((r, i) => {
      const code = i + 1;
      if (field(r, "grpc-status") !== String(code))
        problems.push(`code ${code}: grpc-status ${field(r, "grpc-status")}`);
      const raw = field(r, "grpc-message") ?? "";
      // the spec's encoding: UTF-8, bytes outside 0x20..0x7E and '%' as %XX
      if (!/^[\x20-\x7e]*$/.test(raw) || decodeURIComponent(raw) !== statusMessage(code))
        problems.push(`code ${code}: grpc-message ${JSON.stringify(raw)}`);
      if (/%(?![0-9A-F]{2})/.test(raw))
        problems.push(`code ${code}: bare % in ${JSON.stringify(raw)}`);
    });
    assert.deepEqual(problems, [], problems.join("\n"));
  });

  it("every status code 1..16 with its grpc-status-details-bin", async (t) => {
    if (why !== undefined) return t.skip(why);
    const problems: string[] = [];
    (await failAll()).forEach((r, i) => {
      const code = i + 1;
      const details = field(r, "grpc-status-details-bin");
      const expected = Buffer.from(statusDetails(code, statusMessage(code)));
      if (details === undefined || !Buffer.from(details, "base64").equals(expected))
        problems.push(
          `code ${code}: grpc-status-details-bin ${details ?? "missing"} (trailers ${JSON.stringify(r.fields)})`,
        );
    });
    assert.deepEqual(problems, [], problems.slice(0, 3).join("\n"));
  });

  it("deadline enforced by the server: grpc-timeout 200m, no client-side deadline → grpc-status 4", async (t) => {
    if (why !== undefined) return t.skip(why);
    const tag = `curl-dl-${Date.now()}`;
    const r = await curl("Sleep", frame([Buffer.from(`${tag}:5000`)]), { "grpc-timeout": "200m" });
    assert.equal(field(r, "grpc-status"), String(Code.DeadlineExceeded), JSON.stringify(r.fields));
    assert.ok(r.ms < 2000, `answered after ${r.ms} ms`);
    const report = await curl("Report", frame([Buffer.from(tag)]));
    const seen = JSON.parse(unframe(report.body)[0]?.message.toString() ?? "{}") as {
      deadline_ms: number;
      aborted: number;
    };
    assert.ok(seen.deadline_ms > 100 && seen.deadline_ms <= 200, JSON.stringify(seen));
    assert.equal(seen.aborted, Code.DeadlineExceeded, JSON.stringify(seen));
  });

  it("gzip: a gzip-compressed request; a compressed reply names its grpc-encoding", async (t) => {
    if (why !== undefined) return t.skip(why);
    const message = Buffer.alloc(64 * 1024, 0x61);
    const r = await curl("Unary", frame([gzipSync(message)], true), { "grpc-encoding": "gzip" });
    assert.equal(field(r, "grpc-status"), "0", JSON.stringify(r.fields));
    const [reply] = unframe(r.body);
    assert.ok(reply !== undefined);
    if (reply.compressed)
      assert.equal(
        field(r, "grpc-encoding"),
        "gzip",
        `reply flagged compressed, response headers ${JSON.stringify(r.fields)}`,
      );
    assert.deepEqual(reply.compressed ? gunzipSync(reply.message) : reply.message, message);
  });

  it("an unsupported grpc-encoding is UNIMPLEMENTED with grpc-accept-encoding", async (t) => {
    if (why !== undefined) return t.skip(why);
    const r = await curl("Unary", null, { "grpc-encoding": "br" });
    assert.equal(field(r, "grpc-status"), String(Code.Unimplemented), JSON.stringify(r.fields));
    assert.match(field(r, "grpc-accept-encoding") ?? "", /gzip/);
  });

  it("a 4 MiB message each way", async (t) => {
    if (why !== undefined) return t.skip(why);
    const message = Buffer.from(patternBytes(FOUR_MIB));
    const r = await curl("Unary", frame([message]));
    assert.equal(field(r, "grpc-status"), "0", JSON.stringify(r.fields));
    assert.equal(r.body.length, FOUR_MIB + 5);
    assert.ok(r.body.equals(frame([message])), "4 MiB echo differs");
  });

  it("an unknown method is UNIMPLEMENTED", async (t) => {
    if (why !== undefined) return t.skip(why);
    const r = await curl("Nope", null);
    assert.equal(field(r, "grpc-status"), String(Code.Unimplemented), JSON.stringify(r.fields));
  });
});
