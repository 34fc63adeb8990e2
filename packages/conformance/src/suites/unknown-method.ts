/** Suite: an unknown method or service is UNIMPLEMENTED; the connection keeps working. */
import assert from "node:assert/strict";
import { describe } from "node:test";
import { Code } from "@nearwire/core";
import { conformanceServiceWithMissing, unknownService } from "../conformance-service.js";
import type { SuiteHarness } from "../suite-harness.js";
import { collect, expectCode } from "../wait.js";
import { sharedServer } from "./shared-server.js";

const S = "unknown method";

/** A method or service the server lacks → UNIMPLEMENTED; the connection keeps working. */
export function unknownMethodSuite(h: SuiteHarness): void {
  describe(S, () => {
    const s = sharedServer(h);
    const stillWorks = async () => {
      const r = await s.c.client.echo({ id: 1, text: "after" });
      assert.equal(r.text, "after");
    };

    h.test(
      S,
      "a method the server lacks → UNIMPLEMENTED, and the connection keeps working",
      async () => {
        const client = s.c.conn.client(conformanceServiceWithMissing, { codec: h.codec });
        await expectCode(client.missing({ id: 1, text: "?" }), Code.Unimplemented, "missing()");
        await stillWorks();
        assert.equal((await client.echo({ id: 2, text: "known" })).text, "known");
      },
    );

    h.test(
      S,
      "a service the server lacks → UNIMPLEMENTED, and the connection keeps working",
      async () => {
        const client = s.c.conn.client(unknownService, { codec: h.codec });
        await expectCode(client.echo({ id: 1, text: "?" }), Code.Unimplemented, "Nowhere.echo()");
        await stillWorks();
      },
    );

    h.test(
      S,
      "many calls to a missing method in a row do not disturb concurrent good calls",
      async () => {
        const client = s.c.conn.client(conformanceServiceWithMissing, { codec: h.codec });
        const bad = Array.from({ length: 50 }, (_, i) =>
          expectCode(client.missing({ id: i, text: "?" }), Code.Unimplemented, `missing() #${i}`),
        );
        const good = collect(
          s.c.client.count({ tag: "", n: 200, payloadBytes: 8, failAfter: 0, failCode: 0 }),
        );
        await Promise.all(bad);
        assert.equal((await good).length, 200);
      },
    );
  });
}
