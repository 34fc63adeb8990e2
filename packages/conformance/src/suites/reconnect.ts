/**
 * Suite: a reconnecting client (`createReconnectingConnection` from core) across a server
 * killed with SIGKILL and restarted on the same address: every call settles once, new calls
 * succeed on the same connection, waitForReady, retry policies and giving up.
 */
import assert from "node:assert/strict";
import { describe } from "node:test";
import {
  Code,
  codeName,
  createReconnectingConnection,
  type ReconnectingConnection,
  type ReconnectOptions,
} from "@nearwire/core";
import { conformanceService } from "../conformance-service.js";
import type { ServerHandle, SuiteHarness } from "../suite-harness.js";
import { assertNearwireError, expectCode, hangGuard, sleep, waitFor } from "../wait.js";
import { newTag } from "./shared-server.js";

const S = "reconnect";

/** How long a call may take to settle after the server died: a hang guard. */
const PROMPT_MS = 5000;

/** Small delays, so that a restart is noticed in tens of ms rather than gRPC's seconds. */
const FAST: ReconnectOptions = { backoff: { initialMs: 20, maxMs: 200 }, connectTimeoutMs: 5000 };

const SLEEP_PATH = `/${conformanceService.typeName}/sleep`;

/** Loops of concurrent calls in the load test, and successes wanted before and after. */
const LOOPS = 8;
const OK_BEFORE = 40;
const OK_AFTER = 40;

type Outcome = { tag: string; ok: boolean; settled: number; code?: string };

/** A reconnecting client to one address of the harness's transport, closed by `finally`. */
async function reconnecting(
  h: SuiteHarness,
  address: string,
  options: ReconnectOptions,
): Promise<{ conn: ReconnectingConnection; client: ReturnType<typeof clientOf> }> {
  const conn = createReconnectingConnection(await h.transport(address), options);
  return { conn, client: clientOf(h, conn) };
}

function clientOf(h: SuiteHarness, conn: ReconnectingConnection) {
  return conn.client(conformanceService, { codec: h.codec });
}

/** Per-tag handler starts on `server`, via a plain connection of its own. */
async function startsOn(h: SuiteHarness, server: ServerHandle, tags: string[]) {
  const c = await h.connect(server.address);
  try {
    const counts = new Map<string, number>();
    for (let i = 0; i < tags.length; i += 64) {
      const batch = tags.slice(i, i + 64);
      const replies = await Promise.all(batch.map((tag) => c.client.stats({ tag })));
      for (const [j, tag] of batch.entries()) counts.set(tag, replies[j]?.tagStarted ?? -1);
    }
    return counts;
  } finally {
    await h.disconnect(c);
  }
}

