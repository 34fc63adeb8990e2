import assert from "node:assert/strict";
import { existsSync, lstatSync } from "node:fs";
import { after, describe, it } from "node:test";
import { Code } from "@nearwire/core";
import { createUdsChannelProvider } from "../src/index.js";
import { abstractName, assertCode, record, rejection, tempDir } from "./support/channels.js";

const tmp = tempDir();
after(() => tmp.cleanup());

// Address parsing and the socket-file lifecycle (stale, live, non-socket, mode, length, umask)
// are @nearwire/socket's and tested there; these check that the uds provider passes them on.
describe("listener", () => {
  it("socket file mode is 0600 by default and socketMode sets it; the file goes on close", async () => {
    for (const [mode, want] of [
      [undefined, 0o600],
      [0o660, 0o660],
    ] as const) {
      const path = tmp.path(`mode-${want.toString(8)}.sock`);
      const opts = mode === undefined ? { address: path } : { address: path, socketMode: mode };
      const listener = await createUdsChannelProvider(opts).listen(() => {});
      assert.equal(lstatSync(path).mode & 0o777, want);
      assert.equal(listener.address, path);
      await listener.close();
      assert.equal(existsSync(path), false);
    }
  });

  it("backlog option: accepted, and a bad value is rejected", async () => {
    const path = tmp.path("backlog.sock");
    const provider = createUdsChannelProvider({ address: path, backlog: 1 });
    const listener = await provider.listen((c) => record(c));
    const a = await provider.connect();
    const b = await provider.connect();
    await Promise.all([a.close(), b.close()]);
    await listener.close();
    assertCode(
      await rejection(
        createUdsChannelProvider({ address: tmp.path("bad.sock"), backlog: 0 }).listen(() => {}),
      ),
      Code.InvalidArgument,
    );
  });

  it("closing the listener keeps accepted channels open", async () => {
    const path = tmp.path("keep.sock");
    const provider = createUdsChannelProvider({ address: path });
    const accepted: import("@nearwire/core").Channel[] = [];
    const listener = await provider.listen((c) => {
      accepted.push(c);
      c.start({ onFrame: (t, p) => c.send(t, p), onClose() {} });
    });
    const client = await provider.connect();
    const rec = record(client);
    await listener.close();
    assert.equal(existsSync(path), false);
    client.send(0x80, new Uint8Array([5]));
    await rec.until(() => rec.frames.length === 1, 5000, "echo after listener close");
    assertCode(await rejection(provider.connect()), Code.Unavailable);
    await client.close();
    await Promise.all(accepted.map((c) => c.close()));
  });

  it("abstract name: listen, connect, address in use", async () => {
    const name = abstractName();
    const provider = createUdsChannelProvider({ address: name });
    assert.equal(provider.name, "uds");
    const listener = await provider.listen((c) =>
      c.start({ onFrame: (t, p) => c.send(t, p), onClose() {} }),
    );
    assert.equal(listener.address, name);
    assertCode(
      await rejection(createUdsChannelProvider({ address: name }).listen(() => {})),
      Code.AlreadyExists,
      "address-in-use",
    );
    const alt = `@${name.slice("unix-abstract:".length)}`;
    const ch = await createUdsChannelProvider({ address: alt }).connect();
    const rec = record(ch);
    ch.send(0x80, new Uint8Array([1]));
    await rec.until(() => rec.frames.length === 1, 5000, "echo");
    await ch.close();
    await listener.close();
  });

  it("tcp: port 0 reports the real port; port in use → ALREADY_EXISTS address-in-use", async () => {
    const provider = createUdsChannelProvider({ address: "tcp:127.0.0.1:0" });
    assert.equal(provider.name, "tcp");
    const listener = await provider.listen((c) =>
      c.start({ onFrame: (t, p) => c.send(t, p), onClose() {} }),
    );
    const m = /^tcp:127\.0\.0\.1:(\d+)$/.exec(listener.address);
    assert.ok(m !== null && Number(m[1]) > 0, listener.address);
    assertCode(
      await rejection(createUdsChannelProvider({ address: listener.address }).listen(() => {})),
      Code.AlreadyExists,
      "address-in-use",
    );
    const bare = listener.address.slice(4); // host:port form
    const ch = await createUdsChannelProvider({ address: bare }).connect();
    assert.equal(ch.peer, listener.address);
    const rec = record(ch);
    ch.send(0x80, new Uint8Array([1]));
    await rec.until(() => rec.frames.length === 1, 5000, "echo");
    await ch.close();
    await listener.close();
  });
});
