import { describe, expect, it } from 'vitest';
import { throttleReasonWords, throttleText } from '../../src/shared/throttle';

describe('throttle reasons in words (Devices page)', () => {
  it('names each NVML bit and keeps unknown bits by value', () => {
    expect(throttleReasonWords(0x4 | 0x20)).toEqual(['power cap (software)', 'thermal slowdown (software)']);
    expect(throttleReasonWords(0x1000 | 0x1)).toEqual(['idle', 'other (0x1000)']);
  });
  it('tells none (0) from not reported (null, or nonsense from a driver)', () => {
    expect(throttleText(0)).toBe('none');
    expect(throttleText(null)).toBe('not reported');
    expect(throttleText(undefined)).toBe('not reported');
    expect(throttleText(-1)).toBe('not reported');
    expect(throttleText(0x4)).toBe('power cap (software)');
  });
});
