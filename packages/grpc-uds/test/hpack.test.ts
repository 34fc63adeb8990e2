import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HpackDecoder, HpackEncoder, HpackError } from "../src/http2/hpack.js";
import { HUFFMAN_CODES, HUFFMAN_LENGTHS, huffmanDecode } from "../src/http2/hpack-huffman.js";
import { STATIC_NAMES, STATIC_VALUES } from "../src/http2/hpack-static-table.js";

type Field = readonly [string, string];

function hex(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(text.replace(/\s+/g, ""), "hex"));
}

function decodeBlock(decoder: HpackDecoder, block: Uint8Array): Field[] {
  const fields: Field[] = [];
  decoder.decode(block, 0, block.length, (name, value) => fields.push([name, value]));
  return fields;
}

function table(decoder: HpackDecoder): Field[] {
  const entries: Field[] = [];
  for (let i = 1; i <= decoder.tableLength; i++) {
    const entry = decoder.tableEntry(i);
    assert.ok(entry);
    entries.push(entry);
  }
  assert.equal(decoder.tableEntry(decoder.tableLength + 1), undefined);
  return entries;
}

function flat(fields: readonly Field[]): string[] {
  return fields.flat();
}

/** Huffman-encodes `s` (latin1) with the code table, padding with 1s. */
function huffmanEncode(s: string): Uint8Array {
  const bits: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const sym = s.charCodeAt(i);
    const code = HUFFMAN_CODES[sym] ?? 0;
    const len = HUFFMAN_LENGTHS[sym] ?? 0;
    for (let b = len - 1; b >= 0; b--) bits.push(Math.floor(code / 2 ** b) % 2);
  }
  while (bits.length % 8 !== 0) bits.push(1);
  const out = new Uint8Array(bits.length / 8);
  for (let i = 0; i < bits.length; i++) {
    out[i >> 3] = (out[i >> 3] ?? 0) | ((bits[i] ?? 0) << (7 - (i & 7)));
  }
  return out;
}

function assertHpackError(fn: () => unknown, reason: HpackError["reason"]): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof HpackError, `expected HpackError, got ${String(error)}`);
    assert.equal(error.reason, reason);
    assert.equal(error.name, "HpackError");
    return true;
  });
}

