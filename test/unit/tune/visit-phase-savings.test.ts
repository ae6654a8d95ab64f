import { describe, expect, it } from 'vitest';
import { measureVisit, type ProgressStep } from '../../../src/core/tune/visit';
import { PhaseWatch } from '../../../src/core/tune/phase';
import { estimateSavings } from '../../../src/core/tune/savings';
import { ProgressFollower } from '../../../src/core/tune/follow';
import { readThroughput } from '../../../src/core/adapters';
import { seededRng } from '../../../src/core/tune/random';

function steps(from: number, n: number, dt: (i: number) => number, units = 10): ProgressStep[] {
  const out: ProgressStep[] = [];
  let t = from;
  for (let i = 0; i < n; i++) {
    const d = dt(i);
    t += d;
    out.push({ t, units, dt: d });
  }
  return out;
}

describe('measureVisit', () => {
  it('leaves out the settling time and counts the rest once steady', () => {
    const rng = seededRng(1);
    const s = steps(100, 80, () => 0.5 * (1 + 0.01 * (rng() - 0.5)));
    const m = measureVisit(s, 100, { settle_s: 3, min_steps: 30, batch: 3, max_s: 100 });
    expect(m.ready).toBe(true);
    expect(m.start).toBeGreaterThanOrEqual(103);
    expect(m.rate).toBeCloseTo(20, 0);
  });

  it('is not ready with too few steps, nor while the rate still climbs', () => {
    expect(measureVisit(steps(0, 10, () => 0.5), 0).ready).toBe(false);
    const ramp = steps(0, 60, (i) => 1 / (1 + i / 5));
    const m = measureVisit(ramp, 0, { settle_s: 0, min_steps: 30, batch: 3, max_s: 100 });
    expect(m.ready).toBe(false);
    expect(m.reason).toMatch(/steady|steps/);
  });
});

describe('PhaseWatch', () => {
  it('calls a sustained shift a phase change, not a single outlier', () => {
    const w = new PhaseWatch({ throughput: 100, power_w: 400, throughput_sd: 0.002, power_sd: 0.002 });
    expect(w.push({ throughput: 100.5, power_w: 401 }).changed).toBe(false);
    expect(w.push({ throughput: 80, power_w: 400 }).changed).toBe(false);
    expect(w.push({ throughput: 100, power_w: 400 }).changed).toBe(false);
    expect(w.push({ throughput: 80, power_w: 400 }).changed).toBe(false);
    expect(w.push({ throughput: 80, power_w: 400 }).changed).toBe(false);
    const v = w.push({ throughput: 80, power_w: 400 });
    expect(v.changed).toBe(true);
    if (v.changed) expect(v.what).toMatch(/throughput fell 20.0 %/);
  });

  it('notices a power shift at equal throughput', () => {
    const w = new PhaseWatch({ throughput: 100, power_w: 400, throughput_sd: 0, power_sd: 0 });
    let last;
    for (let i = 0; i < 3; i++) last = w.push({ throughput: 100, power_w: 460 });
    expect(last!.changed).toBe(true);
  });
});

describe('estimateSavings', () => {
  it('states the saving against the default limit with an interval that holds the truth', () => {
    const visits = [0.998, 1.002, 1.0].map((k, i) => ({ cap_w: 700, start: i, end: i + 1, seconds: 20, throughput: 300 * k, efficiency: 0.4, power_w: 650, steady: true }));
    // 1e6 units at 650/300 J each at the default limit; the job used 1.8e6 J.
    const s = estimateSavings({ visits, default_w: 700, gpus: 1, job_energy_j: 1.8e6, before_energy_j: 0, units_after: 1e6, held_throughput: 270 });
    const truth = 1e6 * (650 / 300) - 1.8e6;
    expect(s.saved_j!.ci[0]).toBeLessThanOrEqual(truth * 1.01);
    expect(s.saved_j!.ci[1]).toBeGreaterThanOrEqual(truth * 0.99);
    expect(s.slowdown!.value).toBeCloseTo(300 / 270 - 1, 2);
  });

  it('gives no estimate without two steady visits at the default limit', () => {
    const s = estimateSavings({ visits: [], default_w: 700, gpus: 1, job_energy_j: 1, before_energy_j: 0, units_after: 1, held_throughput: 1 });
    expect(s.saved_j).toBeNull();
    expect(s.note).toMatch(/700 W/);
  });
});

describe('ProgressFollower', () => {
  it('reads the protocol live as the protocol adapter reads the finished log', () => {
    const f = new ProgressFollower('auto');
    const lines = ['@caplab {"ev":"start","t":0,"workload":"x","units":"images","gpus":2}', 'hello'];
    let t = 0;
    for (let n = 1; n <= 40; n++) {
      if (n === 6) lines.push('@caplab {"ev":"phase","t":' + t + ',"name":"measure"}');
      const dt = n < 6 ? 1 : 0.5 + (n % 3) * 0.01;
      t += dt;
      lines.push(`@caplab {"ev":"step","t":${t},"n":${n},"units":64,"dt":${dt}}`);
    }
    lines.push(`@caplab {"ev":"phase","t":${t},"name":"done"}`);
    lines.forEach((l, i) => f.push(l, i));
    expect(f.resolvedAdapter()).toBe('protocol');
    const live = f.protocolRate()!;
    const finished = readThroughput(lines.join('\n') + '\n', { adapter: 'auto' });
    expect(finished.adapter).toBe('protocol');
    expect(live.rate).toBeCloseTo(finished.rate, 9);
    expect(f.gpus).toBe(2);
  });

  it('reads a stretch of another tool\'s output through its adapter', () => {
    const f = new ProgressFollower('auto');
    for (let i = 0; i < 10; i++) f.push(`Epoch: [0]  [${i}/100]  img/s: ${100 + i}`, i);
    expect(f.resolvedAdapter()).toBe('rate-lines');
    expect(f.stepped).toBe(false);
    const r = f.readStretch(5, 10);
    expect(r.rate).toBeCloseTo((105 + 106 + 107 + 108 + 109) / 5, 6);
  });
});
