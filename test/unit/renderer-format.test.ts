// The dataset header's time range (issue #29 polish): to the second, the end without its date on the same day, and
// the length, so a 32 s log no longer reads "14:05 – 14:05".
import { describe, expect, it } from 'vitest';
import { timeSpan } from '../../src/renderer/lib/format';

const local = (y: number, mo: number, d: number, h: number, mi: number, s: number) => new Date(y, mo - 1, d, h, mi, s).getTime() / 1000;

describe('timeSpan', () => {
  it('gives a short log to the second with its length', () => {
    expect(timeSpan(local(2026, 12, 4, 14, 5, 3), local(2026, 12, 4, 14, 5, 35))).toBe('2026-12-04 14:05:03 – 14:05:35 (32s)');
  });
  it('names the end date when the range crosses midnight, and hours for a long one', () => {
    expect(timeSpan(local(2026, 12, 4, 23, 0, 0), local(2026, 12, 5, 1, 30, 0))).toBe('2026-12-04 23:00:00 – 2026-12-05 01:30:00 (2h 30m)');
  });
  it('says so when an end is not known instead of inventing a length', () => {
    expect(timeSpan(null, local(2026, 12, 4, 14, 5, 35))).toBe('time range not recorded');
  });
});
