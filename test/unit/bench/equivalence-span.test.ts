// The rule by which a 1 W cap (a tuner's held cap, the true best) is judged inside a swept equivalence set: the set
// stands for the caps out to half-way to the measured neighbours outside it.
import { describe, expect, it } from 'vitest';
import { insideSpan, spanOf } from '../../../bench/time-to-answer/span';
import { fixedPlan } from '../../../bench/time-to-answer/protocols';
import { VirtualGpu } from '../../../bench/time-to-answer/virtual-lab';

const grid = Array.from({ length: 21 }, (_, i) => 200 + 25 * i);

describe('spanOf', () => {
  it('reaches half-way to the measured caps just outside the set', () => {
    expect(spanOf([325, 350, 375], grid)).toEqual([312.5, 387.5]);
  });
  it('stops at the set where nothing was measured beyond it', () => {
    expect(spanOf([650, 675, 700], grid)).toEqual([637.5, 700]);
    expect(spanOf([200], grid)).toEqual([200, 212.5]);
  });
  it('takes the set in any order, by its ends', () => {
    expect(spanOf([375, 325, 350], grid)).toEqual([312.5, 387.5]);
  });
  it('has no span for an empty set', () => {
    expect(spanOf([], grid)).toBeNull();
  });
});

describe('insideSpan', () => {
  const span = spanOf([325, 350, 375], grid);
  it('counts the half-way caps as inside and the next watt out as outside', () => {
    expect(insideSpan(312.5, span)).toBe(true);
    expect(insideSpan(387.5, span)).toBe(true);
    expect(insideSpan(312, span)).toBe(false);
    expect(insideSpan(388, span)).toBe(false);
  });
  it('counts every set member inside and every measured cap outside the set outside', () => {
    for (const c of grid) expect(insideSpan(c, span)).toBe(c >= 325 && c <= 375);
  });
  it('holds nothing without a set', () => {
    expect(insideSpan(350, null)).toBe(false);
  });
});

describe('the offline sweep of a tune trial', () => {
  it('plays the sim backend default card (seed 1) unless another device is named', () => {
    const t = { preset: 'h100-sxm', workload: 'vit_l_16', seed: 3 };
    expect(fixedPlan({ ...t, device_seed: 1 })).toEqual(fixedPlan(t));
    // Another card's part-to-part offset changes what is measured where the cap does not bind.
    expect(new VirtualGpu('h100-sxm', 'vit_l_16', 1, 11).trueEfficiency(700)).not.toBe(new VirtualGpu('h100-sxm', 'vit_l_16', 1).trueEfficiency(700));
  });
  it('reports a set whose span holds each of its members', () => {
    const a = fixedPlan({ preset: 'h200', workload: 'llama_pretrain', seed: 5 });
    expect(a.set.length).toBeGreaterThan(0);
    for (const c of a.set) expect(insideSpan(c, a.span)).toBe(true);
  });
});
