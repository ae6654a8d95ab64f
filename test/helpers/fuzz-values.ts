// Bad values for the import fuzz suites (issue #32): numbers no reading can be, far-off years, emptied files and
// header units that scale every value out of range, as mutations of a real-format fixture.
import fc from 'fast-check';

/** Numbers no reading can be: beyond the store, non-finite, or physically impossible (and 0, which is fine). */
export const BAD_NUMBERS = ['1e308', '1e309', '-1e309', 'Infinity', '-Infinity', '99999999999999999999', '1e300', '-1e12', '-612.45', '99999999', '-300', '-273.15', '501', '-1', '1e15', '0'];

export type BadValue = { kind: 'number'; nth: number; to: string } | { kind: 'year'; to: string } | { kind: 'keep-lines'; n: number } | { kind: 'scale'; to: string };

export const badValue: fc.Arbitrary<BadValue> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('number' as const), nth: fc.nat(), to: fc.constantFrom(...BAD_NUMBERS) }) },
  fc.record({ kind: fc.constant('year' as const), to: fc.constantFrom('9999', '2042', '1800', '0001', '1970') }),
  fc.record({ kind: fc.constant('keep-lines' as const), n: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('scale' as const), to: fc.constantFrom('[kW]', '[MW]', '[GHz]') }),
);

/** Replaces the nth number of the text (counting from its start, wrapping around) by another token. */
export function applyBad(text: string, ms: readonly BadValue[]): string {
  let s = text;
  for (const m of ms) {
    if (m.kind === 'number') {
      const spans = [...s.matchAll(/-?\d+(\.\d+)?(e[+-]?\d+)?/gi)];
      if (!spans.length) continue;
      const hit = spans[m.nth % spans.length]!;
      s = s.slice(0, hit.index) + m.to + s.slice(hit.index + hit[0].length);
    } else if (m.kind === 'year') s = s.replace(/\b(2026|2019)\b/, m.to);
    else if (m.kind === 'keep-lines') s = s.split('\n').slice(0, m.n).join('\n') + (m.n ? '\n' : '');
    else s = s.replace(/\[(W|mW|MHz)\]/, m.to);
  }
  return s;
}

