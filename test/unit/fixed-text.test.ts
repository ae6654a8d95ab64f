import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { IsoTimeWriter, decimalsOf, writeFixed } from '../../src/main/lab/exporters/fixed-text';
import { isoTime } from '../../src/main/lab/exporters/samples';

const text = (q: number, decimals: number) => {
  const buf = new Uint8Array(32);
  return Buffer.from(buf.subarray(0, writeFixed(buf, 0, q, decimals))).toString('latin1');
};
const MAX_Q = 2 ** 51;

describe('fixed-point text of quantised values', () => {
  it('equals String(q / scale) for every stored scale over the whole storable range', () => {
    fc.assert(
      fc.property(fc.integer({ min: -MAX_Q + 1, max: MAX_Q - 1 }), fc.constantFrom(1, 10, 1000, 1e6), (q, scale) => {
        expect(text(q, decimalsOf(scale))).toBe(String(q / scale));
      }),
      { numRuns: 20_000 },
    );
  });

  it('equals String(q / scale) for small values, round numbers and digit-count edges', () => {
    const edges = [0, 1, 9, 10, 99, 100, 999_999, 1_000_000, 1_000_001, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 1, 99_999_999, 100_000_000, 1764500000_123456, MAX_Q - 1];
    for (const q of edges.flatMap((x) => [x, -x]))
      for (const scale of [1, 10, 1000, 1e6]) expect(text(q, decimalsOf(scale))).toBe(String(q / scale));
  });

  it('writes ISO-8601 UTC times with every stored decimal, as isoTime does', () => {
    const w = new IsoTimeWriter();
    const buf = new Uint8Array(40);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000_000 }), (q) => {
        expect(Buffer.from(buf.subarray(0, w.write(buf, 0, q, 6))).toString('latin1')).toBe(isoTime(q / 1e6));
      }),
      { numRuns: 20_000 },
    );
  });

  it('refuses a scale that is not a power of ten', () => expect(() => decimalsOf(4)).toThrow(/not a power of ten/));
});
