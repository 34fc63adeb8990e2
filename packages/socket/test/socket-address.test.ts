import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, type NearwireError } from "@nearwire/core";
import { formatTcp, MAX_SOCKET_PATH_BYTES, netPath, parseAddress } from "../src/index.js";

describe("parseAddress", () => {
  it("accepts every documented form and gives its canonical form", () => {
    const cases: [string, object][] = [
      ["/run/x.sock", { kind: "path", path: "/run/x.sock", address: "/run/x.sock" }],
      ["unix:/run/x.sock", { kind: "path", path: "/run/x.sock", address: "/run/x.sock" }],
      ["unix:///run/x.sock", { kind: "path", path: "/run/x.sock", address: "/run/x.sock" }],
      ["unix:rel/x.sock", { kind: "path", path: "rel/x.sock", address: "unix:rel/x.sock" }],
      ["unix-abstract:svc", { kind: "abstract", name: "svc", address: "unix-abstract:svc" }],
      ["@svc", { kind: "abstract", name: "svc", address: "unix-abstract:svc" }],
      [
        "tcp:127.0.0.1:7000",
        { kind: "tcp", host: "127.0.0.1", port: 7000, address: "tcp:127.0.0.1:7000" },
      ],
      ["127.0.0.1:0", { kind: "tcp", host: "127.0.0.1", port: 0, address: "tcp:127.0.0.1:0" }],
      [
        "localhost:65535",
        { kind: "tcp", host: "localhost", port: 65535, address: "tcp:localhost:65535" },
      ],
      ["tcp:[::1]:9", { kind: "tcp", host: "::1", port: 9, address: "tcp:[::1]:9" }],
      ["[::1]:9", { kind: "tcp", host: "::1", port: 9, address: "tcp:[::1]:9" }],
    ];
    for (const [input, want] of cases) {
      const parsed = parseAddress(input);
      assert.deepEqual(parsed, want, input);
      assert.deepEqual(parseAddress(parsed.address), parsed, `${input}: canonical form reparses`);
    }
  });

  it("rejects malformed addresses with INVALID_ARGUMENT", () => {
    for (const bad of [
      "",
      "unix:",
      "unix://rel",
      "@",
      "unix-abstract:",
      "x.sock",
      "host:",
      "host:70000",
      "tcp:host",
      "a b:1",
      "/a\0b",
    ]) {
      assert.throws(
        () => parseAddress(bad),
        (e: NearwireError) => e.code === Code.InvalidArgument && e.reason === undefined,
        bad,
      );
    }
  });

  it(`paths and abstract names over ${MAX_SOCKET_PATH_BYTES} bytes → path-too-long`, () => {
    const ok = `/${"a".repeat(MAX_SOCKET_PATH_BYTES - 1)}`;
    assert.equal(parseAddress(ok).kind, "path");
    assert.equal(parseAddress(`@${"n".repeat(MAX_SOCKET_PATH_BYTES)}`).kind, "abstract");
    for (const bad of [
      `${ok}a`,
      `unix:${ok}a`,
      `@${"n".repeat(MAX_SOCKET_PATH_BYTES + 1)}`,
      `unix-abstract:${"n".repeat(MAX_SOCKET_PATH_BYTES + 1)}`,
      `/${"é".repeat(54)}`,
    ]) {
      assert.throws(
        () => parseAddress(bad),
        (e: NearwireError) => e.code === Code.InvalidArgument && e.reason === "path-too-long",
        bad,
      );
    }
  });

  it("netPath gives node:net's path; a TCP address has none", () => {
    assert.equal(netPath(parseAddress("/run/x.sock")), "/run/x.sock");
    assert.equal(netPath(parseAddress("@svc")), "\0svc");
    assert.throws(
      () => netPath(parseAddress("tcp:127.0.0.1:1")),
      (e: NearwireError) => e.code === Code.InvalidArgument,
    );
    assert.equal(formatTcp("::1", 80), "tcp:[::1]:80");
  });
});
