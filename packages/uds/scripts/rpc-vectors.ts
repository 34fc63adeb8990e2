/**
 * Prints the RPC test vectors of PROTOCOL.md §5.9 from the real encoders. Run:
 * `node --import tsx packages/uds/scripts/rpc-vectors.ts` and paste the output into §5.9.
 */
import { encodeMessage } from "@nearwire/conformance";
import { Code, DEFAULT_MAX_MESSAGE_BYTES } from "@nearwire/core";
import {
  ENVELOPE_HEADROOM_BYTES,
  encodeCallId,
  encodeCancel,
  encodeCredit,
  encodeRequest,
  encodeStatus,
  FLAG_END_STREAM,
  FrameType,
} from "@nearwire/core/protocol";
import { encodeFrame, encodeHello, PROTOCOL_VERSION } from "@nearwire/frame";

const utf8 = new TextEncoder();
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const frameHex = (type: number, p: Uint8Array) => {
  const f = hex(encodeFrame(type, p));
  return `${f.slice(0, 8)} ${f.slice(8, 10)} ${f.slice(10, -8)} ${f.slice(-8)}`.replace("  ", " ");
};
function block(lines: string[]): void {
  console.log(["```", ...lines, "```", ""].join("\n"));
}
const method = "/nearwire.example.Greeter/Say";
const req = utf8.encode('{"name":"Ada"}');
const res = utf8.encode('{"text":"hello, Ada"}');

const reqPayload = encodeRequest(1, FLAG_END_STREAM, 0, utf8.encode(method), undefined, req);
block([
  "vector: rpc-unary-request",
  "type: 0x10",
  "call-id: 1",
  "flags: 0x03",
  "timeout-ms: 0",
  `method: ${method}`,
  'message-text: {"name":"Ada"}',
  `payload: ${hex(reqPayload)}`,
  `frame: ${frameHex(FrameType.Request, reqPayload)}`,
]);
const okPayload = encodeStatus(1, Code.OK, "", undefined, res);
block([
  "vector: rpc-unary-response",
  "type: 0x13",
  "call-id: 1",
  "flags: 0x02",
  "code: 0",
  "detail:",
  'message-text: {"text":"hello, Ada"}',
  `payload: ${hex(okPayload)}`,
  `frame: ${frameHex(FrameType.Status, okPayload)}`,
]);
const md = { authorization: "Bearer t0k" };
const mdPayload = encodeRequest(7, FLAG_END_STREAM, 250, utf8.encode(method), md, req);
block([
  "vector: rpc-request-deadline-metadata",
  "type: 0x10",
  "call-id: 7",
  "flags: 0x07",
  "timeout-ms: 250",
  `method: ${method}`,
  "metadata-authorization: Bearer t0k",
  'message-text: {"name":"Ada"}',
  `payload: ${hex(mdPayload)}`,
  `frame: ${frameHex(FrameType.Request, mdPayload)}`,
]);
const errPayload = encodeStatus(
  7,
  Code.NotFound,
  "no user Ada",
  { "retry-after-ms": "100" },
  undefined,
);
block([
  "vector: rpc-error-status",
  "type: 0x13",
  "call-id: 7",
  "flags: 0x04",
  "code: 5",
  "detail: no user Ada",
  "trailer-retry-after-ms: 100",
  `payload: ${hex(errPayload)}`,
  `frame: ${frameHex(FrameType.Status, errPayload)}`,
]);
const unimpl = encodeStatus(
  2,
  Code.Unimplemented,
  "method /nearwire.example.Greeter/Nope not found",
  undefined,
  undefined,
);
block([
  "vector: rpc-unimplemented",
  "type: 0x13",
  "call-id: 2",
  "flags: 0x00",
  "code: 12",
  "detail: method /nearwire.example.Greeter/Nope not found",
  `payload: ${hex(unimpl)}`,
  `frame: ${frameHex(FrameType.Status, unimpl)}`,
]);
for (const [name, type, p, extra] of [
  ["rpc-message", FrameType.Message, encodeMessage(3, req), ['message-text: {"name":"Ada"}']],
  ["rpc-end", FrameType.End, encodeCallId(3), []],
  ["rpc-cancel", FrameType.Cancel, encodeCancel(3, Code.Canceled), ["code: 1"]],
  ["rpc-credit", FrameType.Credit, encodeCredit(3, 16), ["credit: 16"]],
] as const) {
  block([
    `vector: ${name}`,
    `type: 0x${type.toString(16)}`,
    "call-id: 3",
    ...extra,
    `payload: ${hex(p)}`,
    `frame: ${frameHex(type, p)}`,
  ]);
}
// A whole unary exchange as bytes on the wire, client side then server side.
const clientHello = encodeFrame(
  FrameType.Hello,
  encodeHello({
    version: PROTOCOL_VERSION,
    maxFrameBytes: DEFAULT_MAX_MESSAGE_BYTES + ENVELOPE_HEADROOM_BYTES,
  }),
);
const clientBytes = Buffer.concat([clientHello, encodeFrame(FrameType.Request, reqPayload)]);
const serverBytes = Buffer.concat([clientHello, encodeFrame(FrameType.Status, okPayload)]);
block([
  "vector: rpc-unary-exchange",
  `method: ${method}`,
  `client-stream: ${hex(clientBytes)}`,
  `server-stream: ${hex(serverBytes)}`,
]);
