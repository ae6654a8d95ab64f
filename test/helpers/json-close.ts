import { expect } from 'vitest';

/**
 * Deep comparison of two JSON values where numbers may differ by relTol * magnitude + absTol (values stored at their
 * stored resolution) and keys named in `ignore` are skipped. Fields present only in `actual` are allowed (new fields).
 */
export function expectSameJson(actual: unknown, expected: unknown, opts: { relTol: number; absTol?: number; ignore?: string[] }, path = '$'): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const allowed = opts.relTol * Math.max(Math.abs(expected), Math.abs(actual)) + (opts.absTol ?? 0);
    expect(Math.abs(actual - expected), `${path}: ${actual} vs ${expected}`).toBeLessThanOrEqual(allowed);
    return;
  }
  if (Array.isArray(expected)) {
    expect(Array.isArray(actual), `${path} is an array`).toBe(true);
    expect((actual as unknown[]).length, `${path} length`).toBe(expected.length);
    expected.forEach((e, i) => expectSameJson((actual as unknown[])[i], e, opts, `${path}[${i}]`));
    return;
  }
  if (expected !== null && typeof expected === 'object') {
    expect(actual !== null && typeof actual === 'object', `${path} is an object`).toBe(true);
    for (const [k, v] of Object.entries(expected)) {
      if (opts.ignore?.includes(k)) continue;
      expectSameJson((actual as Record<string, unknown>)[k], v, opts, `${path}.${k}`);
    }
    return;
  }
  expect(actual, path).toEqual(expected);
}
