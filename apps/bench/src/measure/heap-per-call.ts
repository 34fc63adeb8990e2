import v8 from "node:v8";

/** A running measurement of JS heap allocation; see {@link startHeapAccounting}. */
export interface HeapAccounting {
  /** Stops and returns the bytes allocated on the V8 JS heap since the start. */
  stop(): number;
}

/**
 * Measures how many bytes this process allocates on the V8 JavaScript heap over a window,
 * without `--expose-gc` and without forcing a collection (which would disturb the timing):
 *
 *   allocated = usedHeapSize(end) − usedHeapSize(start) + Σ over every GC in the window of
 *               (usedHeapSize before that GC − usedHeapSize after it)
 *
 * with `v8.GCProfiler` (Node ≥ 18.15) reporting each collection's heap statistics. What it
 * counts: every object, string and array V8 allocates on its heap (including `Buffer` and
 * `Uint8Array` headers). What it does not: the backing stores of ArrayBuffers and Buffers
 * (outside the heap, malloc'd or pooled), native memory of addons, and kernel socket buffers.
 * Error: garbage allocated before the window and collected during it counts, and garbage
 * left at the end does not; in a steady state the two are of the same size, and over a window
 * of thousands of calls both are small next to the total.
 */
export function startHeapAccounting(): HeapAccounting {
  const profiler = new v8.GCProfiler();
  profiler.start();
  const used0 = v8.getHeapStatistics().used_heap_size;
  return {
    stop(): number {
      const used1 = v8.getHeapStatistics().used_heap_size;
      const stats = profiler.stop()?.statistics ?? [];
      let collected = 0;
      for (const gc of stats) {
        collected +=
          gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
      }
      return Math.max(0, used1 - used0 + collected);
    },
  };
}
