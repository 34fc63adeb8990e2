import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { derivedPrng, fuzzLoop, prng, readCorpus, seededBytes } from "../src/index.js";

// The shared fuzz harness (src/fuzz.ts) and seeded data (src/seeded.ts) of the transports'
// fuzz tests: reproducible from the seed, and a failing batch lands in the corpus.
const dir = mkdtempSync(join(tmpdir(), "nw-fuzz-harness-"));
after(() => rmSync(dir, { recursive: true, force: true }));

interface Case {
  name: string;
  n: number;
}

describe("seeded data", () => {
  it("the same seed gives the same bytes and draws; another seed others", () => {
    assert.deepEqual(seededBytes(7, 64), seededBytes(7, 64));
    assert.notDeepEqual(seededBytes(7, 64), seededBytes(8, 64));
    assert.deepEqual(seededBytes(0, 16), seededBytes(1, 16), "seed 0 is seed 1");
    const a = prng(42);
    const b = prng(42);
    for (let i = 0; i < 100; i++) assert.equal(a.u32(), b.u32());
    assert.notEqual(derivedPrng(42, 0).u32(), derivedPrng(42, 1).u32());
    assert.equal(prng(1).int(0), 0);
  });
});

describe("fuzzLoop", () => {
  it("replays the corpus first, then the random inputs in batches", async () => {
    const corpus = join(dir, "ok.json");
    writeFileSync(corpus, JSON.stringify({ cases: [{ name: "kept", n: -1 }] }));
    const fed: number[][] = [];
    const run = await fuzzLoop<Case>({
      seed: 5,
      iterations: 5,
      batchSize: 2,
      corpus,
      generate: (rng, name) => ({ name, n: rng.int(100) }),
      feed: async (cases) => {
        fed.push(cases.map((c) => c.n));
      },
      rss: () => 1000,
    });
    assert.deepEqual(
      fed.map((b) => b.length),
      [1, 2, 2, 1],
    );
    assert.equal(fed[0]?.[0], -1);
    assert.deepEqual(run.corpusCases, 1);
    assert.equal(run.rssStartBytes, 1000);
    const again: number[] = [];
    await fuzzLoop<Case>({
      seed: 5,
      iterations: 5,
      batchSize: 5,
      corpus,
      generate: (rng, name) => ({ name, n: rng.int(100) }),
      feed: async (cases) => {
        again.push(...cases.map((c) => c.n));
      },
      rss: () => 0,
    });
    assert.deepEqual(again.slice(1), fed.slice(1).flat(), "the same seed, the same inputs");
  });

  it("a failing batch is appended to the corpus once, and the error names the seed", async () => {
    const corpus = join(dir, "fail.json");
    writeFileSync(corpus, JSON.stringify({ cases: [] }));
    const options = {
      seed: 9,
      iterations: 4,
      batchSize: 4,
      corpus,
      generate: (_rng: unknown, name: string): Case => ({ name, n: 13 }),
      feed: async () => {
        throw new Error("server died");
      },
      rss: () => 0,
    };
    await assert.rejects(fuzzLoop<Case>(options), (e: Error) => {
      assert.match(e.message, /fuzz failure at iteration 0 \(NEARWIRE_FUZZ_SEED=9\): server died/);
      return true;
    });
    const saved = readCorpus<Case>(corpus);
    assert.equal(saved.length, 1, "four equal inputs are one corpus case");
    assert.match(saved[0]?.name ?? "", /^found: seed 9 iteration 0$/);
    await assert.rejects(fuzzLoop<Case>(options), /fuzz failure at corpus 0/);
    assert.equal(readCorpus<Case>(corpus).length, 1, "a known case is not added again");
    assert.ok(readFileSync(corpus, "utf8").endsWith("\n"));
  });
});
