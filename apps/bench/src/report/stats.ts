/** Order statistics shared by the summary, the comparison and the gates. */

/** Median of a non-empty list (mean of the middle two for even lengths); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1
    ? (s[mid] as number)
    : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

/** Min and max of a list. */
export function spread(values: readonly number[]): [number, number] {
  return [Math.min(...values), Math.max(...values)];
}