/** mulberry32: a small seeded PRNG returning floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("HPACK static table", () => {
  it("has the 61 entries of RFC 7541 Appendix A", () => {
    assert.equal(STATIC_NAMES.length, 62);
    assert.equal(STATIC_VALUES.length, 62);
    assert.deepEqual([STATIC_NAMES[1], STATIC_VALUES[1]], [":authority", ""]);
    assert.deepEqual([STATIC_NAMES[3], STATIC_VALUES[3]], [":method", "POST"]);
    assert.deepEqual([STATIC_NAMES[14], STATIC_VALUES[14]], [":status", "500"]);
    assert.deepEqual([STATIC_NAMES[16], STATIC_VALUES[16]], ["accept-encoding", "gzip, deflate"]);
    assert.deepEqual([STATIC_NAMES[31], STATIC_VALUES[31]], ["content-type", ""]);
    assert.deepEqual([STATIC_NAMES[58], STATIC_VALUES[58]], ["user-agent", ""]);
    assert.deepEqual([STATIC_NAMES[61], STATIC_VALUES[61]], ["www-authenticate", ""]);
  });
});

describe("HPACK RFC 7541 Appendix C", () => {
  it("C.2.1 literal with indexing", () => {
    const decoder = new HpackDecoder();
    const block = hex("400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572");
    assert.deepEqual(decodeBlock(decoder, block), [["custom-key", "custom-header"]]);
    assert.equal(decoder.tableBytes, 55);
    assert.deepEqual(table(decoder), [["custom-key", "custom-header"]]);
  });

  it("C.2.2 literal without indexing", () => {
    const decoder = new HpackDecoder();
    const block = hex("040c 2f73 616d 706c 652f 7061 7468");
    assert.deepEqual(decodeBlock(decoder, block), [[":path", "/sample/path"]]);
    assert.equal(decoder.tableBytes, 0);
    assert.equal(decoder.tableLength, 0);
  });

  it("C.2.3 literal never indexed", () => {
    const decoder = new HpackDecoder();
    const block = hex("1008 7061 7373 776f 7264 0673 6563 7265 74");
    assert.deepEqual(decodeBlock(decoder, block), [["password", "secret"]]);
    assert.equal(decoder.tableLength, 0);
  });

  it("C.2.4 indexed field", () => {
    const decoder = new HpackDecoder();
    assert.deepEqual(decodeBlock(decoder, hex("82")), [[":method", "GET"]]);
    assert.equal(decoder.tableLength, 0);
  });

  const requests: Field[][] = [
    [
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
    ],
    [
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
      ["cache-control", "no-cache"],
    ],
    [
      [":method", "GET"],
      [":scheme", "https"],
      [":path", "/index.html"],
      [":authority", "www.example.com"],
      ["custom-key", "custom-value"],
    ],
  ];
  const requestTables: { bytes: number; entries: Field[] }[] = [
    { bytes: 57, entries: [[":authority", "www.example.com"]] },
    {
      bytes: 110,
      entries: [
        ["cache-control", "no-cache"],
        [":authority", "www.example.com"],
      ],
    },
    {
      bytes: 164,
      entries: [
        ["custom-key", "custom-value"],
        ["cache-control", "no-cache"],
        [":authority", "www.example.com"],
      ],
    },
  ];
  const c3 = [
    "8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d",
    "8286 84be 5808 6e6f 2d63 6163 6865",
    "8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65",
  ];
  const c4 = [
    "8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff",
    "8286 84be 5886 a8eb 1064 9cbf",
    "8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf",
  ];

  for (const [title, blocks] of [
    ["C.3 requests without Huffman", c3],
    ["C.4 requests with Huffman", c4],
  ] as const) {
    it(title, () => {
      const decoder = new HpackDecoder();
      blocks.forEach((block, i) => {
        assert.deepEqual(decodeBlock(decoder, hex(block)), requests[i]);
        assert.equal(decoder.tableBytes, requestTables[i]?.bytes);
        assert.deepEqual(table(decoder), requestTables[i]?.entries);
      });
    });
  }

  it("C.3 requests: the encoder produces the RFC's bytes", () => {
    const encoder = new HpackEncoder();
    requests.forEach((fields, i) => {
      assert.equal(
        Buffer.from(encoder.encode(flat(fields))).toString("hex"),
        c3[i]?.replace(/ /g, ""),
      );
      assert.equal(encoder.tableBytes, requestTables[i]?.bytes);
    });
  });

  const cookie = "foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1";
  const responses: Field[][] = [
    [
      [":status", "302"],
      ["cache-control", "private"],
      ["date", "Mon, 21 Oct 2013 20:13:21 GMT"],
      ["location", "https://www.example.com"],
    ],
    [
      [":status", "307"],
      ["cache-control", "private"],
      ["date", "Mon, 21 Oct 2013 20:13:21 GMT"],
      ["location", "https://www.example.com"],
    ],
    [
      [":status", "200"],
      ["cache-control", "private"],
      ["date", "Mon, 21 Oct 2013 20:13:22 GMT"],
      ["location", "https://www.example.com"],
      ["content-encoding", "gzip"],
      ["set-cookie", cookie],
    ],
  ];
  const responseTables: { bytes: number; entries: Field[] }[] = [
    {
      bytes: 222,
      entries: [
        ["location", "https://www.example.com"],
        ["date", "Mon, 21 Oct 2013 20:13:21 GMT"],
        ["cache-control", "private"],
        [":status", "302"],
      ],
    },
    {
      bytes: 222,
      entries: [
        [":status", "307"],
        ["location", "https://www.example.com"],
        ["date", "Mon, 21 Oct 2013 20:13:21 GMT"],
        ["cache-control", "private"],
      ],
    },
    {
      bytes: 215,
      entries: [
        ["set-cookie", cookie],
        ["content-encoding", "gzip"],
        ["date", "Mon, 21 Oct 2013 20:13:22 GMT"],
      ],
    },
  ];
  const c5 = [
    `4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133
     2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70
     6c65 2e63 6f6d`,
    "4803 3330 37c1 c0bf",
    `88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d
     54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049
     5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e
     3d31`,
  ];
  const c6 = [
    `4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
     2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3`,
    "4883 640e ffc1 c0bf",
    `88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
     77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f
     9587 3160 65c0 03ed 4ee5 b106 3d50 07`,
  ];

  for (const [title, blocks] of [
    ["C.5 responses without Huffman, eviction", c5],
    ["C.6 responses with Huffman, eviction", c6],
  ] as const) {
    it(title, () => {
      const decoder = new HpackDecoder({ maxTableBytes: 256 });
      blocks.forEach((block, i) => {
        assert.deepEqual(decodeBlock(decoder, hex(block)), responses[i]);
        assert.equal(decoder.tableBytes, responseTables[i]?.bytes);
        assert.deepEqual(table(decoder), responseTables[i]?.entries);
      });
    });
  }
});

describe("HPACK Huffman", () => {
  it("has the RFC 7541 Appendix B codes (spot checks) and is a complete prefix code", () => {
    assert.equal(HUFFMAN_CODES.length, 257);
    assert.equal(HUFFMAN_LENGTHS.length, 257);
    assert.deepEqual([HUFFMAN_CODES[48], HUFFMAN_LENGTHS[48]], [0x0, 5]);
    assert.deepEqual([HUFFMAN_CODES[97], HUFFMAN_LENGTHS[97]], [0x3, 5]);
    assert.deepEqual([HUFFMAN_CODES[0], HUFFMAN_LENGTHS[0]], [0x1ff8, 13]);
    assert.deepEqual([HUFFMAN_CODES[255], HUFFMAN_LENGTHS[255]], [0x3ffffee, 26]);
    assert.deepEqual([HUFFMAN_CODES[256], HUFFMAN_LENGTHS[256]], [0x3fffffff, 30]);
    let kraft = 0;
    for (const len of HUFFMAN_LENGTHS) kraft += 2 ** (30 - len);
    assert.equal(kraft, 2 ** 30);
    // Canonical: sorted by (length, symbol), each code is the previous + 1, shifted.
    const order = [...HUFFMAN_LENGTHS.keys()].sort(
      (a, b) => (HUFFMAN_LENGTHS[a] ?? 0) - (HUFFMAN_LENGTHS[b] ?? 0) || a - b,
    );
    let code = -1;
    let len = 5;
    for (const sym of order) {
      const symLen = HUFFMAN_LENGTHS[sym] ?? 0;
      code = (code + 1) * 2 ** (symLen - len);
      len = symLen;
      assert.equal(HUFFMAN_CODES[sym], code, `symbol ${sym}`);
    }
  });

  it("round-trips every octet, alone and all together", () => {
    let all = "";
    for (let b = 0; b < 256; b++) {
      const s = String.fromCharCode(b);
      const encoded = huffmanEncode(s);
      assert.equal(huffmanDecode(encoded, 0, encoded.length), s, `octet ${b}`);
      const twice = huffmanEncode(`${s}x${s}`);
      assert.equal(huffmanDecode(twice, 0, twice.length), `${s}x${s}`, `octet ${b}`);
      all += s;
    }
    const encoded = huffmanEncode(all + all);
    const padded = new Uint8Array(encoded.length + 6);
    padded.set(encoded, 3);
    assert.equal(huffmanDecode(padded, 3, 3 + encoded.length), all + all);
    assert.equal(huffmanDecode(new Uint8Array(0), 0, 0), "");
  });

  it("decodes 'www.example.com' (RFC 7541 C.4.1)", () => {
    const bytes = hex("f1e3 c2e5 f23a 6ba0 ab90 f4ff");
    assert.equal(huffmanDecode(bytes, 0, bytes.length), "www.example.com");
    assert.deepEqual(huffmanEncode("www.example.com"), bytes);
  });

  it("accepts up to 7 bits of 1s as padding", () => {
    assert.equal(huffmanDecode(Uint8Array.of(0x1f), 0, 1), "a"); // 00011 + 111
    assert.equal(huffmanDecode(Uint8Array.of(0x07), 0, 1), "0"); // 00000 + 111
    assert.equal(huffmanDecode(Uint8Array.of(0x00, 0xff), 0, 2), "0a"); // 00000 00011 + 111111
  });

  it("rejects bad padding and EOS", () => {
    const bad: [string, Uint8Array][] = [
      ["8 bits of padding", Uint8Array.of(0xff)],
      ["11 bits of padding", Uint8Array.of(0x1f, 0xff)],
      ["a 0 in the padding", Uint8Array.of(0x1e)],
      ["a 0 at the end of the padding", Uint8Array.of(0x06)],
      ["EOS alone", Uint8Array.of(0xff, 0xff, 0xff, 0xff)],
      ["EOS after a symbol", Uint8Array.of(0x1f, 0xff, 0xff, 0xff, 0xff)],
      ["EOS then a symbol", Uint8Array.of(0xff, 0xff, 0xff, 0xfc, 0x7f)],
    ];
    for (const [what, bytes] of bad) {
      assertHpackError(() => huffmanDecode(bytes, 0, bytes.length), "malformed");
      assert.throws(() => huffmanDecode(bytes, 0, bytes.length), HpackError, what);
    }
  });

  it("rejects a Huffman string with bad padding inside a block", () => {
    const decoder = new HpackDecoder();
    // Literal without indexing, name :path (4), value H=1 length 1: 0xff (8 bits of padding).
    assertHpackError(() => decodeBlock(decoder, Uint8Array.of(0x04, 0x81, 0xff)), "malformed");
  });
});

describe("HPACK encoder", () => {
  it("indexes static matches and sends grpc-timeout without indexing", () => {
    const encoder = new HpackEncoder();
    const block = encoder.encode([":method", "POST", "grpc-timeout", "1S", ":status", "200"]);
    assert.equal(
      Buffer.from(block).toString("hex"),
      `83000c${Buffer.from("grpc-timeout").toString("hex")}02${Buffer.from("1S").toString("hex")}88`,
    );
    assert.equal(encoder.tableLength, 0);
  });

  it("indexes repeated fields from the dynamic table, by name when the value differs", () => {
    const encoder = new HpackEncoder();
    assert.equal(
      Buffer.from(encoder.encode(["te", "trailers"])).toString("hex"),
      "4002746508747261696c657273",
    );
    assert.equal(encoder.tableBytes, 42);
    assert.equal(Buffer.from(encoder.encode(["te", "trailers"])).toString("hex"), "be");
    // Same name, new value: name index 62, with incremental indexing.
    assert.equal(Buffer.from(encoder.encode(["te", "x"])).toString("hex"), "7e0178");
    assert.equal(
      Buffer.from(encoder.encode(["te", "trailers", "te", "x"])).toString("hex"),
      "bfbe",
    );
  });

  it("sends values over 512 octets without indexing", () => {
    const encoder = new HpackEncoder();
    const value = "v".repeat(600);
    const block = encoder.encode([":path", value]);
    assert.equal(Buffer.from(block.subarray(0, 4)).toString("hex"), "047fd903");
    assert.equal(block.length, 4 + 600);
    assert.equal(encoder.tableLength, 0);
  });

  it("signals table size changes at the start of the next block", () => {
    const encoder = new HpackEncoder();
    const decoder = new HpackDecoder();
    decodeBlock(decoder, encoder.encode(["x-a", "1"]));
    assert.equal(encoder.tableLength, 1);
    encoder.setPeerMaxTableBytes(0);
    assert.equal(encoder.tableLength, 0);
    let block = encoder.encode([":method", "GET"]);
    assert.equal(Buffer.from(block).toString("hex"), "2082");
    assert.deepEqual(decodeBlock(decoder, block), [[":method", "GET"]]);
    assert.equal(decoder.tableLength, 0);
    // A table of 0 octets: literals without indexing (the name was forgotten on eviction).
    assert.equal(Buffer.from(encoder.encode(["x-a", "1"])).toString("hex"), "0003782d610131");
    assert.equal(encoder.tableLength, 0);

    // Shrink then grow between blocks: the smallest size first, then the final one.
    encoder.setPeerMaxTableBytes(100);
    encoder.setPeerMaxTableBytes(50);
    encoder.setPeerMaxTableBytes(65536);
    block = encoder.encode([]);
    assert.equal(Buffer.from(block).toString("hex"), "3f133fe11f");
    decodeBlock(decoder, block);
    // An unchanged limit (65536 → 4096, still the encoder's own cap) sends nothing.
    encoder.setPeerMaxTableBytes(8192);
    assert.equal(encoder.encode([]).length, 0);
  });

  it("grows its buffer for large blocks", () => {
    const encoder = new HpackEncoder();
    const decoder = new HpackDecoder({ maxHeaderListBytes: 1 << 20 });
    const fields: string[] = [];
    for (let i = 0; i < 200; i++) fields.push(`x-h${i}`, "é".repeat(i * 10));
    const block = encoder.encode(fields);
    assert.deepEqual(flat(decodeBlock(decoder, block)), fields);
  });
});

describe("HPACK encoder ↔ decoder", () => {
  it("round-trips random header lists over many blocks (seeded)", () => {
    const seed = Number(process.env.HPACK_SEED ?? 0x5eed1234);
    const random = mulberry32(seed);
    const int = (n: number): number => Math.floor(random() * n);
    const randomString = (length: number): string => {
      let s = "";
      for (let i = 0; i < length; i++) s += String.fromCharCode(int(256));
      return s;
    };
    const names = [
      ":method",
      ":path",
      ":authority",
      ":status",
      "content-type",
      "te",
      "user-agent",
      "grpc-timeout",
      "grpc-message",
      "grpc-status",
      "date",
      "content-length",
      "accept-encoding",
      "x-custom-a",
      "x-custom-b",
      "x-trace-bin",
    ];
    const values = ["POST", "GET", "200", "/demo.Greeter/say", "application/grpc", "trailers", ""];
    const sizes = [0, 0, 40, 100, 256, 4096, 4096, 65536, 1000];
    const encoder = new HpackEncoder();
    const decoder = new HpackDecoder();
    let peerMax = 4096;
    try {
      for (let block = 0; block < 3000; block++) {
        if (int(20) === 0) {
          peerMax = sizes[int(sizes.length)] ?? 0;
          encoder.setPeerMaxTableBytes(peerMax);
        }
        const fields: string[] = [];
        const count = int(12);
        for (let i = 0; i < count; i++) {
          const name =
            int(5) === 0 ? `x-r${randomString(int(6)).toLowerCase()}` : names[int(names.length)];
          const roll = int(10);
          const value =
            roll < 4
              ? (values[int(values.length)] ?? "")
              : roll < 8
                ? `${int(30)}`
                : roll < 9
                  ? randomString(int(40))
                  : randomString(500 + int(100));
          fields.push(name ?? "", value);
        }
        const encoded = encoder.encode(fields);
        assert.deepEqual(flat(decodeBlock(decoder, encoded)), fields, `block ${block}`);
        assert.equal(decoder.tableBytes, encoder.tableBytes, `block ${block}`);
        assert.equal(decoder.tableLength, encoder.tableLength, `block ${block}`);
        assert.ok(encoder.tableBytes <= Math.min(peerMax, 4096), `block ${block}`);
      }
    } catch (error) {
      throw new Error(`HPACK round trip failed with HPACK_SEED=${seed}`, { cause: error });
    }
  });
});

describe("HPACK decoder errors", () => {
  const malformed: [string, string][] = [
    ["index 0", "80"],
    ["index past the static table, empty dynamic table", "be"],
    ["name index past the table", "7e0178"],
    ["a truncated integer", "ff"],
    ["a truncated integer continuation", "ff80"],
    ["an integer over 2^31", "ffffffffff0f"],
    ["an integer encoding too long", "ff808080808000"],
    ["a truncated string", "400a6375"],
    ["a missing value string", "04"],
    ["a string length past the block", "04ff0001"],
    ["a size update after a field", "8220"],
  ];
  for (const [what, block] of malformed) {
    it(`rejects ${what}`, () => {
      const decoder = new HpackDecoder();
      assertHpackError(() => decodeBlock(decoder, hex(block)), "malformed");
      // The decoder is unusable afterwards.
      assertHpackError(() => decodeBlock(decoder, hex("82")), "malformed");
    });
  }

  it("accepts the largest valid indices and integers", () => {
    const decoder = new HpackDecoder();
    assert.deepEqual(decodeBlock(decoder, hex("bd")), [["www-authenticate", ""]]);
    // A size update to 4096 with a 5-bit prefix: 31 + 4065.
    decodeBlock(decoder, hex("3fe11f"));
    // Index 62 after one insertion.
    assert.deepEqual(decodeBlock(decoder, hex("4001780179")), [["x", "y"]]);
    assert.deepEqual(decodeBlock(decoder, hex("be")), [["x", "y"]]);
  });

  it("rejects a size update above the maximum with reason table-size", () => {
    const decoder = new HpackDecoder({ maxTableBytes: 4096 });
    assertHpackError(() => decodeBlock(decoder, hex("3fe21f")), "table-size");
    const small = new HpackDecoder({ maxTableBytes: 100 });
    decodeBlock(small, hex("3f45"));
    assertHpackError(() => decodeBlock(small, hex("3f46")), "table-size");
  });

  it("accepts two size updates at the start and evicts", () => {
    const decoder = new HpackDecoder();
    decodeBlock(decoder, hex("4001780179"));
    assert.equal(decoder.tableBytes, 34);
    assert.deepEqual(decodeBlock(decoder, hex("203fe11f82")), [[":method", "GET"]]);
    assert.equal(decoder.tableLength, 0);
  });

  it("evicts everything when an entry is larger than the table", () => {
    const decoder = new HpackDecoder({ maxTableBytes: 40 });
    decodeBlock(decoder, hex("4001780179"));
    assert.equal(decoder.tableLength, 1);
    const big = `400178${(10).toString(16).padStart(2, "0")}${"79".repeat(10)}`;
    assert.deepEqual(decodeBlock(decoder, hex(big)), [["x", "yyyyyyyyyy"]]);
    assert.equal(decoder.tableLength, 0);
    assert.equal(decoder.tableBytes, 0);
  });

  it("stops emitting past maxHeaderListBytes but keeps the table in sync", () => {
    const decoder = new HpackDecoder({ maxHeaderListBytes: 120 });
    // custom-key: custom-header (55, indexed), :method GET (42, total 97), then
    // :authority: www.example.com (57, total 154: not emitted, but indexed), :method GET.
    const block = hex(
      `400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572 82
       410f 7777 772e 6578 616d 706c 652e 636f 6d 82`,
    );
    const emitted: Field[] = [];
    assertHpackError(
      () => decoder.decode(block, 0, block.length, (n, v) => emitted.push([n, v])),
      "header-list-too-large",
    );
    assert.deepEqual(emitted, [
      ["custom-key", "custom-header"],
      [":method", "GET"],
    ]);
    assert.equal(decoder.tableLength, 2);
    assert.equal(decoder.tableBytes, 112);
    // The next block references both entries, including the one added after the limit.
    assert.deepEqual(decodeBlock(decoder, hex("bebf")), [
      [":authority", "www.example.com"],
      ["custom-key", "custom-header"],
    ]);
  });

  it("becomes unusable when emit throws", () => {
    const decoder = new HpackDecoder();
    assert.throws(
      () =>
        decoder.decode(Uint8Array.of(0x82), 0, 1, () => {
          throw new Error("boom");
        }),
      /boom/,
    );
    assertHpackError(() => decodeBlock(decoder, hex("82")), "malformed");
  });

  it("decodes a block inside a larger buffer", () => {
    const decoder = new HpackDecoder();
    const buffer = hex("ffff 8286 ffff");
    const fields: Field[] = [];
    decoder.decode(buffer, 2, 4, (n, v) => fields.push([n, v]));
    assert.deepEqual(fields, [
      [":method", "GET"],
      [":scheme", "http"],
    ]);
  });
});