/** Reconnect tests: a server killed and restarted under a client that reconnects. */
export function reconnectSuite(h: SuiteHarness): void {
  describe(S, () => {
    h.test(
      S,
      "under load across a restart every call settles once, answered or UNAVAILABLE; the same connection carries on",
      async () => {
        const first = await h.startServer();
        let second: ServerHandle | undefined;
        const { conn, client } = await reconnecting(h, first.address, FAST);
        const base = newTag("load");
        const outcomes: Outcome[] = [];
        let ok = 0;
        let stop = false;
        const loop = async (loopId: number) => {
          for (let seq = 0; !stop; seq++) {
            const o: Outcome = { tag: `${base}-${loopId}-${seq}`, ok: false, settled: 0 };
            outcomes.push(o);
            await client.sleep({ tag: o.tag, ms: 2 }).then(
              (reply) => {
                o.settled++;
                assert.equal(reply.tag, o.tag, "a reply answers its own call");
                o.ok = true;
                ok++;
              },
              (err: unknown) => {
                o.settled++;
                assertNearwireError(err, `call ${o.tag}`);
                o.code = codeName(err.code);
              },
            );
            if (!o.ok) await sleep(5);
          }
        };
        try {
          const loops = Promise.all(Array.from({ length: LOOPS }, (_, i) => loop(i)));
          await waitFor("calls before the restart", () => (ok >= OK_BEFORE ? true : undefined), {
            timeoutMs: 10_000,
          });
          await first.kill();
          const killedAt = outcomes.length;
          second = await h.startServer({ address: first.address });
          const okAtRestart = ok;
          await waitFor(
            "calls after the restart",
            () => (ok >= okAtRestart + OK_AFTER ? true : undefined),
            { timeoutMs: 15_000 },
          );
          stop = true;
          await hangGuard(loops, PROMPT_MS, "the call loops");
          assert.ok(outcomes.length > killedAt, "calls were made after the kill");
          for (const o of outcomes) {
            assert.equal(o.settled, 1, `call ${o.tag} settled ${o.settled} times`);
            if (!o.ok) assert.equal(o.code, codeName(Code.Unavailable), `call ${o.tag}`);
          }
          const counts = await startsOn(
            h,
            second,
            outcomes.map((o) => o.tag),
          );
          for (const o of outcomes) {
            const n = counts.get(o.tag) ?? -1;
            assert.ok(n === 0 || n === 1, `call ${o.tag} ran ${n} times on the new server`);
            if (!o.ok) assert.equal(n, 0, `failed call ${o.tag} was not run again`);
          }
          assert.equal(conn.state, "ready");
          assert.equal(
            (await client.echo({ id: 1, text: "same connection" })).text,
            "same connection",
          );
        } finally {
          stop = true;
          await conn.close();
          await second?.stop();
          await first.kill();
        }
      },
      { timeoutMs: 60_000 },
    );

    h.test(
      S,
      "waitForReady false fails UNAVAILABLE while the server is down; true waits for the restart",
      async () => {
        const first = await h.startServer();
        let second: ServerHandle | undefined;
        const { conn, client } = await reconnecting(h, first.address, FAST);
        try {
          assert.equal((await client.echo({ id: 1, text: "up" })).text, "up");
          await first.kill();
          await waitFor("the connection to be lost", () =>
            conn.state === "transient-failure" ? true : undefined,
          );
          await expectCode(
            hangGuard(client.echo({ id: 2, text: "x" }), PROMPT_MS, "a fail-fast call"),
            Code.Unavailable,
            "a call without waitForReady while the server is down",
          );
          let settled = false;
          const waiting = client
            .echo({ id: 3, text: "waited" }, { waitForReady: true, timeoutMs: 20_000 })
            .finally(() => {
              settled = true;
            });
          await sleep(100);
          assert.equal(settled, false, "a waitForReady call waits while the server is down");
          second = await h.startServer({ address: first.address });
          assert.equal((await hangGuard(waiting, 15_000, "the waiting call")).text, "waited");
        } finally {
          await conn.close();
          await second?.stop();
        }
      },
      { timeoutMs: 60_000 },
    );

    h.test(
      S,
      "a retry policy retries an idempotent call across a restart; a call without one fails once",
      async () => {
        const first = await h.startServer();
        let second: ServerHandle | undefined;
        const retried = await reconnecting(h, first.address, {
          ...FAST,
          retry: { [SLEEP_PATH]: { maxAttempts: 5, initialBackoffMs: 20, maxBackoffMs: 200 } },
        });
        const plain = await reconnecting(h, first.address, FAST);
        try {
          const tagR = newTag("retried");
          const tagN = newTag("not-retried");
          const callR = retried.client.sleep({ tag: tagR, ms: 1000 }, { waitForReady: true });
          const callN = plain.client.sleep({ tag: tagN, ms: 1000 }, { waitForReady: true });
          const seen = await h.connect(first.address);
          await waitFor("both handlers to start", async () => {
            const [r, n] = await Promise.all([
              seen.client.stats({ tag: tagR }),
              seen.client.stats({ tag: tagN }),
            ]);
            return r.tagStarted >= 1 && n.tagStarted >= 1 ? true : undefined;
          });
          await h.disconnect(seen);
          callN.catch(() => undefined);
          callR.catch(() => undefined);
          await first.kill();
          await expectCode(
            hangGuard(callN, PROMPT_MS, "the call without a retry policy"),
            Code.Unavailable,
            "an in-flight call without a retry policy",
          );
          second = await h.startServer({ address: first.address });
          const reply = await hangGuard(callR, 15_000, "the retried call");
          assert.equal(reply.tag, tagR);
          assert.equal(reply.aborted, false);
          const counts = await startsOn(h, second, [tagR, tagN]);
          assert.equal(counts.get(tagR), 1, "the retry ran once on the new server");
          assert.equal(counts.get(tagN), 0, "the call without a policy was not sent again");
        } finally {
          await retried.conn.close();
          await plain.conn.close();
          await second?.stop();
        }
      },
      { timeoutMs: 60_000 },
    );

    h.test(
      S,
      "with no server it gives up after maxConnectAttempts: UNAVAILABLE reconnect-exhausted",
      async () => {
        const address = await h.newAddress();
        const { conn, client } = await reconnecting(h, address, {
          ...FAST,
          maxConnectAttempts: 3,
        });
        try {
          const err = await expectCode(
            hangGuard(
              client.echo({ id: 1, text: "x" }, { waitForReady: true }),
              15_000,
              "a waiting call",
            ),
            Code.Unavailable,
            "a call when the connection gives up",
          );
          assert.equal(err.reason, "reconnect-exhausted");
          const closed = await hangGuard(conn.closed, PROMPT_MS, "connection.closed");
          assertNearwireError(closed, "connection.closed");
          assert.equal(closed.reason, "reconnect-exhausted");
          assert.equal(conn.state, "shutdown");
        } finally {
          await conn.close();
        }
      },
      { timeoutMs: 30_000 },
    );
  });
}
