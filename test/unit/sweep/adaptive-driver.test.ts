import { describe, expect, it } from 'vitest';
import { AdaptiveDriver } from '../../../src/main/lab/sweep/adaptive-driver';
import { Plan } from '../../../src/shared/plan';
import { Sample } from '../../../src/shared/sample';

/**
 * The sweep's feed on NVML: the sampler's readings carry power and temperature but no counter (energy_mj null); the
 * orchestrator's counter readings come as samples of their own (power null, power_kind 'counter'). An LLM-like load:
 * 0.101 s steps swinging 400/700 W within themselves, power read every 0.1 s, the counter updated every 100 ms.
 */
function runWindow(withCounter: boolean) {
  const plan = Plan.parse({ workloads: [{ id: 'llama_pretrain' }], caps: [700], window: { seconds: 45 }, adaptive: { window: { ci_target: 0.01, min_s: 10 } } });
  const driver = AdaptiveDriver.of(plan, () => 0)!;
  expect(driver.judgesWindow).toBe(true);
  const hook = driver.windowHook(() => 0)!;
  const step_s = 0.101;
  const truth = (x: number) => ((x % step_s) / step_s < 0.5 ? 400 : 700);
  let energy = 0;
  let held = 0;
  let seconds = 45;
  for (let ms = 1; ms <= 45_000; ms++) {
    const x = ms / 1000;
    energy += truth(x - 0.0005) * 0.001;
    if (ms % 100 === 37) held = energy;
    if (ms % 100 === 0) {
      const readings = [Sample.parse({ device_id: 'nvml:0', t: x, power_w: truth(x), power_kind: 'instant', temp_c: 60, energy_mj: null })];
      if (withCounter) readings.push(Sample.parse({ device_id: 'nvml:0', t: x + 0.004, power_w: null, power_kind: 'counter', energy_mj: held * 1000 }));
      driver.onSamples(readings);
    }
    const k = Math.floor(x / step_s + 1e-9);
    if (Math.abs(x - k * step_s) < 0.0005 && k > 0 && hook({ t: k * step_s, units: 2048, dt: step_s })) {
      seconds = k * step_s;
      break;
    }
  }
  return driver.windowRecord(seconds)!;
}

describe('adaptive driver: the window judges power on counter readings that come apart from the sampler', () => {
  it('counter readings of their own (as on NVML) settle the LLM window; without them the power readings strobe it to the end', () => {
    const counted = runWindow(true);
    expect(counted.settled, counted.reason).toBe(true);
    expect(counted.seconds).toBeLessThan(15);
    expect(counted.power_ci!).toBeLessThanOrEqual(0.01);
    const strobed = runWindow(false);
    expect(strobed.settled).toBe(false);
    expect(strobed.power_ci!).toBeGreaterThan(0.05);
  });
});
