import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, lstatSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { bindStreamListener } from "../src/index.js";
import { tempDir } from "./support/sockets.js";

const poller = fileURLToPath(new URL("./fixtures/mode-poller.cjs", import.meta.url));
const REBINDS = 50;
const NOBODY = 65534;

/** A child watching the socket path; `result()` stops it and returns what it printed. */
interface Observer {
  result(): Promise<Record<string, unknown>>;
}

/** Observers still to stop at teardown (a failed assertion must not leave them spinning). */
const observers: Observer[] = [];

/**
 * Starts mode-poller.cjs on `path`: as this uid it records the modes it sees; as uid nobody
 * (`asOtherUid`, root only) it keeps connecting and counts what was accepted.
 */
async function startObserver(path: string, stopFile: string, asOtherUid: boolean) {
  const child: ChildProcess = spawn(
    process.execPath,
    [poller, path, stopFile, ...(asOtherUid ? ["--connect"] : [])],
    { stdio: ["ignore", "pipe", "inherit"], ...(asOtherUid ? { uid: NOBODY, gid: NOBODY } : {}) },
  );
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  const exited = new Promise((r) => child.once("exit", r));
  let result: Promise<Record<string, unknown>> | undefined;
  const observer: Observer = {
    result() {
      result ??= (async () => {
        writeFileSync(stopFile, "");
        await exited;
        rmSync(stopFile, { force: true });
        return JSON.parse(out.trim().split("\n").at(-1) as string);
      })();
      return result;
    },
  };
  observers.push(observer);
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`observer exited ${code}`)));
  });
  return observer;
}

/** Answers "hi" and closes (a peer that already left is fine). */
function answerHi(socket: net.Socket): void {
  socket.on("error", () => {});
  socket.end("hi");
}

function fetchText(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ path });
    let text = "";
    s.on("data", (d) => {
      text += d;
    });
    s.on("end", () => resolve(text));
    s.on("error", reject);
  });
}

describe("socket file mode under umask 000", () => {
  const tmp = tempDir();
  let umask = 0;
  before(() => {
    umask = process.umask(0);
    // Other users may traverse the directory (they still must not reach the socket).
    chmodSync(tmp.dir, 0o755);
  });
  after(async () => {
    process.umask(umask);
    await Promise.allSettled(observers.map((o) => o.result()));
    assert.deepEqual(tmp.cleanup(), [], "files left in the test directory");
  });

  it(`${REBINDS} rebinds: observers only ever see mode 0600, another uid never connects`, async () => {
    const path = tmp.path("race.sock");
    const root = process.getuid?.() === 0;
    const modes = await startObserver(path, tmp.path("stop"), false);
    const other = root ? await startObserver(path, tmp.path("stop-uid"), true) : undefined;
    for (let i = 0; i < REBINDS; i++) {
      const listener = await bindStreamListener(path, { onConnection: answerHi });
      try {
        assert.equal(await fetchText(path), "hi");
      } finally {
        await listener.close();
      }
    }
    const seen = (await modes.result()) as { modes: Record<string, number>; samples: number };
    const tries = (await other?.result()) as { accepted: number; refused: number } | undefined;
    assert.deepEqual(Object.keys(seen.modes), ["600"], JSON.stringify(seen));
    assert.ok(seen.samples > 0, "the observer saw the socket file at least once");
    if (tries !== undefined) {
      assert.equal(tries.accepted, 0, JSON.stringify(tries));
      assert.ok(tries.refused > 0, "the other uid tried");
    }
    assert.equal(existsSync(path), false);
  });

  it("binds from a worker thread (no umask there) with the requested mode", async () => {
    const path = tmp.path("worker.sock");
    const times = 10;
    const modes = await startObserver(path, tmp.path("stop"), false);
    // Workers do not inherit the tsx loader: register it there, then load the fixture.
    const fixture = new URL("./fixtures/worker-rebind.ts", import.meta.url).href;
    const worker = new Worker(
      `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${JSON.stringify(fixture)}); });`,
      { eval: true, workerData: { path, times } },
    );
    let bound = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        worker.on("error", reject);
        worker.on("message", (msg: string) => {
          if (msg === "done") return resolve();
          (async () => {
            assert.equal(msg, path);
            assert.equal(lstatSync(path, { bigint: true }).mode & 0o777n, 0o640n);
            assert.equal(await fetchText(path), "hi");
            bound++;
            worker.postMessage("next");
          })().catch(reject);
        });
      });
    } finally {
      await worker.terminate();
    }
    assert.equal(bound, times);
    const seen = (await modes.result()) as { modes: Record<string, number> };
    assert.deepEqual(Object.keys(seen.modes), ["640"], JSON.stringify(seen));
    assert.equal(existsSync(path), false);
  });
});
