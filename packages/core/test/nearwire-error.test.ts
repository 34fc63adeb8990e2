import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Code, codeName, NearwireError } from "../src/index.js";
import { isErrorReason } from "../src/transport-kit.js";

/** An Error as Node and the shm-ring addon throw them: the errno name in `code`. */
function errnoError(errno: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${errno}: failed`), { code: errno });
}

describe("NearwireError.from: the one errno mapping", () => {
  const table: [string, Code, string | undefined][] = [
    ["ECONNRESET", Code.Unavailable, "peer-closed"],
    ["ECONNREFUSED", Code.Unavailable, "peer-closed"],
    ["EPIPE", Code.Unavailable, "peer-closed"],
    ["ENOENT", Code.Unavailable, "peer-closed"],
    ["ESRCH", Code.Unavailable, "peer-closed"],
    ["EADDRINUSE", Code.AlreadyExists, "address-in-use"],
    ["EACCES", Code.PermissionDenied, undefined],
    ["EPERM", Code.PermissionDenied, undefined],
    ["EROFS", Code.PermissionDenied, undefined],
    ["ENOSPC", Code.ResourceExhausted, undefined],
    ["ENOMEM", Code.ResourceExhausted, undefined],
    ["EMFILE", Code.ResourceExhausted, undefined],
    ["EFBIG", Code.ResourceExhausted, undefined],
    ["EFAULT", Code.ResourceExhausted, undefined],
    ["ENOTDIR", Code.FailedPrecondition, undefined],
    ["EINVAL", Code.InvalidArgument, undefined],
  ];
  for (const [errno, code, reason] of table) {
    it(`${errno} → ${codeName(code)}${reason === undefined ? "" : ` ${reason}`}`, () => {
      const cause = errnoError(errno);
      const err = NearwireError.from(cause, Code.Internal);
      assert.equal(codeName(err.code), codeName(code));
      assert.equal(err.reason, reason);
      assert.equal(err.cause, cause);
      assert.equal(err.message, cause.message);
    });
  }

  it("an unknown errno or a plain Error is the fallback; a NearwireError passes through", () => {
    assert.equal(NearwireError.from(errnoError("EWHATEVER"), Code.Internal).code, Code.Internal);
    assert.equal(NearwireError.from(new Error("x")).code, Code.Unknown);
    assert.equal(NearwireError.from("text", Code.Aborted).code, Code.Aborted);
    const own = new NearwireError(Code.DataLoss, "mine");
    assert.equal(NearwireError.from(own, Code.Internal, "ctx"), own);
  });

  it("context prefixes the message", () => {
    const err = NearwireError.from(
      errnoError("ENOSPC"),
      Code.Internal,
      "committing a 4096 B segment",
    );
    assert.equal(err.message, "committing a 4096 B segment: ENOSPC: failed");
    assert.equal(NearwireError.from("boom", Code.Internal, "ctx").message, "ctx: boom");
  });
});

describe("isErrorReason: reasons read off the wire stay in the closed set", () => {
  it("knows every reason and nothing else", () => {
    for (const r of [
      "peer-closed",
      "frame-too-large",
      "server-closing",
      "symlink",
      "crash-loop",
      "changed-during-read",
    ])
      assert.equal(isErrorReason(r), true, r);
    for (const r of ["bogus", "", "__proto__", "constructor", "toString", 42, undefined, null])
      assert.equal(isErrorReason(r), false, String(r));
  });
});
