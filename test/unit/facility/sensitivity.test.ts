import { describe, expect, it } from 'vitest';
import { runScenarioInline } from '../../../src/core/facility/run';
import type { FacilityLevel } from '../../../src/shared/facility';
import { sensitivityVariants, type VariantName } from '../../../bench/facility-variants';

/**
 * docs/facility.md, "What the match proves, and what moves peaks": the directions its read-across claims, on the NLR
 * colocation reconstruction at 60 % (eight weeks at 1 min, one replica; the docs' table is 91 days).
 */
describe('facility sensitivity: peaks, p99, ramps and the load-duration curve move with job size, profile and arrivals', () => {
  const at60 = new Map<VariantName, FacilityLevel>(sensitivityVariants(56, [0.6]).map((v) => [v.key, runScenarioInline(v.scenario)[0]!]));
  const l = (k: VariantName) => at60.get(k)!;
  const base = l('reconstruction');

  it('the means hardly move (they prove little): every variant within 4 % of the reconstruction', () => {
    for (const [, v] of at60) expect(Math.abs(v.mean_w / base.mean_w - 1)).toBeLessThan(0.04);
  });

  it('peak: flat profile < built-in profiles < large jobs (plateaus above the job mean, many nodes in step)', () => {
    expect(l('flat-profile').peak_w).toBeLessThan(base.peak_w);
    expect(l('large-jobs').peak_w).toBeGreaterThan(base.peak_w);
  });

  it('1-min ramps grow with job size: 1 node < 1-16 nodes < 16-128 nodes', () => {
    expect(l('one-node').ramp_1min_w!).toBeLessThan(0.7 * base.ramp_1min_w!);
    expect(l('large-jobs').ramp_1min_w!).toBeGreaterThan(2 * base.ramp_1min_w!);
  });

  it('1-h ramps follow the daily arrival shape and shrink with longer jobs', () => {
    expect(l('long-jobs').ramp_1h_w!).toBeLessThan(0.8 * base.ramp_1h_w!);
  });

  it('flat arrivals: the site no longer saturates, p99 and peak drop and the load-duration curve loses its plateau', () => {
    const flat = l('flat-arrivals');
    expect(flat.p99_w).toBeLessThan(0.85 * base.p99_w);
    expect(flat.peak_w).toBeLessThan(0.9 * base.peak_w);
    // The reconstruction's curve is flat near the top for its busiest 10 % of the time; the flat-arrival one is not.
    expect(base.ldc_w[10]! / base.ldc_w[1]!).toBeGreaterThan(0.97);
    expect(flat.ldc_w[10]! / flat.ldc_w[1]!).toBeLessThan(base.ldc_w[10]! / base.ldc_w[1]!);
    expect(flat.queue_wait_mean_h).toBeLessThan(base.queue_wait_mean_h);
  });
});
