import { describe, expect, it } from 'vitest';
import { baselineOf, judgeCooldown, type CoolReading } from '../../../src/core/sweep/adaptive-cooldown';

const rule = { temp_band_c: 5, power_band_w: 20, flat_c_per_min: 0.5 };
const baseline = { temp_c: 35, power_w: 70 };
/** A card cooling from `from` °C towards `to` with time constant tau, read every 2 s for `seconds`, at `power` W. */
function cooling(from: number, to: number, tau: number, seconds: number, power = 72): CoolReading[] {
  return Array.from({ length: Math.floor(seconds / 2) + 1 }, (_, k) => ({ t: 100 + 2 * k, temp_c: to + (from - to) * Math.exp(-(2 * k) / tau), power_w: power }));
}

describe('adaptive cool-down: settles at the baseline or when flat, bounded by the plan', () => {
  it('waits while the card is hot and cooling, settles once within the bands of the pre-sweep baseline', () => {
    const hot = cooling(75, 35, 60, 30);
    expect(judgeCooldown(hot, baseline, rule, 30, 600)).toMatchObject({ settled: false, how: null });
    const cool = cooling(75, 35, 60, 140);
    const v = judgeCooldown(cool, baseline, rule, 140, 600);
    expect(v).toMatchObject({ settled: true, how: 'baseline' });
    expect(v.reason).toMatch(/temperature \+3\.9 °C, power \+2\.0 W/);
  });

  it('a card that settles warmer than the sweep began is done once its temperature is flat', () => {
    const warm = cooling(75, 45, 20, 200);
    const v = judgeCooldown(warm, baseline, rule, 200, 600);
    expect(v).toMatchObject({ settled: true, how: 'flat' });
  });

  it('power out of its band keeps it waiting even when the temperature is flat (something still runs)', () => {
    const busy = cooling(75, 45, 20, 200, 180);
    expect(judgeCooldown(busy, baseline, rule, 200, 600).settled).toBe(false);
  });

  it('never waits past the plan cool-down: at cooldown_s it ends, as bounded', () => {
    const hot = cooling(85, 35, 600, 60);
    expect(judgeCooldown(hot, baseline, rule, 59.9, 60).settled).toBe(false);
    expect(judgeCooldown(hot, baseline, rule, 60, 60)).toMatchObject({ settled: true, how: 'bound' });
    expect(judgeCooldown([], baseline, rule, 0, 0)).toMatchObject({ settled: true, how: 'bound' });
  });

  it('the baseline is the median of the idle readings; fields not read are not judged', () => {
    expect(baselineOf([{ t: 0, temp_c: 34, power_w: 70 }, { t: 1, temp_c: 36, power_w: null }, { t: 2, temp_c: 35, power_w: 300 }, { t: 3, temp_c: 99, power_w: 71 }])).toEqual({ temp_c: 35.5, power_w: 71 });
    const noTemp = [{ t: 0, temp_c: null, power_w: 72 }];
    expect(judgeCooldown(noTemp, { temp_c: null, power_w: 70 }, rule, 2, 60)).toMatchObject({ settled: true, how: 'baseline' });
  });
});
