import { describe, expect, it } from 'vitest';
import { checkEnforcement, combineEnforcement } from '../../../src/core/analysis/enforcement';
import { windowClocks } from '../../../src/core/analysis/clocks';
import type { PowerSample } from '../../../src/core/analysis/series';

const dev = (powers: number[], mean_w: number | null = null, limit_w: number | null = null) => ({ device_id: 'gpu0', powers, mean_w, limit_w });

describe('enforcement check', () => {
  it('power at the cap, limit as requested: enforced', () => {
    const e = checkEnforcement(300, [dev(Array(100).fill(291), 291, 300)], null);
    expect(e).toMatchObject({ enforced: true, mean_w: 291, p95_w: 291, p99_w: 291, enforced_limit_w: 300, flags: [] });
  });
  it('MI300X-style: 300 W requested, 420 W drawn -> not enforced (threshold 300 * 1.05 + 5 = 320 W)', () => {
    const e = checkEnforcement(300, [dev(Array(100).fill(420), 420, 300)], null);
    expect(e.enforced).toBe(false);
    expect(e.flags).toEqual(['not-enforced', 'spikes-above-cap', 'power-above-cap']);
    expect(e.reasons.join()).toMatch(/threshold 320.0 W/);
  });
  it('just inside the tolerance is still enforced', () => {
    expect(checkEnforcement(300, [dev([], 319.9, null)], null).enforced).toBe(true);
    expect(checkEnforcement(300, [dev([], 320.1, null)], null).enforced).toBe(false);
  });
  it('a reported limit different from the request is not enforced', () => {
    const e = checkEnforcement(150, [dev([140], 140, null)], 200);
    expect(e.enforced).toBe(false);
    expect(e.flags).toContain('limit-mismatch');
    expect(e.enforced_limit_w).toBe(200);
  });
  it('p95/p99 from the readings; short spikes only warn', () => {
    // 98 readings at 290, two at 400 (sorted indexes 98, 99): p95 at h = 99 * 0.95 = 94.05 -> 290; p99 at h = 98.01 -> 400
    const e = checkEnforcement(300, [dev([...Array(98).fill(290), 400, 400], null, 300)], null);
    expect(e.enforced).toBe(true);
    expect(e.p95_w).toBeCloseTo(290, 9);
    expect(e.p99_w).toBeCloseTo(400, 9);
    expect(e.flags).toContain('spikes-above-cap');
  });
  it('nothing to judge: enforced null', () => {
    expect(checkEnforcement(300, [], null)).toMatchObject({ enforced: null, mean_w: null });
  });
  it('a cap point is not enforced when any run was not', () => {
    const ok = checkEnforcement(300, [dev([290], 290, 300)], null);
    const bad = checkEnforcement(300, [dev([400], 400, 300)], null);
    expect(combineEnforcement(300, [ok, bad]).enforced).toBe(false);
    expect(combineEnforcement(300, [ok, ok]).enforced).toBe(true);
  });
});

describe('clocks and power-cap throttling', () => {
  it('time-weighted clocks and share of time with bit 0x4', () => {
    const s: PowerSample[] = [];
    // 0..10 s at 10 Hz: SM 1500 MHz, throttled (0x4 | 0x1) in the first 4 s, 1800 MHz unthrottled after
    for (let i = 0; i <= 100; i++) {
      const t = i / 10;
      s.push({ t, sm_clock_mhz: t < 4 ? 1500 : 1800, mem_clock_mhz: 2619, throttle_reasons: t < 4 ? 0x5 : 0x1 });
    }
    const c = windowClocks([s], { start: 0, end: 10 });
    // weights: 0.05 + 39 * 0.1 = 3.95 s at 1500 (t 0..3.9 inclusive), 6.05 s at 1800 -> 1500*0.395 + 1800*0.605 = 1681.5
    expect(c.sm_mhz).toBeCloseTo(1681.5, 9);
    expect(c.mem_mhz).toBeCloseTo(2619, 9);
    expect(c.power_cap_throttled_share).toBeCloseTo(0.395, 9);
    expect(c.samples).toBe(101);
  });
  it('no clocks reported: nulls', () => {
    expect(windowClocks([[{ t: 1, power_w: 100 }]], { start: 0, end: 2 })).toMatchObject({ sm_mhz: null, power_cap_throttled_share: null, samples: 1 });
    expect(windowClocks([], null).samples).toBe(0);
  });
});
