import assert from "node:assert/strict";
import { test } from "node:test";
import { benchCodec } from "../src/measure/codec-bench.js";
import { loadPlugins } from "../src/measure/plugins.js";

test("the codec benchmark times encoding in place where a codec can, and checks its bytes", async () => {
  const { messages } = await loadPlugins();
  for (const codec of ["raw", "msgpack", "protobuf", "flatbuffers", "json"]) {
    const [chunk] = await benchCodec(messages, codec, ["chunk"], 20, 1);
    assert.equal(chunk?.message, "chunk");
    assert.ok(
      (chunk?.encodeInPlaceOpsPerSec ?? 0) > 0,
      `${codec}: in-place encode measured (${chunk?.encodeInPlaceOpsPerSec})`,
    );
  }
});
