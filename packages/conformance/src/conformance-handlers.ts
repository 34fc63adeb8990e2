/** createConformanceHandlers(): the conformance service's handlers, which record what they saw. */
import { Code, type HandlerContext, isCode, NearwireError, type ServiceImpl } from "@nearwire/core";
import {
  type ConformanceService,
  type CountRequest,
  checksumStep,
  type StatsReply,
  type StreamItem,
} from "./conformance-service.js";

interface TagCounters {
  started: number;
  finished: number;
  aborted: number;
  produced: number;
}

/** Upper bound on distinct tags kept, so a long-running server cannot grow without limit. */
const MAX_TAGS = 10_000;

/**
 * Handlers of the conformance service, with the counters `stats` reports. One instance per
 * server process; handlers only track what runs while they run (an abort after a handler has
 * returned is not counted).
 */
export function createConformanceHandlers(): ServiceImpl<ConformanceService> {
  const total = { started: 0, finished: 0, aborted: 0 };
  const tags = new Map<string, TagCounters>();

  const tagCounters = (tag: string): TagCounters | undefined => {
    if (tag === "") return undefined;
    let c = tags.get(tag);
    if (c === undefined) {
      if (tags.size >= MAX_TAGS) tags.clear();
      c = { started: 0, finished: 0, aborted: 0, produced: 0 };
      tags.set(tag, c);
    }
    return c;
  };

  /** Counts the start, watches the signal while the handler runs; returns the finish hook. */
  const track = (tag: string, ctx: HandlerContext): (() => void) => {
    const c = tagCounters(tag);
    total.started++;
    if (c !== undefined) c.started++;
    const onAbort = (): void => {
      total.aborted++;
      if (c !== undefined) c.aborted++;
    };
    if (ctx.signal.aborted) onAbort();
    else ctx.signal.addEventListener("abort", onAbort, { once: true });
    return () => {
      ctx.signal.removeEventListener("abort", onAbort);
      total.finished++;
      if (c !== undefined) c.finished++;
    };
  };

  async function* stream(req: CountRequest, ctx: HandlerContext): AsyncGenerator<StreamItem> {
    const done = track(req.tag, ctx);
    const c = tagCounters(req.tag);
    const text = "x".repeat(req.payloadBytes);
    const note = ctx.metadata["x-note"] ?? "";
    try {
      for (let seq = 0; seq < req.n; seq++) {
        if (ctx.signal.aborted) return;
        if (req.failCode !== 0 && seq === req.failAfter) {
          throw new NearwireError(toCode(req.failCode), `failing after ${seq} items as asked`);
        }
        if (c !== undefined) c.produced++;
        yield { seq, text, note };
      }
      if (req.failCode !== 0 && req.failAfter >= req.n) {
        throw new NearwireError(toCode(req.failCode), `failing after ${req.n} items as asked`);
      }
    } finally {
      done();
    }
  }

  return {
    echo(req, ctx) {
      const done = track("", ctx);
      done();
      return req;
    },
    generate(req, ctx) {
      const done = track("", ctx);
      done();
      return { id: req.id, text: "x".repeat(req.textLength) };
    },
    fail(req, ctx) {
      const done = track("", ctx);
      done();
      throw new NearwireError(toCode(req.code), req.message, { metadata: { ...req.trailers } });
    },
    metadata(_req, ctx) {
      const done = track("", ctx);
      done();
      return {
        method: ctx.method,
        metadata: { ...ctx.metadata },
        deadlineInMs: ctx.deadline === undefined ? -1 : Math.max(0, ctx.deadline - Date.now()),
      };
    },
    async sleep(req, ctx) {
      const done = track(req.tag, ctx);
      try {
        const aborted = await new Promise<boolean>((resolve) => {
          if (ctx.signal.aborted) {
            resolve(true);
            return;
          }
          const onAbort = (): void => {
            clearTimeout(timer);
            resolve(true);
          };
          const timer = setTimeout(() => {
            ctx.signal.removeEventListener("abort", onAbort);
            resolve(false);
          }, req.ms);
          ctx.signal.addEventListener("abort", onAbort, { once: true });
        });
        return { tag: req.tag, aborted };
      } finally {
        done();
      }
    },
    count: stream,
    produce: stream,
    async sum(requests, ctx) {
      const done = track(ctx.metadata["x-tag"] ?? "", ctx);
      try {
        let count = 0;
        let checksum = 0;
        let firstBadSeq = -1;
        for await (const item of requests) {
          if (firstBadSeq === -1 && item.seq !== count) firstBadSeq = count;
          checksum = checksumStep(checksum, item);
          count++;
        }
        return { count, checksum, firstBadSeq, note: ctx.metadata["x-note"] ?? "" };
      } finally {
        done();
      }
    },
    async *bidi(requests, ctx) {
      const done = track(ctx.metadata["x-tag"] ?? "", ctx);
      const c = tagCounters(ctx.metadata["x-tag"] ?? "");
      try {
        for await (const item of requests) {
          if (c !== undefined) c.produced++;
          yield item;
        }
      } finally {
        done();
      }
    },
    stats(req): StatsReply {
      const c = tags.get(req.tag);
      return {
        pid: process.pid,
        rssBytes: process.memoryUsage.rss(),
        callsStarted: total.started,
        callsFinished: total.finished,
        callsAborted: total.aborted,
        tagStarted: c?.started ?? 0,
        tagFinished: c?.finished ?? 0,
        tagAborted: c?.aborted ?? 0,
        tagProduced: c?.produced ?? 0,
      };
    },
  };
}

function toCode(n: number): Code {
  if (!isCode(n) || n === Code.OK) {
    throw new NearwireError(Code.InvalidArgument, `status code ${n} is not in 1..16`);
  }
  return n;
}
