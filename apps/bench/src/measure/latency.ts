import * as hdr from "hdr-histogram-js";

/** Percentiles of one run's latency samples, all in nanoseconds. */
export interface LatencySummary {
  /** Samples recorded (every call of the measured window; none dropped). */
  count: number;
  minNs: number;
  p50Ns: number;
  p90Ns: number;
  p99Ns: number;
  p999Ns: number;
  maxNs: number;
  meanNs: number;
  stddevNs: number;
  /** The full HDR histogram (3 significant digits), compressed base64, for re-analysis. */
  hdr: string;
}

/** Most samples one run keeps (32 MiB of float64); the measuring loop stops there. */
export const MAX_SAMPLES = 4 * 1024 * 1024;

/**
 * Raw latency samples of one run: stored as they come (one float64 store per call, so the
 * timed loop does no histogram work), turned into an HDR histogram afterwards.
 */
export class SampleRecorder {
  #buf = new Float64Array(64 * 1024);
  #n = 0;
  /** Number of samples recorded. */
  get count(): number {
    return this.#n;
  }
  /** True when {@link MAX_SAMPLES} is reached. */
  get full(): boolean {
    return this.#n >= MAX_SAMPLES;
  }
  /** Records one sample in ns. */
  record(ns: number): void {
    if (this.#n === this.#buf.length) {
      const next = new Float64Array(Math.min(this.#buf.length * 2, MAX_SAMPLES));
      next.set(this.#buf);
      this.#buf = next;
    }
    this.#buf[this.#n++] = ns;
  }
  /** Summarises every recorded sample. */
  summary(): LatencySummary {
    return summarise(this.#buf.subarray(0, this.#n));
  }
}

/** Builds an HDR histogram (1 ns … 60 s, 3 significant digits) from samples in ns. */
export function summarise(samples: ArrayLike<number>): LatencySummary {
  const h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60e9,
    numberOfSignificantValueDigits: 3,
  });
  for (let i = 0; i < samples.length; i++)
    h.recordValue(Math.max(1, Math.round(samples[i] as number)));
  const out: LatencySummary = {
    count: h.totalCount,
    minNs: h.totalCount === 0 ? 0 : h.minNonZeroValue,
    p50Ns: h.getValueAtPercentile(50),
    p90Ns: h.getValueAtPercentile(90),
    p99Ns: h.getValueAtPercentile(99),
    p999Ns: h.getValueAtPercentile(99.9),
    maxNs: h.maxValue,
    meanNs: h.mean,
    stddevNs: h.stdDeviation,
    hdr: hdr.encodeIntoCompressedBase64(h),
  };
  h.destroy();
  return out;
}
