import assert from "node:assert/strict";

/**
 * `value` after asserting that it is there, so a test that looks a row up fails when the row
 * disappears instead of comparing `undefined`.
 */
export function found<T>(value: T | undefined | null, what: string): T {
  assert.ok(value !== undefined && value !== null, `not found: ${what}`);
  return value;
}
